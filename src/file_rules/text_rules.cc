#include "file_rules/text_rules.h"

#include <fmt/format.h>

#include <cstring>

namespace cordon {

namespace {

// Length of the valid UTF-8 sequence at `p` (n bytes available), or 0 when it is not one.
size_t utf8_seq_len(const unsigned char* p, size_t n) {
  unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (n < len) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < len; ++i)
    if ((p[i] & 0xC0) != 0x80) return 0;
  return len;
}

}  // namespace

bool looks_binary(std::string_view data) {
  return std::memchr(data.data(), '\0', data.size()) != nullptr;
}

size_t make_valid_utf8(std::string& text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size();
  size_t i = 0;
  // Fast path: most files are valid; copy nothing until the first bad byte.
  while (i < n) {
    size_t l = utf8_seq_len(p + i, n - i);
    if (l == 0) break;
    i += l;
  }
  if (i == n) return 0;
  std::string out;
  out.reserve(n + 16);
  out.append(text, 0, i);
  size_t replaced = 0;
  while (i < n) {
    size_t l = utf8_seq_len(p + i, n - i);
    if (l == 0) {
      out += "\xEF\xBF\xBD";
      ++replaced;
      ++i;
      // Skip the continuation bytes that belonged to the broken sequence.
      while (i < n && (p[i] & 0xC0) == 0x80) ++i;
      continue;
    }
    out.append(text, i, l);
    i += l;
  }
  text = std::move(out);
  return replaced;
}

std::string_view utf8_prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  // Step back over continuation bytes to the start of the sequence that would be cut.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

size_t count_lines(std::string_view text) {
  if (text.empty()) return 0;
  size_t n = 0;
  for (char c : text)
    if (c == '\n') ++n;
  if (text.back() != '\n') ++n;
  return n;
}

LineSlice slice_lines(std::string_view text, size_t first_line, std::optional<size_t> limit) {
  LineSlice s;
  if (first_line == 0) first_line = 1;
  s.first_line = first_line;
  s.total_lines = count_lines(text);
  if (first_line > s.total_lines) {
    s.text = text.substr(text.size());
    return s;
  }
  size_t pos = 0;
  for (size_t line = 1; line < first_line; ++line) pos = text.find('\n', pos) + 1;
  size_t end = pos;
  size_t want = limit ? *limit : s.total_lines;
  while (s.line_count < want && end < text.size()) {
    size_t nl = text.find('\n', end);
    end = nl == std::string_view::npos ? text.size() : nl + 1;
    ++s.line_count;
  }
  s.text = text.substr(pos, end - pos);
  s.more = first_line + s.line_count - 1 < s.total_lines;
  return s;
}

size_t count_occurrences(std::string_view text, std::string_view needle) {
  if (needle.empty()) return 0;
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string_view::npos;
       pos = text.find(needle, pos + needle.size()))
    ++n;
  return n;
}

Result<Replacement> replace_exact(std::string_view text, std::string_view old_text,
                                  std::string_view new_text, bool replace_all,
                                  std::string_view shown_path) {
  if (old_text.empty())
    return make_error(ErrorKind::kInvalid,
                      fmt::format("edit_file: old_string is empty; to write {} whole, use "
                                  "write_file",
                                  shown_path),
                      std::string(shown_path));
  if (old_text == new_text)
    return make_error(ErrorKind::kInvalid,
                      fmt::format("edit_file: old_string and new_string are the same, so the "
                                  "edit would change nothing in {}",
                                  shown_path),
                      std::string(shown_path));
  size_t n = count_occurrences(text, old_text);
  if (n == 0)
    return make_error(ErrorKind::kInvalid,
                      fmt::format("edit_file: old_string was not found in {}; it must match the "
                                  "file exactly, spaces, tabs and line ends included (read the "
                                  "file again and copy the text)",
                                  shown_path),
                      std::string(shown_path));
  if (n > 1 && !replace_all)
    return make_error(ErrorKind::kInvalid,
                      fmt::format("edit_file: old_string occurs {} times in {}; give more "
                                  "surrounding text so that it matches once, or set "
                                  "replace_all to change every one",
                                  n, shown_path),
                      std::string(shown_path));
  Replacement r;
  r.count = n;
  r.text.reserve(text.size() + n * new_text.size());
  size_t pos = 0;
  for (size_t hit = text.find(old_text); hit != std::string_view::npos;
       hit = text.find(old_text, pos)) {
    r.text.append(text.substr(pos, hit - pos));
    r.text.append(new_text);
    pos = hit + old_text.size();
  }
  r.text.append(text.substr(pos));
  return r;
}

}  // namespace cordon
