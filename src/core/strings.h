// Small string helpers shared by every layer.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

std::vector<std::string> split(std::string_view s, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string to_lower(std::string_view s);
std::string to_upper(std::string_view s);
bool ends_with(std::string_view s, std::string_view suffix);
bool starts_with(std::string_view s, std::string_view prefix);
// Shell-style glob with `*` (any run, including empty) and `?`; no classes.
bool glob_match(std::string_view pattern, std::string_view text);
// Quotes a word for a POSIX shell only when it needs quoting (for messages users paste).
std::string shell_quote(std::string_view word);
// Words quoted as shell_quote does, joined by spaces: a command line a user can paste.
//   shell_join({"git", "commit", "-m", "a b"}) == "git commit -m 'a b'"
std::string shell_join(const std::vector<std::string>& words);
// A name or message made safe to print to a terminal or hand to a JSON client that shows it:
// control characters (C0, DEL, C1), bytes that are not UTF-8, and the bidirectional overrides
// become `\xNN` (per byte), so no name can start a line, move the cursor or reorder text.
// A backslash stays as it is, so printable(printable(s)) == printable(s).
//   printable("a\nb") == "a\\x0ab"   printable("caf\xc3\xa9") == "caf\xc3\xa9"
std::string printable(std::string_view s);
// Lowercase hex of bytes.
std::string hex(const unsigned char* data, size_t n);
// "1 file", "2 files".
std::string plural(size_t n, std::string_view one, std::string_view many);
// Joins a list for a sentence: "a", "a and b", "a, b and c".
std::string join_sentence(const std::vector<std::string>& items);

}  // namespace cordon

namespace cordon {
// Strips spaces, tabs and newlines (\n, \r) at both ends.
std::string trim(std::string_view s);
// The same, as a view into `s` (no copy).
std::string_view trim_view(std::string_view s);
// True when `a` equals one of `set`.
bool is_one_of(std::string_view a, std::initializer_list<std::string_view> set);
}  // namespace cordon
