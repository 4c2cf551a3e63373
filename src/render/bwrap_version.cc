#include "render/bwrap_version.h"

#include <cctype>

#include <fmt/format.h>

namespace cordon {

std::string BwrapVersion::str() const { return fmt::format("{}.{}.{}", major, minor, micro); }

std::optional<BwrapVersion> parse_bwrap_version(std::string_view s) {
  constexpr std::string_view kPrefix = "bubblewrap ";
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (s.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  s.remove_prefix(kPrefix.size());
  int parts[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) {
      if (i < 2) return std::nullopt;  // "0.6" is accepted as 0.6.0, "0" is not a version
      break;
    }
    long n = 0;
    while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front()))) {
      n = n * 10 + (s.front() - '0');
      if (n > 100000) return std::nullopt;
      s.remove_prefix(1);
    }
    parts[i] = static_cast<int>(n);
    if (i < 2) {
      if (s.empty() || s.front() != '.') {
        if (i == 1) break;
        return std::nullopt;
      }
      s.remove_prefix(1);
    }
  }
  return BwrapVersion{parts[0], parts[1], parts[2]};
}

BwrapFeatures bwrap_features(const std::optional<BwrapVersion>& v) {
  BwrapFeatures f;
  if (!v) return f;
  f.disable_userns = *v >= BwrapVersion{0, 8, 0};
  f.size = *v >= BwrapVersion{0, 7, 0};
  return f;
}

std::optional<std::string> bwrap_too_old(const std::optional<BwrapVersion>& v,
                                         const std::string& bwrap_path) {
  if (!v || *v >= kMinBwrapVersion) return std::nullopt;
  return fmt::format("bwrap {} at {} is older than cordon needs ({} or newer)", v->str(),
                     bwrap_path, kMinBwrapVersion.str());
}

std::string bwrap_upgrade_fix() {
  return fmt::format(
      "install bubblewrap {} or newer (Ubuntu 22.04 has 0.6.1, Debian 12 0.8.0), "
      "or point CORDON_BWRAP at a newer bwrap",
      kMinBwrapVersion.str());
}

}  // namespace cordon
