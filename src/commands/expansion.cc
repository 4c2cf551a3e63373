#include "commands/expansion.h"

#include <cctype>
#include <cstdlib>

namespace cordon {

namespace {

struct Brace {
  size_t open = 0, close = 0;
  std::vector<std::string> alternatives;
};

bool parse_int(std::string_view s, long long& out) {
  if (s.empty() || s.size() > 18) return false;
  size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  out = std::strtoll(std::string(s).c_str(), nullptr, 10);
  return true;
}

// `x..y` or `x..y..step`, integers or single letters; false when it is not a sequence or has
// more than `limit` members.
bool sequence(std::string_view body, size_t limit, std::vector<std::string>& out) {
  size_t dots = body.find("..");
  if (dots == std::string_view::npos) return false;
  std::string_view a = body.substr(0, dots), rest = body.substr(dots + 2);
  std::string_view b = rest, step_text;
  if (size_t d2 = rest.find(".."); d2 != std::string_view::npos) {
    b = rest.substr(0, d2);
    step_text = rest.substr(d2 + 2);
  }
  long long x = 0, y = 0, step = 1;
  bool letters = a.size() == 1 && b.size() == 1 && std::isalpha(static_cast<unsigned char>(a[0])) &&
                 std::isalpha(static_cast<unsigned char>(b[0]));
  if (letters) {
    x = a[0];
    y = b[0];
  } else if (!parse_int(a, x) || !parse_int(b, y)) {
    return false;
  }
  if (!step_text.empty() && !parse_int(step_text, step)) return false;
  if (step == 0) step = 1;
  if (step < 0) step = -step;
  unsigned long long span = static_cast<unsigned long long>(x > y ? x - y : y - x);
  if (span / static_cast<unsigned long long>(step) + 1 > limit) {
    out.assign(limit + 1, "");  // too many: the caller sees more than the limit
    return true;
  }
  for (long long v = x;; v += x <= y ? step : -step) {
    if ((x <= y && v > y) || (x > y && v < y)) break;
    out.push_back(letters ? std::string(1, static_cast<char>(v)) : std::to_string(v));
  }
  return true;
}

// The first brace pair that expands: it holds a comma at its own level, or is a sequence.
std::optional<Brace> first_brace(std::string_view w, size_t limit) {
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] != '{') continue;
    int depth = 0;
    std::vector<size_t> commas;
    size_t j = i;
    for (; j < w.size(); ++j) {
      if (w[j] == '{') ++depth;
      if (w[j] == '}' && --depth == 0) break;
      if (w[j] == ',' && depth == 1) commas.push_back(j);
    }
    if (j >= w.size()) return std::nullopt;  // unbalanced: taken literally
    Brace b{i, j, {}};
    if (commas.empty()) {
      if (!sequence(w.substr(i + 1, j - i - 1), limit, b.alternatives)) continue;
      return b;
    }
    size_t from = i + 1;
    for (size_t c : commas) {
      b.alternatives.emplace_back(w.substr(from, c - from));
      from = c + 1;
    }
    b.alternatives.emplace_back(w.substr(from, j - from));
    return b;
  }
  return std::nullopt;
}

bool expand(const std::string& w, size_t limit, int depth, std::vector<std::string>& out) {
  if (depth > 32) return false;
  std::optional<Brace> b = first_brace(w, limit);
  if (!b) {
    out.push_back(w);
    return out.size() <= limit;
  }
  if (b->alternatives.size() > limit) return false;
  const std::string prefix = w.substr(0, b->open), suffix = w.substr(b->close + 1);
  for (const auto& alt : b->alternatives)
    if (!expand(prefix + alt + suffix, limit, depth + 1, out)) return false;
  return true;
}

}  // namespace

std::optional<std::vector<std::string>> brace_expand(std::string_view word, size_t limit) {
  std::vector<std::string> out;
  if (!expand(std::string(word), limit, 0, out)) return std::nullopt;
  return out;
}

}  // namespace cordon
