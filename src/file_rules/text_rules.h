// Text operations of the file tools (pure): line slices, UTF-8 repair, exact replacement.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace cordon {

// True when `data` holds a NUL byte: the file tools treat such a file as binary.
bool looks_binary(std::string_view data);

// Replaces each invalid UTF-8 sequence (a stray byte, an overlong form, a surrogate, a code
// point past U+10FFFF, a cut-off sequence) with U+FFFD and returns how many it replaced, so the
// text can travel in JSON. make_valid_utf8("a\xffz") turns it into "a\uFFFDz" and returns 1.
size_t make_valid_utf8(std::string& text);

// The longest prefix of `text` of at most `max_bytes` bytes that does not cut a UTF-8
// sequence in two.
std::string_view utf8_prefix(std::string_view text, size_t max_bytes);

// Lines are counted by '\n'; a last line without one still counts. "" has 0 lines, "a" 1,
// "a\n" 1, "a\nb" 2.
size_t count_lines(std::string_view text);

struct LineSlice {
  std::string_view text;   // the lines, each with its '\n' (the last may have none)
  size_t first_line = 1;   // 1-based number of the first line in `text`
  size_t line_count = 0;   // lines in `text`
  size_t total_lines = 0;  // lines in the whole text
  bool more = false;       // lines follow the slice
};

// Lines `first_line` .. `first_line + limit - 1` (1-based; 0 counts as 1; no limit: to the
// end). A first line past the end gives an empty slice.
// slice_lines("a\nb\nc\n", 2, 1).text == "b\n"
LineSlice slice_lines(std::string_view text, size_t first_line, std::optional<size_t> limit);

// Non-overlapping occurrences of `needle` (not empty) in `text`, left to right.
size_t count_occurrences(std::string_view text, std::string_view needle);

// edit_file's replacement: `old_text` must occur exactly once, or at least once with
// `replace_all`. Errors (code "invalid") name `shown_path` and say how to fix the call.
struct Replacement {
  std::string text;
  size_t count = 0;
};
Result<Replacement> replace_exact(std::string_view text, std::string_view old_text,
                                  std::string_view new_text, bool replace_all,
                                  std::string_view shown_path);

}  // namespace cordon
