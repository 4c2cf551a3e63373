// NET-8: an IP address and a network (address/prefix) as bytes, for judging where the proxy
// may connect. Pure: text in and out through inet_pton/inet_ntop, no sockets.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace cordon {

// An IPv4 address (its 4 bytes first) or an IPv6 one (16 bytes), in network order.
struct IpAddress {
  bool v6 = false;
  std::array<unsigned char, 16> bytes{};

  // "10.0.0.1", "::1", "::ffff:10.0.0.1" (kept as IPv6: the caller decides about embedded
  // IPv4); nothing for anything else (no brackets, no zone, no inet_aton shorthand).
  static std::optional<IpAddress> parse(std::string_view text);
  // The IPv4 address carried in the last 4 bytes (IPv4-mapped, NAT64, IPv4-compatible).
  IpAddress low_v4() const;
  // The IPv4 address in bytes 2..5 (6to4, RFC 3056: 2002:AABB:CCDD::/48).
  IpAddress v4_at(size_t first) const;
  std::string text() const;
  bool operator==(const IpAddress&) const = default;
};

// A network: every address whose first `bits` bits are those of `base`.
// Example: IpNetwork::parse("192.168.0.0/16")->contains(*IpAddress::parse("192.168.7.1")).
struct IpNetwork {
  IpAddress base;
  int bits = 0;

  static std::optional<IpNetwork> parse(std::string_view cidr);
  bool contains(const IpAddress& a) const;
  std::string text() const;  // "192.168.0.0/16": the base with the host bits cleared
};

}  // namespace cordon
