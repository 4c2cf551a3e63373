// bwrap's version and the options it has (PROBE-4), pure: parsing `bwrap --version` and
// deciding which of cordon's options to pass. Reading it from the machine is bwrap_info.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cordon {

struct BwrapVersion {
  int major = 0, minor = 0, micro = 0;
  auto operator<=>(const BwrapVersion&) const = default;
  std::string str() const;  // "0.6.1"
};

// The oldest bwrap cordon runs on (Ubuntu 22.04 has 0.6.1): below it, the probe refuses.
inline constexpr BwrapVersion kMinBwrapVersion{0, 6, 0};

// "bubblewrap 0.6.1\n" → 0.6.1; nullopt for anything else.
//   parse_bwrap_version("bubblewrap 0.11.0") == BwrapVersion{0, 11, 0}
std::optional<BwrapVersion> parse_bwrap_version(std::string_view version_output);

// The options of cordon's whose presence depends on bwrap's version. An unknown version
// (`--version` failed or said something else) is taken as the newest: cordon then passes
// everything, and an old bwrap's "Unknown option" is diagnosed (bwrap_diagnosis.h) instead of
// silently running with less.
struct BwrapFeatures {
  // --disable-userns (0.8): the sandbox cannot create user namespaces. Without it, the
  // seccomp rule against CLONE_NEWUSER (PROC-7) still refuses them.
  bool disable_userns = true;
  // --size (0.7) before --tmpfs. No mount of cordon's plans gives a tmpfs a size today; a rule
  // that adds one must leave the size out when this is false.
  bool size = true;
};
BwrapFeatures bwrap_features(const std::optional<BwrapVersion>& v);

// PROBE-4: nullopt when `v` is new enough, else the refusal's cause ("bwrap 0.5.0 at
// /usr/bin/bwrap is older than cordon needs (0.6.0 or newer)").
std::optional<std::string> bwrap_too_old(const std::optional<BwrapVersion>& v,
                                         const std::string& bwrap_path);

// The fix that goes with bwrap_too_old.
std::string bwrap_upgrade_fix();

}  // namespace cordon
