#include "plan/ip_network.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <cstring>

namespace cordon {

std::optional<IpAddress> IpAddress::parse(std::string_view text) {
  if (text.empty() || text.size() > 45) return std::nullopt;
  std::string z(text);
  IpAddress a;
  in_addr v4{};
  if (z.find(':') == std::string::npos) {
    if (inet_pton(AF_INET, z.c_str(), &v4) != 1) return std::nullopt;
    std::memcpy(a.bytes.data(), &v4, 4);
    return a;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, z.c_str(), &v6) != 1) return std::nullopt;
  a.v6 = true;
  std::memcpy(a.bytes.data(), v6.s6_addr, 16);
  return a;
}

IpAddress IpAddress::low_v4() const { return v4_at(12); }

IpAddress IpAddress::v4_at(size_t first) const {
  IpAddress out;
  for (size_t i = 0; i < 4 && first + i < 16; ++i) out.bytes[i] = bytes[first + i];
  return out;
}

std::string IpAddress::text() const {
  char buf[INET6_ADDRSTRLEN] = {};
  if (!inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf)) return "?";
  return buf;
}

std::optional<IpNetwork> IpNetwork::parse(std::string_view cidr) {
  size_t slash = cidr.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto base = IpAddress::parse(cidr.substr(0, slash));
  std::string_view b = cidr.substr(slash + 1);
  if (!base || b.empty() || b.size() > 3) return std::nullopt;
  int bits = 0;
  for (char c : b) {
    if (c < '0' || c > '9') return std::nullopt;
    bits = bits * 10 + (c - '0');
  }
  if (bits > (base->v6 ? 128 : 32)) return std::nullopt;
  return IpNetwork{*base, bits};
}

bool IpNetwork::contains(const IpAddress& a) const {
  if (a.v6 != base.v6) return false;
  int left = bits;
  for (size_t i = 0; i < 16 && left > 0; ++i, left -= 8) {
    auto mask = static_cast<unsigned char>(left >= 8 ? 0xff : 0xff << (8 - left));
    if ((a.bytes[i] & mask) != (base.bytes[i] & mask)) return false;
  }
  return true;
}

std::string IpNetwork::text() const {
  IpAddress b = base;
  int left = bits;
  for (size_t i = 0; i < 16; ++i, left -= 8) {
    if (left >= 8) continue;
    const int keep = left <= 0 ? 0 : 0xff << (8 - left);
    b.bytes[i] = static_cast<unsigned char>(b.bytes[i] & keep);
  }
  return fmt::format("{}/{}", b.text(), bits);
}

}  // namespace cordon
