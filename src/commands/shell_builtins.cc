#include "commands/shell_builtins.h"

#include <fmt/format.h>

#include <initializer_list>

#include "core/strings.h"

namespace cordon {

namespace {


bool dynamic(const ShellWord& w) { return w.has_expansion || w.has_brace || w.risky_expansion; }

// --- test, [ -------------------------------------------------------------------------------

bool unary_operator(std::string_view w) {
  return w.size() == 2 && w[0] == '-' &&
         std::string_view("abcdefghkprstuwxGLNOSzno").find(w[1]) != std::string_view::npos;
}
bool binary_operator(std::string_view w) {
  return is_one_of(w, {"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt",
                       "-ot", "-ef", "-a", "-o"});
}

// `test -v NAME` evaluates NAME's subscript, which runs code (`-v 'a[$(id)]'`); a word only
// known at run time could become that `-v` or the name after it, unless it sits where no
// operator can be: right after a unary or binary operator, right before a binary one, or alone.
std::optional<BuiltinProblem> test_problem(std::span<const ShellWord> words, bool bracket) {
  size_t end = words.size();
  if (bracket && end > 1 && words[end - 1].text == "]" && !dynamic(words[end - 1])) --end;
  for (size_t i = 1; i < end; ++i) {
    const ShellWord& w = words[i];
    if (!dynamic(w)) {
      if (w.text == "-v" || w.text == "-R")
        return BuiltinProblem{w.text, "evaluates array subscripts, which can run commands",
                              "write-option"};
      continue;
    }
    if (w.unquoted_expansion)
      return BuiltinProblem{w.text,
                            "is only known at run time and could split into an operator and a "
                            "name (`-v 'a[$(cmd)]'` runs cmd)",
                            "expansion"};
    const bool alone = end == 2;
    const bool after = i > 1 && !dynamic(words[i - 1]) &&
                       (unary_operator(words[i - 1].text) || binary_operator(words[i - 1].text));
    const bool before = i + 1 < end && !dynamic(words[i + 1]) && binary_operator(words[i + 1].text);
    if (!alone && !after && !before)
      return BuiltinProblem{w.text,
                            "is only known at run time where an operator could stand (`-v` "
                            "evaluates array subscripts, which can run commands)",
                            "expansion"};
  }
  return std::nullopt;
}

// --- set ------------------------------------------------------------------------------------

std::optional<BuiltinProblem> set_problem(std::span<const ShellWord> words) {
  static const std::initializer_list<std::string_view> kNames = {
      "errexit",    "errtrace",  "functrace", "hashall",
      "histexpand", "history",   "ignoreeof", "interactive-comments",
      "monitor",    "noclobber", "noexec",    "noglob",
      "nolog",      "notify",    "nounset",   "onecmd",
      "physical",   "pipefail",  "posix",     "privileged",
      "verbose",    "vi",        "emacs",     "xtrace",
      "braceexpand"};
  auto exports = [](std::string_view w) {
    return BuiltinProblem{std::string(w),
                          "exports every variable set after it (allexport), so a later "
                          "assignment changes what programs run or read",
                          "environment"};
  };
  auto keyword = [](std::string_view w) {
    return BuiltinProblem{std::string(w), "lets later words set the environment (keyword)",
                          "environment"};
  };
  for (size_t i = 1; i < words.size(); ++i) {
    const ShellWord& w = words[i];
    if (dynamic(w))
      return BuiltinProblem{w.text, "is only known at run time and could become -a or -k",
                            "expansion"};
    const std::string& t = w.text;
    if (t == "--" || t == "-") return std::nullopt;  // the rest are positional parameters
    if (t.size() < 2 || (t[0] != '-' && t[0] != '+')) return std::nullopt;
    for (size_t k = 1; k < t.size(); ++k) {
      const char c = t[k];
      if (c == 'a' && t[0] == '-') return exports(t);
      if (c == 'k' && t[0] == '-') return keyword(t);
      if (c == 'o') {
        if (i + 1 >= words.size()) return std::nullopt;  // prints the options
        const ShellWord& n = words[++i];
        if (dynamic(n))
          return BuiltinProblem{n.text, "names a shell option only known at run time", "expansion"};
        if (n.text == "allexport" && t[0] == '-') return exports(n.text);
        if (n.text == "keyword" && t[0] == '-') return keyword(n.text);
        if (!is_one_of(n.text, kNames) && n.text != "allexport" && n.text != "keyword")
          return BuiltinProblem{n.text, "is not a shell option known to be harmless",
                                "unknown-option"};
        continue;
      }
      if (std::string_view("eEuxvfnCTbmhHBPpak").find(c) == std::string_view::npos)
        return BuiltinProblem{t,
                              fmt::format("holds -{}, which is not a shell option known to "
                                          "be harmless",
                                          c),
                              "unknown-option"};
    }
  }
  return std::nullopt;
}

// --- export, declare, typeset, local, readonly ----------------------------------------------

std::optional<BuiltinProblem> declare_problem(std::string_view program,
                                              std::span<const ShellWord> words) {
  bool exported = program == "export";
  bool options = true;
  for (size_t i = 1; i < words.size(); ++i) {
    const ShellWord& w = words[i];
    const std::string& t = w.text;
    if (options && !dynamic(w) && t == "--") {
      options = false;
      continue;
    }
    if (options && !dynamic(w) && t.size() > 1 && (t[0] == '-' || t[0] == '+')) {
      for (size_t k = 1; k < t.size(); ++k) {
        const char c = t[k];
        if (c == 'x' && t[0] == '-') exported = true;
        if (c == 'n')
          return BuiltinProblem{t,
                                "makes a name refer to another variable (a nameref), which "
                                "can set any variable",
                                "environment"};
        if (c == 'i')
          return BuiltinProblem{t, "evaluates the value as arithmetic, which can run commands",
                                "write-option"};
        if (c == 'f' || c == 'F')
          return BuiltinProblem{t, "works on shell functions, which run code", "write-option"};
        if (std::string_view("pxrglutaAI").find(c) == std::string_view::npos)
          return BuiltinProblem{t,
                                fmt::format("holds -{}, which is not an option known to be "
                                            "harmless",
                                            c),
                                "unknown-option"};
      }
      continue;
    }
    options = false;
    const size_t eq = t.find('=');
    const std::string name = t.substr(0, eq);
    // The name must be written out: `export "$x"=1` or `declare $v` name no known variable.
    if (dynamic(w) && (eq == std::string::npos || w.plain_prefix < eq + 1))
      return BuiltinProblem{t, "names a variable only known at run time", "expansion"};
    std::string bare = name;
    if (!bare.empty() && bare.back() == '+') bare.pop_back();
    const std::string value = eq == std::string::npos ? "" : t.substr(eq + 1);
    const bool ok = exported ? harmless_environment(bare, value) : harmless_variable(bare, value);
    if (!ok)
      return BuiltinProblem{t,
                            fmt::format("{} {}, which can change what later commands run or read",
                                        exported ? "exports" : "sets", bare),
                            "environment"};
  }
  return std::nullopt;
}

}  // namespace

bool is_judged_builtin(std::string_view p) {
  return is_one_of(p, {"test", "[", "set", "export", "declare", "typeset", "local", "readonly"});
}

std::optional<BuiltinProblem> shell_builtin_problem(std::string_view program,
                                                    std::span<const ShellWord> words) {
  if (program == "test" || program == "[") return test_problem(words, program == "[");
  if (program == "set") return set_problem(words);
  return declare_problem(program, words);
}

std::vector<std::pair<std::string, std::string>> assigning_expansions(std::string_view t) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t at = t.find("${"); at != std::string_view::npos; at = t.find("${", at + 2)) {
    size_t i = at + 2;
    size_t start = i;
    while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
    if (i == start) continue;
    std::string name(t.substr(start, i - start));
    if (i < t.size() && t[i] == '[') {  // a subscript
      size_t close = t.find(']', i);
      if (close == std::string_view::npos) continue;
      i = close + 1;
    }
    if (i < t.size() && t[i] == ':') ++i;
    if (i < t.size() && t[i] == '=') {
      size_t close = t.find('}', i);
      std::string value(t.substr(i + 1, close == std::string_view::npos ? std::string_view::npos
                                                                          : close - i - 1));
      out.emplace_back(std::move(name), std::move(value));
    }
  }
  return out;
}

bool harmless_environment(std::string_view name, std::string_view value) {
  if (starts_with(name, "LC_")) return true;
  static const char* const kNames[] = {"LANG",
                                       "LANGUAGE",
                                       "TZ",
                                       "NO_COLOR",
                                       "FORCE_COLOR",
                                       "CLICOLOR",
                                       "CLICOLOR_FORCE",
                                       "COLUMNS",
                                       "LINES",
                                       "TERM",
                                       "COLORTERM",
                                       "GREP_COLOR",
                                       "GREP_COLORS",
                                       "LS_COLORS",
                                       "TIME_STYLE",
                                       "QUOTING_STYLE",
                                       "POSIXLY_CORRECT",
                                       "GIT_OPTIONAL_LOCKS",
                                       "GIT_TERMINAL_PROMPT"};
  for (const char* k : kNames)
    if (name == k) return true;
  return (name == "PAGER" || name == "GIT_PAGER" || name == "SYSTEMD_PAGER") &&
         (value.empty() || value == "cat");
}

bool harmless_variable(std::string_view name, std::string_view value) {
  if (harmless_environment(name, value)) return true;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  static const char* const kTied[] = {"path",     "cdpath", "fpath",     "manpath", "module_path",
                                      "mailpath", "psvar",  "histchars", "fignore", "prompt"};
  for (const char* k : kTied)
    if (name == k) return false;
  return !name.empty();
}

}  // namespace cordon
