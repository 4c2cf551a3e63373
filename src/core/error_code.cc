#include "core/error_code.h"

namespace cordon {

const std::vector<std::pair<std::string_view, ErrorCode>>& error_words() {
  static const std::vector<std::pair<std::string_view, ErrorCode>> words = {
      // SRV-1's own words, as they are.
      {"refused", ErrorCode::kRefused},
      {"held", ErrorCode::kHeld},
      {"unavailable", ErrorCode::kUnavailable},
      {"invalid", ErrorCode::kInvalid},
      {"io", ErrorCode::kIo},
      // A broken config (CFG-2), an unusable state folder: nothing runs until it is fixed.
      {"config", ErrorCode::kUnavailable},
      {"state", ErrorCode::kUnavailable},
      {"net", ErrorCode::kUnavailable},  // NET-7: the allowlist proxy could not start
      // No review started, not a git repository (REV-1): the request cannot be answered.
      {"review", ErrorCode::kInvalid},
      {"git", ErrorCode::kInvalid},
      // The sandbox could not be set up for this command (bwrap's start, the seccomp program,
      // the cgroup, a damaged session record, a launch cordon ended itself): the command did
      // not run. Reported as refusals, as before the enum, so a caller retrying on
      // "unavailable" does not loop on a command that cannot be sandboxed.
      {"spawn", ErrorCode::kRefused},
      {"exec", ErrorCode::kRefused},
      {"seccomp", ErrorCode::kRefused},
      {"cgroup", ErrorCode::kRefused},
      {"damaged", ErrorCode::kRefused},
      {"aborted", ErrorCode::kRefused},
      {"internal", ErrorCode::kRefused},
  };
  return words;
}

ErrorCode public_error_code(std::string_view word) {
  for (const auto& [w, code] : error_words())
    if (w == word) return code;
  return ErrorCode::kRefused;
}

}  // namespace cordon
