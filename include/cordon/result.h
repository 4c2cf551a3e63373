// Result<T>: a value or an Error, never an exception across layers. Part of the public API
// (cordon/cordon.h): every call of libcordon that can fail returns one.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "cordon/violation.h"

namespace cordon {

// What went wrong, as the public API reports it (api::Error::code, SRV-1's `reason`).
enum class ErrorCode {
  kRefused,      // a rule or a person said no (the message says why and what to do instead)
  kHeld,         // the session is held until leftover processes are gone (PROC-3, SES-3)
  kUnavailable,  // the sandbox, the config or cordon's state folder cannot be used now
  kInvalid,      // the request itself is wrong (no command, a bad pattern, a missing file)
  kIo,           // the host failed (a read or write of the file tools)
};

// "refused", "held", "unavailable", "invalid", "io": SRV-1's words.
constexpr std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kRefused:
      return "refused";
    case ErrorCode::kHeld:
      return "held";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kInvalid:
      return "invalid";
    case ErrorCode::kIo:
      return "io";
  }
  return "refused";
}

// libcordon's own kinds of error, each with the public code it is reported as
// (src/core/error_code.h). An embedder sees only the ErrorCode (api::Error, cordon/error.h).
enum class ErrorKind;
// Prints the kind's word (core/error_code.h), e.g. in a test's failure message.
std::ostream& operator<<(std::ostream& os, ErrorKind kind);

// libcordon's error. An Error is for a person: what happened, which path, and the fix.
struct Error {
  ErrorKind code{};     // what went wrong; a default-made Error is a refusal (fails closed)
  std::string message;  // full sentence(s) a person can act on
  std::string path;     // the path concerned, when there is one
  int sys_errno = 0;    // errno when a syscall failed
  // AUD-2: a refusal before anything ran (the command policy, a way out or a file tool's
  // question refused): what was refused, its rule and fix.
  std::vector<api::Violation> violations{};
};

inline Error make_error(ErrorKind code, std::string message, std::string path = {},
                        int sys_errno = 0) {
  return Error{code, std::move(message), std::move(path), sys_errno};
}

// E is the error type: Error inside libcordon, api::Error (cordon/cordon.h) in the public API.
// A Result takes any error convertible to its own (an api::Error becomes an Error).
template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(E error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  template <class E2>
  requires(!std::is_same_v<E2, E> && std::is_convertible_v<const E2&, E> &&
           !std::is_convertible_v<const E2&, T>) Result(const E2& error)
      : v_(std::in_place_index<1>, E(error)) {}  // NOLINT
  template <class E2>
  requires(!std::is_same_v<E2, E> && std::is_convertible_v<const E2&, E>)
      Result(Result<T, E2>&& other)  // NOLINT(google-explicit-constructor)
      : v_(other.ok() ? std::variant<T, E>(std::in_place_index<0>, std::move(*other))
                      : std::variant<T, E>(std::in_place_index<1>, E(other.error()))) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  const E& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

// Result<void>.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace cordon
