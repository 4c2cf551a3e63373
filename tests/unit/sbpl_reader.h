// A reader and a model evaluator for Seatbelt profiles, so tests can check what a profile
// says rather than how it is spelled. Test-only.
//
// The reader follows TinyScheme's (libsandbox's Scheme): `;` comments to the end of the line;
// "..." strings where `\` escapes n t r " (hex \xHH and octal \ooo in the versions that have
// them) and stands for the next character otherwise; #"..." literals taken as they are;
// parentheses; atoms. Every string escape of the supersets is honoured, so a string that
// reads back right here reads back right in any of those versions.
//
// The evaluator models Seatbelt's decision for one operation on one path, as the renderer's
// comment states it: the last matching rule with a path filter decides; failing that, the last
// matching rule without filters; failing that, `(deny default)`. `op*` names every operation
// that starts with `op`. Filters other than literal, subpath, regex, require-all/any/not never
// match a path (an (extension ...) is not held).
#pragma once

#include <cctype>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace cordon::testing {

struct Sexp {
  enum Kind { kList, kAtom, kString } kind = kAtom;
  std::string text;  // atom or string contents
  std::vector<Sexp> items;

  bool is_atom(std::string_view s) const { return kind == kAtom && text == s; }
  std::string head() const {
    return kind == kList && !items.empty() && items[0].kind == kAtom ? items[0].text : "";
  }
};

struct SbplRead {
  std::vector<Sexp> forms;
  std::string error;  // empty when the whole text read as balanced forms
};

inline SbplRead read_sbpl(std::string_view t) {
  SbplRead out;
  std::vector<Sexp> stack(1);
  stack[0].kind = Sexp::kList;
  size_t i = 0;
  auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  auto hexval = [](char c) {
    return c <= '9' ? c - '0' : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
  };
  while (i < t.size()) {
    char c = t[i];
    if (c == ';') {
      while (i < t.size() && t[i] != '\n') ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '(') {
      stack.emplace_back();
      stack.back().kind = Sexp::kList;
      ++i;
    } else if (c == ')') {
      if (stack.size() == 1) {
        out.error = "unbalanced ) at " + std::to_string(i);
        return out;
      }
      Sexp done = std::move(stack.back());
      stack.pop_back();
      stack.back().items.push_back(std::move(done));
      ++i;
    } else if (c == '"' || (c == '#' && i + 1 < t.size() && t[i + 1] == '"')) {
      bool raw = c == '#';
      i += raw ? 2 : 1;
      Sexp s;
      s.kind = Sexp::kString;
      bool closed = false;
      while (i < t.size()) {
        char d = t[i++];
        if (d == '"') {
          closed = true;
          break;
        }
        if (d != '\\' || raw) {
          s.text += d;
          continue;
        }
        if (i >= t.size()) break;
        char e = t[i++];
        if (e == 'n') {
          s.text += '\n';
        } else if (e == 't') {
          s.text += '\t';
        } else if (e == 'r') {
          s.text += '\r';
        } else if (e == 'x' || e == 'X') {
          int v = 0, n = 0;
          while (n < 2 && i < t.size() && hex(t[i])) v = v * 16 + hexval(t[i++]), ++n;
          s.text += static_cast<char>(v);
        } else if (e >= '0' && e <= '7') {
          int v = e - '0', n = 1;
          while (n < 3 && i < t.size() && t[i] >= '0' && t[i] <= '7')
            v = v * 8 + (t[i++] - '0'), ++n;
          s.text += static_cast<char>(v);
        } else {
          s.text += e;
        }
      }
      if (!closed) {
        out.error = "unterminated string";
        return out;
      }
      stack.back().items.push_back(std::move(s));
    } else {
      Sexp a;
      while (i < t.size() && !std::isspace(static_cast<unsigned char>(t[i])) && t[i] != '(' &&
             t[i] != ')' && t[i] != ';' && t[i] != '"')
        a.text += t[i++];
      stack.back().items.push_back(std::move(a));
    }
  }
  if (stack.size() != 1) {
    out.error = "unbalanced: " + std::to_string(stack.size() - 1) + " ( left open";
    return out;
  }
  out.forms = std::move(stack[0].items);
  return out;
}

inline bool op_matches(std::string_view rule_op, std::string_view op) {
  if (!rule_op.empty() && rule_op.back() == '*')
    return op.substr(0, rule_op.size() - 1) == rule_op.substr(0, rule_op.size() - 1);
  return rule_op == op;
}

inline bool filter_matches(const Sexp& f, const std::string& path) {
  std::string h = f.head();
  auto arg = [&]() -> std::string {
    return f.items.size() > 1 && f.items[1].kind == Sexp::kString ? f.items[1].text : "";
  };
  if (h == "literal") return path == arg();
  if (h == "subpath") {
    std::string s = arg();
    return path == s || path.rfind(s + "/", 0) == 0;
  }
  if (h == "regex") return std::regex_search(path, std::regex(arg(), std::regex::extended));
  if (h == "require-all" || h == "require-any") {
    bool all = h == "require-all";
    for (size_t k = 1; k < f.items.size(); ++k)
      if (filter_matches(f.items[k], path) != all) return !all;
    return all;
  }
  if (h == "require-not") return f.items.size() > 1 && !filter_matches(f.items[1], path);
  // (remote ip "*:*"), (local ip "*:*"): any address; a "path" not starting with `/` is one.
  if ((h == "remote" || h == "local") && f.items.size() == 3 && f.items[1].is_atom("ip") &&
      f.items[2].text == "*:*")
    return !path.empty() && path[0] != '/';
  return false;
}

enum class Verdict { kAllow, kDeny };

// What the profile decides for `op` ("file-write-data", "file-read-data", "process-exec",
// "file-write-unlink", "network-outbound") on `path`.
inline Verdict evaluate(const std::vector<Sexp>& forms, std::string_view op,
                        const std::string& path) {
  Verdict fallback = Verdict::kAllow;
  std::optional<Verdict> filtered, unfiltered;
  for (const auto& f : forms) {
    std::string action = f.head();
    if (action != "allow" && action != "deny") continue;
    Verdict v = action == "allow" ? Verdict::kAllow : Verdict::kDeny;
    if (f.items.size() == 2 && f.items[1].is_atom("default")) {
      fallback = v;
      continue;
    }
    bool op_hit = false;
    std::vector<const Sexp*> filters;
    for (size_t k = 1; k < f.items.size(); ++k) {
      const Sexp& it = f.items[k];
      if (it.kind == Sexp::kAtom && op_matches(it.text, op)) op_hit = true;
      if (it.kind == Sexp::kList && it.head() != "with") filters.push_back(&it);
    }
    if (!op_hit) continue;
    if (filters.empty()) {
      unfiltered = v;
      continue;
    }
    for (const Sexp* flt : filters)
      if (filter_matches(*flt, path)) {
        filtered = v;
        break;
      }
  }
  if (filtered) return *filtered;
  if (unfiltered) return *unfiltered;
  return fallback;
}

}  // namespace cordon::testing
