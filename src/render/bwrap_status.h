// bwrap's status protocol (--json-status-fd): JSON objects, one after another, as bwrap
// writes them: `{ "child-pid": N }` once the sandbox is set up (its pid 1, seen from the
// host), later `{ "exit-code": N }` when the command ended. Pure: parsed from the text read
// so far, so a caller may feed it whatever arrived.
#pragma once

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cordon {

struct BwrapStatus {
  std::optional<int> child_pid;  // set up: the sandbox's pid 1
  std::optional<int> exit_code;  // the command's exit code, as bwrap reports it (PROC-5)
};

namespace bwrap_status_detail {
// The integer after `"key":` (spaces allowed), when all of it has arrived.
inline std::optional<int64_t> int_after(std::string_view text, std::string_view key) {
  size_t p = text.find(key);
  if (p == std::string_view::npos) return std::nullopt;
  p = text.find(':', p + key.size());
  if (p == std::string_view::npos) return std::nullopt;
  ++p;
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t' || text[p] == '\n')) ++p;
  const bool neg = p < text.size() && text[p] == '-';
  if (neg) ++p;
  const size_t digits = p;
  int64_t v = 0;
  while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])) && p - digits < 12)
    v = v * 10 + (text[p++] - '0');
  // No digit, or a number that may still go on in the next read.
  if (p == digits || p >= text.size()) return std::nullopt;
  return neg ? -v : v;
}
}  // namespace bwrap_status_detail

//   parse_bwrap_status("{ \"child-pid\": 42 }\n") == {42, nullopt}
inline BwrapStatus parse_bwrap_status(std::string_view text) {
  BwrapStatus s;
  if (auto v = bwrap_status_detail::int_after(text, "\"child-pid\""); v && *v > 0)
    s.child_pid = static_cast<int>(*v);
  if (auto v = bwrap_status_detail::int_after(text, "\"exit-code\""))
    s.exit_code = static_cast<int>(*v);
  return s;
}

}  // namespace cordon
