// The public API's error and result types (cordon/cordon.h, cordon/policy.h).
#pragma once

#include <string>
#include <vector>

#include "cordon/result.h"
#include "cordon/violation.h"

namespace cordon::api {

using cordon::ErrorCode;
using cordon::Ok;

// An error of the public API: what happened, which path, and the fix, for a person.
struct Error {
  ErrorCode code = ErrorCode::kRefused;
  std::string message;  // full sentence(s) a person can act on
  std::string path;     // the path concerned, when there is one
  int sys_errno = 0;    // errno when a syscall failed
  // AUD-2: for a refusal before anything ran (the command policy, a refused way out, a file
  // tool's refused question): what was refused, its rule and fix. Empty otherwise.
  std::vector<Violation> violations{};
  // The same error in libcordon's own form (its code as libcordon's kind), for the faces.
  operator cordon::Error() const;  // NOLINT(google-explicit-constructor)
};

template <class T>
using Result = cordon::Result<T, Error>;
using Status = Result<Ok>;

}  // namespace cordon::api
