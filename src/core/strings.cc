#include "core/strings.h"

#include <cctype>
#include <cstdint>

namespace cordon {

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string to_upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

bool glob_match(std::string_view p, std::string_view t) {
  // Iterative matcher with single backtrack point: linear in practice, no recursion.
  size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi;
      ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

std::string shell_quote(std::string_view w) {
  if (w.empty()) return "''";
  bool plain = true;
  for (unsigned char c : w) {
    if (!(std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ':' ||
          c == '=' || c == ',' || c == '@' || c == '%')) {
      plain = false;
      break;
    }
  }
  if (plain) return std::string(w);
  std::string out = "'";
  for (char c : w) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += "'";
  return out;
}

std::string shell_join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += shell_quote(w);
  }
  return out;
}

namespace {
// Length of the UTF-8 sequence at `i`, or 0 when it is not a valid one (overlong forms and
// surrogates included).
size_t utf8_length(std::string_view s, size_t i, uint32_t& cp) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  cp = c & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

bool unsafe_code_point(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) ||      // C1 controls (CSI as 0x9b, ...)
         (cp >= 0x202a && cp <= 0x202e) ||  // bidirectional embeddings and overrides
         (cp >= 0x2066 && cp <= 0x2069) ||  // bidirectional isolates
         cp == 0x2028 || cp == 0x2029;      // line and paragraph separators
}

void hex_escape(std::string& out, std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  for (unsigned char c : bytes) {
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 15];
  }
}
}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f)
        hex_escape(out, s.substr(i, 1));
      else
        out += static_cast<char>(c);
      ++i;
      continue;
    }
    uint32_t cp = 0;
    size_t n = utf8_length(s, i, cp);
    if (n == 0) {
      hex_escape(out, s.substr(i, 1));
      ++i;
    } else {
      if (unsafe_code_point(cp))
        hex_escape(out, s.substr(i, n));
      else
        out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string hex(const unsigned char* data, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 15];
  }
  return out;
}

std::string plural(size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string join_sentence(const std::vector<std::string>& items) {
  if (items.empty()) return "";
  if (items.size() == 1) return items[0];
  std::string out;
  for (size_t i = 0; i + 1 < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out + " and " + items.back();
}

}  // namespace cordon

namespace cordon {
std::string_view trim_view(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\n' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\n' || s[e - 1] == '\r'))
    --e;
  return s.substr(b, e - b);
}
std::string trim(std::string_view s) { return std::string(trim_view(s)); }
bool is_one_of(std::string_view a, std::initializer_list<std::string_view> set) {
  for (auto s : set)
    if (a == s) return true;
  return false;
}

}  // namespace cordon
