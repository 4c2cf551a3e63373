#include "core/error_code.h"

#include <ostream>

#include "cordon/error.h"

namespace cordon {

std::ostream& operator<<(std::ostream& os, ErrorKind kind) { return os << to_string(kind); }

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kRefused:
      return "refused";
    case ErrorKind::kHeld:
      return "held";
    case ErrorKind::kUnavailable:
      return "unavailable";
    case ErrorKind::kInvalid:
      return "invalid";
    case ErrorKind::kIo:
      return "io";
    case ErrorKind::kConfig:
      return "config";
    case ErrorKind::kState:
      return "state";
    case ErrorKind::kNet:
      return "net";
    case ErrorKind::kReview:
      return "review";
    case ErrorKind::kGit:
      return "git";
    case ErrorKind::kSpawn:
      return "spawn";
    case ErrorKind::kExec:
      return "exec";
    case ErrorKind::kSeccomp:
      return "seccomp";
    case ErrorKind::kCgroup:
      return "cgroup";
    case ErrorKind::kDamaged:
      return "damaged";
    case ErrorKind::kAborted:
      return "aborted";
    case ErrorKind::kInternal:
      return "internal";
  }
  return "refused";  // not a kind (a cast): fail closed
}

ErrorCode public_error_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kHeld:
      return ErrorCode::kHeld;
    case ErrorKind::kUnavailable:
    case ErrorKind::kConfig:
    case ErrorKind::kState:
    case ErrorKind::kNet:
      return ErrorCode::kUnavailable;
    case ErrorKind::kInvalid:
    case ErrorKind::kReview:
    case ErrorKind::kGit:
      return ErrorCode::kInvalid;
    case ErrorKind::kIo:
      return ErrorCode::kIo;
    // The sandbox could not be set up for this command: the command did not run. Refusals, so
    // that a caller retrying on "unavailable" does not loop on a command that cannot be
    // sandboxed.
    case ErrorKind::kRefused:
    case ErrorKind::kSpawn:
    case ErrorKind::kExec:
    case ErrorKind::kSeccomp:
    case ErrorKind::kCgroup:
    case ErrorKind::kDamaged:
    case ErrorKind::kAborted:
    case ErrorKind::kInternal:
      break;
  }
  return ErrorCode::kRefused;
}

ErrorKind error_kind(ErrorCode code) {
  switch (code) {
    case ErrorCode::kHeld:
      return ErrorKind::kHeld;
    case ErrorCode::kUnavailable:
      return ErrorKind::kUnavailable;
    case ErrorCode::kInvalid:
      return ErrorKind::kInvalid;
    case ErrorCode::kIo:
      return ErrorKind::kIo;
    case ErrorCode::kRefused:
      break;
  }
  return ErrorKind::kRefused;
}

}  // namespace cordon

namespace cordon::api {

Error::operator cordon::Error() const {
  return cordon::Error{error_kind(code), message, path, sys_errno, violations};
}

}  // namespace cordon::api
