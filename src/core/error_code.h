// libcordon's own errors, as a type: an ErrorKind says what went wrong (Error::code,
// Refusal::reason), and the public API's ErrorCode (cordon/result.h) is derived from it in one
// place, public_error_code. A kind's word (to_string) is for the output formats that print it
// (`cordon policy --json`'s refusal reason) and for people reading a test's failure.
#pragma once

#include <string_view>

#include "cordon/result.h"

namespace cordon {

// Declared in cordon/result.h (Error holds one); every kind of libcordon's errors.
enum class ErrorKind {
  // SRV-1's own words, the public codes as they are. kRefused is first: a default-made Error
  // (no kind given) is a refusal, so it fails closed.
  kRefused,
  kHeld,
  kUnavailable,
  kInvalid,
  kIo,
  // A broken config (CFG-2), an unusable state folder, the allowlist proxy that could not
  // start (NET-7): nothing runs until it is fixed.
  kConfig,
  kState,
  kNet,
  // No review started, not a git repository (REV-1): the request cannot be answered.
  kReview,
  kGit,
  // The sandbox could not be set up for this command (bwrap's start, the executable, the
  // seccomp program, the cgroup, a damaged session record, a launch cordon ended itself).
  kSpawn,
  kExec,
  kSeccomp,
  kCgroup,
  kDamaged,
  kAborted,
  kInternal,
};

// Every kind, in order (the unit tests walk them).
inline constexpr ErrorKind kErrorKinds[] = {
    ErrorKind::kRefused,  ErrorKind::kHeld,   ErrorKind::kUnavailable, ErrorKind::kInvalid,
    ErrorKind::kIo,       ErrorKind::kConfig, ErrorKind::kState,       ErrorKind::kNet,
    ErrorKind::kReview,   ErrorKind::kGit,    ErrorKind::kSpawn,       ErrorKind::kExec,
    ErrorKind::kSeccomp,  ErrorKind::kCgroup, ErrorKind::kDamaged,     ErrorKind::kAborted,
    ErrorKind::kInternal,
};

// The kind's word: "refused", "config", "spawn", ... (the five public ones are SRV-1's).
std::string_view to_string(ErrorKind kind);

// The one mapping from libcordon's kinds to the public API's codes.
ErrorCode public_error_code(ErrorKind kind);

// A public code as libcordon's kind (an api::Error a face hands back as its own).
ErrorKind error_kind(ErrorCode code);

}  // namespace cordon
