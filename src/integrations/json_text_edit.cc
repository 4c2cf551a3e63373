#include "integrations/json_text_edit.h"

#include <fmt/format.h>

#include <algorithm>

namespace cordon {

namespace {

using json = nlohmann::json;

// A tolerant reader of JSON text positions: whitespace, // and /* */ comments, trailing commas.
class Scanner {
 public:
  explicit Scanner(std::string_view t) : t_(t) {}

  size_t skip_space(size_t i) const {
    while (i < t_.size()) {
      if (t_[i] == ' ' || t_[i] == '\t' || t_[i] == '\n' || t_[i] == '\r') {
        ++i;
      } else if (t_.substr(i, 2) == "//") {
        size_t e = t_.find('\n', i);
        i = e == std::string_view::npos ? t_.size() : e;
      } else if (t_.substr(i, 2) == "/*") {
        size_t e = t_.find("*/", i + 2);
        i = e == std::string_view::npos ? t_.size() : e + 2;
      } else {
        break;
      }
    }
    return i;
  }

  // The end of the value starting at i (after skip_space); npos when it is not one.
  size_t value_end(size_t i) const {
    if (i >= t_.size()) return npos;
    const char c = t_[i];
    if (c == '"') return string_end(i);
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      size_t j = skip_space(i + 1);
      while (j < t_.size() && t_[j] != close) {
        if (c == '{') {
          size_t k = string_end(j);
          if (k == npos) return npos;
          j = skip_space(k);
          if (j >= t_.size() || t_[j] != ':') return npos;
          j = skip_space(j + 1);
        }
        size_t v = value_end(j);
        if (v == npos) return npos;
        j = skip_space(v);
        if (j < t_.size() && t_[j] == ',')
          j = skip_space(j + 1);
        else if (j >= t_.size() || t_[j] != close)
          return npos;
      }
      return j < t_.size() ? j + 1 : npos;
    }
    size_t j = i;
    while (j < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[j])) || t_[j] == '-' ||
                             t_[j] == '+' || t_[j] == '.'))
      ++j;
    return j == i ? npos : j;
  }

  size_t string_end(size_t i) const {
    if (i >= t_.size() || t_[i] != '"') return npos;
    for (size_t j = i + 1; j < t_.size(); ++j) {
      if (t_[j] == '\\')
        ++j;
      else if (t_[j] == '"')
        return j + 1;
    }
    return npos;
  }

  struct Member {
    std::string key;
    size_t value_begin, value_end;
  };
  // The members of the object at i ('{'), in order; nullopt when it is not well formed.
  std::optional<std::vector<Member>> members(size_t i) const {
    std::vector<Member> out;
    size_t j = skip_space(i + 1);
    while (j < t_.size() && t_[j] != '}') {
      size_t k = string_end(j);
      if (k == npos) return std::nullopt;
      std::string key;
      try {
        key = json::parse(t_.substr(j, k - j)).get<std::string>();
      } catch (const json::exception&) {
        return std::nullopt;
      }
      j = skip_space(k);
      if (j >= t_.size() || t_[j] != ':') return std::nullopt;
      size_t vb = skip_space(j + 1), ve = value_end(vb);
      if (ve == npos) return std::nullopt;
      out.push_back({key, vb, ve});
      j = skip_space(ve);
      if (j < t_.size() && t_[j] == ',') j = skip_space(j + 1);
    }
    if (j >= t_.size()) return std::nullopt;
    return out;
  }

  // The offset just before the closing bracket of the container at i, where a new last item
  // goes (after the last item and its trailing comma, if any), and whether a comma is needed.
  std::pair<size_t, bool> append_point(size_t i) const {
    const size_t end = value_end(i) - 1;  // the closing bracket
    // The last item's end: walk back over whitespace and comments is hard; walk forward.
    size_t j = skip_space(i + 1), last_end = npos;
    bool comma_after = false;
    const bool object = t_[i] == '{';
    while (j < end) {
      if (object) {
        j = skip_space(string_end(j));
        j = skip_space(j + 1);
      }
      last_end = value_end(j);
      j = skip_space(last_end);
      comma_after = j < end && t_[j] == ',';
      if (comma_after) {
        last_end = j + 1;
        j = skip_space(j + 1);
      }
    }
    if (last_end == npos) return {i + 1, false};
    return {last_end, !comma_after};
  }

  // The indentation of the line that holds offset i.
  std::string indent_at(size_t i) const {
    size_t line = t_.rfind('\n', i == 0 ? 0 : i - 1);
    line = line == std::string_view::npos ? 0 : line + 1;
    size_t e = line;
    while (e < t_.size() && (t_[e] == ' ' || t_[e] == '\t')) ++e;
    return std::string(t_.substr(line, e - line));
  }

  std::string_view text() const { return t_; }
  static constexpr size_t npos = std::string_view::npos;

 private:
  std::string_view t_;
};

// `value` as JSON text laid out under `indent`.
std::string render(const json& value, const std::string& indent) {
  std::string s = value.dump(2);
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}

// The insertion of member `key: value` (or array item `value` when key is null) into the
// container at i.
Insertion insert_into(const Scanner& sc, size_t i, const std::optional<std::string>& key,
                      const json& value) {
  const std::string outer = sc.indent_at(i);
  std::string inner = outer + "  ";
  auto [at, comma] = sc.append_point(i);
  const bool empty = at == i + 1;
  if (!empty) inner = sc.indent_at(at - 1);  // the last item's own indentation
  const std::string item = (key ? json(*key).dump() + ": " : std::string()) + render(value, inner);
  if (empty) {
    // `{}` becomes a block; the text after the bracket (a newline, comments) stays.
    return {at, "\n" + inner + item + "\n" + outer};
  }
  return {at, (comma ? "," : "") + std::string("\n") + inner + item};
}

// Walks `keys` from the top-level object; the deepest existing object's offset and how many
// keys were found, or a problem.
struct Walk {
  size_t object = 0;
  size_t found = 0;
  std::optional<size_t> value_begin;  // the full path exists: its value's offset
  std::string problem;
};

Walk walk(const Scanner& sc, const std::vector<std::string>& keys) {
  Walk w;
  size_t top = sc.skip_space(0);
  if (top >= sc.text().size() || sc.text()[top] != '{' || sc.value_end(top) == Scanner::npos) {
    w.problem = "the file is not a JSON object (with comments allowed)";
    return w;
  }
  w.object = top;
  for (size_t k = 0; k < keys.size(); ++k) {
    auto ms = sc.members(w.object);
    if (!ms) {
      w.problem = "the file is not well-formed JSON";
      return w;
    }
    auto it = std::find_if(ms->begin(), ms->end(), [&](const auto& m) { return m.key == keys[k]; });
    if (it == ms->end()) return w;
    w.found = k + 1;
    if (k + 1 == keys.size()) {
      w.value_begin = it->value_begin;
      return w;
    }
    if (sc.text()[it->value_begin] != '{') {
      std::string path;
      for (size_t p = 0; p <= k; ++p) path += (p ? "." : "") + keys[p];
      w.problem = fmt::format("`{}` is there and is not an object", path);
      return w;
    }
    w.object = it->value_begin;
  }
  return w;
}

json nest(const std::vector<std::string>& keys, size_t from, const json& value) {
  json v = value;
  for (size_t k = keys.size(); k-- > from + 1;) v = json{{keys[k], v}};
  return v;
}

std::string dotted(const std::vector<std::string>& keys) {
  std::string s;
  for (const auto& k : keys) s += (s.empty() ? "" : ".") + k;
  return s;
}

}  // namespace

TextEdit json_add_member(std::string_view text, const std::vector<std::string>& keys,
                         const json& value, const std::function<bool(const json&)>& same) {
  const std::string doc = text.find_first_not_of(" \t\r\n") == std::string_view::npos
                              ? std::string("{}\n")
                              : std::string(text);
  const bool was_empty = doc.size() != text.size() || doc != text;
  Scanner sc(doc);
  Walk w = walk(sc, keys);
  if (!w.problem.empty()) return {{}, w.problem};
  if (w.value_begin) {
    json existing;
    try {
      existing =
          json::parse(doc.substr(*w.value_begin, sc.value_end(*w.value_begin) - *w.value_begin),
                      nullptr, true, /*ignore_comments=*/true);
    } catch (const json::exception&) {
    }
    if (existing == value || (same && same(existing))) return {};
    return {{},
            fmt::format("`{}` is there already with another value; cordon leaves it as it is",
                        dotted(keys))};
  }
  Insertion ins = insert_into(sc, w.object, keys[w.found], nest(keys, w.found, value));
  if (was_empty) return {{Insertion{0, apply_insertions(doc, {ins})}}, ""};
  return {{ins}, ""};
}

TextEdit json_add_to_array(std::string_view text, const std::vector<std::string>& keys,
                           const std::string& item) {
  const std::string doc = text.find_first_not_of(" \t\r\n") == std::string_view::npos
                              ? std::string("{}\n")
                              : std::string(text);
  const bool was_empty = doc != text;
  Scanner sc(doc);
  Walk w = walk(sc, keys);
  if (!w.problem.empty()) return {{}, w.problem};
  Insertion ins;
  if (!w.value_begin) {
    ins = insert_into(sc, w.object, keys[w.found], nest(keys, w.found, json::array({item})));
  } else {
    const size_t a = *w.value_begin;
    if (doc[a] != '[') return {{}, fmt::format("`{}` is there and is not a list", dotted(keys))};
    size_t j = sc.skip_space(a + 1);
    while (doc[j] != ']') {
      size_t e = sc.value_end(j);
      try {
        if (json::parse(doc.substr(j, e - j)) == json(item)) return {};
      } catch (const json::exception&) {
      }
      j = sc.skip_space(e);
      if (doc[j] == ',') j = sc.skip_space(j + 1);
    }
    ins = insert_into(sc, a, std::nullopt, json(item));
  }
  if (was_empty) return {{Insertion{0, apply_insertions(doc, {ins})}}, ""};
  return {{ins}, ""};
}

std::string apply_insertions(std::string_view text, std::vector<Insertion> insertions) {
  std::stable_sort(insertions.begin(), insertions.end(),
                   [](const Insertion& a, const Insertion& b) { return a.offset < b.offset; });
  std::string out;
  size_t at = 0;
  for (const auto& ins : insertions) {
    out.append(text.substr(at, ins.offset - at));
    out += ins.text;
    at = ins.offset;
  }
  out.append(text.substr(at));
  return out;
}

size_t line_of(std::string_view text, size_t offset) {
  return 1 + static_cast<size_t>(
                 std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

}  // namespace cordon
