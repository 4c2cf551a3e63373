// Result<T>: a value or an Error, never an exception across layers. Part of the public API
// (cordon/cordon.h): every call of libcordon that can fail returns one.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace cordon {

// An Error is for a person: what happened, which path, and the fix.
struct Error {
  std::string code;     // stable machine word: "config", "refused", "io", "unavailable", ...
  std::string message;  // full sentence(s) a person can act on
  std::string path;     // the path concerned, when there is one
  int sys_errno = 0;    // errno when a syscall failed
};

inline Error make_error(std::string code, std::string message, std::string path = {},
                        int sys_errno = 0) {
  return Error{std::move(code), std::move(message), std::move(path), sys_errno};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace cordon
