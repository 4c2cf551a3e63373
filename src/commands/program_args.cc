#include "commands/program_args.h"

#include <fmt/format.h>

#include <cctype>

#include "commands/script_checks.h"
#include "core/strings.h"

namespace cordon {

namespace {

bool is_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::string shown(std::string_view w) { return "`" + std::string(w) + "`"; }

class Matcher {
 public:
  Matcher(const ProgramSpec& s, const ProgramSpec* parent, const ArgContext& ctx)
      : s_(s), parent_(parent), ctx_(ctx) {}

  std::optional<ArgProblem> run(const std::vector<ArgWord>& in) {
    std::vector<ArgWord> args = in;
    if (s_.at_files)
      for (const auto& a : args)
        if (a.text.size() > 1 && a.text[0] == '@') {
          fail(
              a.text,
              "reads more arguments (file names, options) from a file, which cannot be checked",  // CMD-3
              "write-option");
          return problem_;
        }
    if (s_.parser == ParserStyle::kTar && !args.empty()) {
      if (!unbundle_tar(args)) return problem_;
    }
    if (s_.parser == ParserStyle::kFind) {
      find_walk(args);
    } else {
      walk(args);
    }
    if (problem_) return problem_;
    finish();
    return problem_;
  }

  // The global options before a subcommand: stops at the first word that is not one.
  std::optional<ArgProblem> prefix(const std::vector<ArgWord>& args, size_t& end) {
    size_t i = 0;
    while (i < args.size() && !problem_) {
      const std::string& t = args[i].text;
      if (t.size() < 2 || t[0] != '-' || t == "--") break;
      std::string name = t.substr(0, t.find('='));
      const OptionSpec* o = s_.find(t.compare(0, 2, "--") == 0 ? name : t.substr(0, 2));
      if (!o || !o->global) break;
      i = one_word(args, i);
    }
    end = i;
    return problem_;
  }

 private:
  void fail(const std::string& word, std::string why, const char* rule) {
    if (!problem_) problem_ = ArgProblem{word, std::move(why), rule};
  }

  const OptionSpec* lookup(std::string_view name, bool* ambiguous) const {
    const OptionSpec* o = s_.find(name, ambiguous);
    if (!o && parent_ && s_.inherit) {
      bool amb = false;
      o = parent_->find(name, &amb);
      if (o && !o->global) o = nullptr;
      if (ambiguous && amb) *ambiguous = true;
    }
    return o;
  }

  // `word` used option `o` with `value` (if it takes one).
  void use(const OptionSpec& o, const std::string& word, const std::string& as,
           const std::optional<std::string>& value) {
    used_.push_back(&o);
    const bool same = word == as;
    auto about = [&](const std::string& what) {
      return same ? what
                  : fmt::format("{} {}, which {}", word.rfind("--", 0) == 0 ? "is" : "holds",
                                o.display(), what);
    };
    if (o.verdict == OptionVerdict::kRefused) {
      fail(word, about(o.why), "write-option");
      return;
    }
    if (o.verdict == OptionVerdict::kSandboxOnly && ctx_.unconfined) {
      fail(word, about(o.why + ", and commands run without a sandbox here"), "sensitive-path");
      return;
    }
    if (value && o.arg != ArgKind::kNone) {
      given_kinds_.push_back(o.arg);
      std::string bad = check_arg_value(o.arg, *value, o.choices);
      if (!bad.empty()) fail(value->empty() ? word : *value, bad, "write-option");
    }
  }

  void unknown(const std::string& word, bool ambiguous, std::string_view name = {}) {
    if (ambiguous) {
      std::vector<std::string> c;
      for (const auto& o : s_.options)
        for (const auto& n : o.names)
          if (starts_with(n, name) && starts_with(n, "--")) c.push_back(n);
      fail(word,
           fmt::format("is an ambiguous abbreviation ({}), so it is not known to only read",
                       join(c, ", ")),
           "unknown-option");
      return;
    }
    fail(word, fmt::format("is not an option of {} known to only read", shown(s_.display_name())),
         "unknown-option");
  }

  // Reads the option at args[i] (and its value); returns the index after it.
  size_t one_word(const std::vector<ArgWord>& args, size_t i) {
    const std::string& t = args[i].text;
    const bool dash2 = t.size() > 2 && t[0] == '-' && t[1] == '-';
    const size_t eq = t.find('=');
    auto next_value = [&](const OptionSpec& o, size_t& j) -> std::optional<std::string> {
      if (o.arg == ArgKind::kNone || o.arg_optional) return std::nullopt;
      if (j + 1 < args.size()) return args[++j].text;
      return std::string();
    };
    if (s_.parser == ParserStyle::kSingleDash || s_.parser == ParserStyle::kFind ||
        s_.parser == ParserStyle::kWhole || dash2) {
      std::string name = t.substr(0, eq);
      if (s_.parser == ParserStyle::kSingleDash && dash2) name = name.substr(1);
      bool amb = false;
      const OptionSpec* o = lookup(name, &amb);
      if (!o) {
        unknown(t, amb, name);
        return i + 1;
      }
      size_t j = i;
      std::optional<std::string> value;
      if (eq != std::string::npos && lookup(name, nullptr) == o) {
        if (o->arg == ArgKind::kNone) {
          fail(t, fmt::format("gives a value to {}, which takes none", o->display()),
               "unknown-option");
          return i + 1;
        }
        value = t.substr(eq + 1);
      } else {
        value = next_value(*o, j);
      }
      use(*o, t, t.substr(0, eq), value);
      return j + 1;
    }
    // A cluster of short options: -rn, -n5, -uo out.
    const std::string body = t.substr(1);
    if (is_digits(body)) {
      if (const OptionSpec* o = lookup("-NUM", nullptr)) {
        use(*o, t, t, std::nullopt);
        return i + 1;
      }
    }
    size_t j = i;
    for (size_t k = 1; k < t.size(); ++k) {
      std::string name = std::string("-") + t[k];
      const OptionSpec* o = lookup(name, nullptr);
      if (!o) {
        fail(
            t,
            t.size() == 2
                ? fmt::format("is not an option of {} known to only read", shown(s_.display_name()))
                : fmt::format("holds {}, which is not an option of {} known to only read", name,
                              shown(s_.display_name())),
            "unknown-option");
        return i + 1;
      }
      if (o->arg == ArgKind::kNone) {
        use(*o, t, name, std::nullopt);
        continue;
      }
      std::optional<std::string> value;
      if (k + 1 < t.size())
        value = t.substr(k + 1);
      else
        value = next_value(*o, j);
      use(*o, t, name, value);
      break;
    }
    return j + 1;
  }

  // The words as getopt_long reads them: options anywhere (the arguments are permuted) until
  // `--`. POSIXLY_CORRECT (or a parser that stops at the first operand) reads every word after
  // the first operand as an operand: those words are kept to check the operand count both ways.
  void walk(const std::vector<ArgWord>& args) {
    bool only_operands = false;
    for (size_t i = 0; i < args.size() && !problem_;) {
      const ArgWord& a = args[i];
      const std::string& t = a.text;
      if (!only_operands && a.may_be_option && !s_.runtime_words) {
        fail(t,
             "is only known at run time and could become an option nobody checked (a file "
             "name or value starting with `-`)",
             "expansion");
        return;
      }
      if (only_operands || t == "-" || t.empty() || t[0] != '-') {
        if (!only_operands && s_.parser == ParserStyle::kPs && !is_pid_list(t)) {
          i = bsd_cluster(args, i);
          continue;
        }
        operands_.push_back(&a);
        if (s_.stops_at_operand) only_operands = true;
        ++i;
        continue;
      }
      if (t == "--") {
        only_operands = true;
        ++i;
        continue;
      }
      if (!operands_.empty()) posix_extra_.push_back(&a);
      i = one_word(args, i);
    }
  }

  static bool is_pid_list(const std::string& t) {
    if (t.empty()) return false;
    for (char c : t)
      if (!((c >= '0' && c <= '9') || c == ',')) return false;
    return true;
  }

  // ps: `aux`, `axo pid,comm`, `e`: BSD options without a dash.
  size_t bsd_cluster(const std::vector<ArgWord>& args, size_t i) {
    const std::string& t = args[i].text;
    size_t j = i;
    for (size_t k = 0; k < t.size(); ++k) {
      std::string name = std::string("~") + t[k];
      const OptionSpec* o = lookup(name, nullptr);
      if (!o) {
        fail(t,
             fmt::format("holds {}, which is not an option of `ps` known to only read",
                         std::string(1, t[k])),
             "unknown-option");
        return i + 1;
      }
      if (o->arg == ArgKind::kNone) {
        use(*o, t, t.size() == 1 ? t : name, std::nullopt);
        continue;
      }
      std::optional<std::string> value =
          k + 1 < t.size() ? t.substr(k + 1)
                           : (j + 1 < args.size() ? args[++j].text : std::string());
      use(*o, t, name, value);
      break;
    }
    return j + 1;
  }

  // GNU tar: a first word without a dash bundles letters whose values follow in order
  // (`tvf a.tar` is `-t -v -f a.tar`).
  bool unbundle_tar(std::vector<ArgWord>& args) {
    const std::string first = args[0].text;
    if (first.empty() || first[0] == '-') return true;
    std::vector<ArgWord> out;
    size_t next = 1;
    std::vector<ArgWord> values;
    for (char c : first) {
      std::string name = std::string("-") + c;
      const OptionSpec* o = lookup(name, nullptr);
      if (!o) {
        fail(first,
             fmt::format("holds {}, which is not an option of `tar` known to only read", name),
             "unknown-option");
        return false;
      }
      out.push_back({name, false, false});
      if (o->arg != ArgKind::kNone && !o->arg_optional && next < args.size())
        out.push_back(args[next++]);
    }
    out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(next), args.end());
    args = std::move(out);
    return true;
  }

  // find [-H|-L|-P|-D opts|-Olevel] [start points] [expression]
  void find_walk(const std::vector<ArgWord>& args) {
    size_t i = 0;
    while (i < args.size() && !problem_) {
      const std::string& t = args[i].text;
      if (t == "-H" || t == "-L" || t == "-P" || t == "-D" || starts_with(t, "-O")) {
        const std::string name = starts_with(t, "-O") ? "-O" : t;
        const OptionSpec* o = lookup(name, nullptr);
        if (!o) {
          unknown(t, false);
          return;
        }
        std::optional<std::string> value;
        if (name == "-O") value = t.substr(2);
        if (name == "-D") value = i + 1 < args.size() ? args[++i].text : "";
        use(*o, t, name, value);
        ++i;
        continue;
      }
      break;
    }
    for (; i < args.size(); ++i) {
      const std::string& t = args[i].text;
      if (!t.empty() && (t[0] == '-' || t == "(" || t == ")" || t == "!" || t == ",")) break;
      operands_.push_back(&args[i]);
    }
    while (i < args.size() && !problem_) {
      const ArgWord& a = args[i];
      const std::string& t = a.text;
      if (t == "(" || t == ")" || t == "!" || t == "," || t == "-not" || t == "-a" || t == "-and" ||
          t == "-o" || t == "-or") {
        ++i;
        continue;
      }
      if (a.may_be_option || t.empty() || t[0] != '-') {
        fail(t, "is not part of a find expression known to only read", "not-read-only");
        return;
      }
      i = one_word(args, i);
    }
  }

  void finish() {
    for (const OptionSpec* o : used_) {
      if (o->needs.empty()) continue;
      bool ok = false;
      for (const OptionSpec* u : used_)
        for (const auto& n : u->names)
          for (const auto& want : o->needs) ok = ok || n == want;
      if (!ok)
        fail(o->names[0], fmt::format("only reads together with {}", join(o->needs, " or ")),
             "write-option");
    }
    if (!s_.requires_any.empty()) {
      bool ok = false;
      for (const OptionSpec* u : used_)
        for (const auto& n : u->names)
          for (const auto& want : s_.requires_any) ok = ok || n == want;
      if (!ok)
        fail(s_.display_name(),
             s_.requires_why.empty()
                 ? fmt::format("only reads with one of {}", join(s_.requires_any, ", "))
                 : s_.requires_why,
             "write-option");
    }
    for (const OptionSpec* u : used_)
      if (u->operands_free) return;
    check_operands(operands_);
    if (!problem_ && !posix_extra_.empty() && bounded() && !s_.interspersed) {
      std::vector<const ArgWord*> all = operands_;
      all.insert(all.end(), posix_extra_.begin(), posix_extra_.end());
      check_operands(all, " (as the program reads it when POSIXLY_CORRECT is set)");
    }
  }

  bool skipped(const OperandSpec& o) const {
    if (!o.unless_option) return false;
    for (ArgKind k : given_kinds_)
      if (k == o.kind) return true;
    return false;
  }

  bool bounded() const {
    for (const auto& o : s_.operands)
      if (!skipped(o) && o.max == OperandSpec::kMany) return false;
    return true;
  }

  void check_operands(const std::vector<const ArgWord*>& ops, const char* note = "") {
    std::vector<const OperandSpec*> spec;
    for (const auto& o : s_.operands)
      if (!skipped(o)) spec.push_back(&o);
    const bool finite = bounded();
    size_t at = 0;
    for (size_t k = 0; k < spec.size() && at < ops.size(); ++k) {
      size_t later_min = 0;
      for (size_t m = k + 1; m < spec.size(); ++m) later_min += spec[m]->min;
      size_t left = ops.size() - at;
      size_t take = left > later_min ? left - later_min : 0;
      take = std::max(take, spec[k]->min);
      take = std::min({take, spec[k]->max, left});
      for (size_t n = 0; n < take; ++n, ++at) {
        const ArgWord& w = *ops[at];
        std::string bad = check_arg_value(spec[k]->kind, w.text, spec[k]->choices);
        if (!bad.empty()) {
          fail(w.text, bad + note, "write-option");
          return;
        }
      }
    }
    for (const ArgWord* w : ops)
      if (w->many && finite && !s_.runtime_words) {
        fail(w->text,
             fmt::format("may expand to more operands than {} takes (its matches are not known "
                         "here){}",
                         shown(s_.display_name()), note),
             "not-read-only");
        return;
      }
    if (at < ops.size()) {
      const std::string& w = ops[at]->text;
      if (!s_.operands_why.empty())
        fail(w,
             fmt::format("is an operand {} does not take on the read-only list: {}{}",
                         shown(s_.display_name()), s_.operands_why, note),
             "write-option");
      else
        fail(w,
             fmt::format("is an operand {} does not take on the read-only list{}",
                         shown(s_.display_name()), note),
             "not-read-only");
    }
  }

  const ProgramSpec& s_;
  const ProgramSpec* parent_;
  const ArgContext& ctx_;
  std::vector<const OptionSpec*> used_;
  std::vector<ArgKind> given_kinds_;
  std::vector<const ArgWord*> operands_, posix_extra_;
  std::optional<ArgProblem> problem_;
};

bool is_number(std::string_view v) {
  size_t i = 0;
  if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
  size_t digits = i;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
  if (i == digits) return false;
  if (i < v.size() && v[i] == '.') {
    ++i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
  }
  for (; i < v.size(); ++i)
    if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z') || v[i] == '%'))
      return false;
  return true;
}

bool loopback_host(std::string_view host) {
  if (host == "localhost" || host == "[::1]") return true;
  // 127.0.0.0/8, written as four decimal numbers (curl reads other forms differently).
  int parts = 0;
  size_t i = 0;
  while (i <= host.size()) {
    size_t dot = host.find('.', i);
    std::string_view p = host.substr(i, dot == std::string_view::npos ? host.size() - i : dot - i);
    if (p.empty() || p.size() > 3 || !is_digits(p)) return false;
    int v = std::stoi(std::string(p));
    if (v > 255 || (parts == 0 && v != 127) || (p.size() > 1 && p[0] == '0')) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    i = dot + 1;
  }
  return parts == 4;
}

}  // namespace

bool is_loopback_url(std::string_view url) {
  std::string_view rest = url;
  if (starts_with(rest, "http://"))
    rest.remove_prefix(7);
  else if (starts_with(rest, "https://"))
    rest.remove_prefix(8);
  else if (rest.find("://") != std::string_view::npos)
    return false;
  // curl's globbing ({a,b}, [1-9]) asks for more than one URL; a user name may hide the host.
  if (rest.find_first_of("{}@\\ \t\n") != std::string_view::npos) return false;
  size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  std::string_view host = authority;
  if (starts_with(authority, "[")) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return false;
    host = authority.substr(0, close + 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && (after[0] != ':' || !is_digits(after.substr(1)))) return false;
  } else {
    size_t colon = authority.find(':');
    if (colon != std::string_view::npos) {
      if (!is_digits(authority.substr(colon + 1))) return false;
      host = authority.substr(0, colon);
    }
  }
  std::string_view path = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  if (path.find_first_of("[]") != std::string_view::npos) return false;
  return loopback_host(host);
}

std::string check_arg_value(ArgKind kind, const std::string& v,
                            const std::vector<std::string>& choices) {
  switch (kind) {
    case ArgKind::kChoice:
      for (const auto& c : choices)
        if (v == c) return "";
      return fmt::format("is not one of {}", join(choices, ", "));
    case ArgKind::kNum:
      return is_number(v) ? "" : "is not a number";
    case ArgKind::kSedScript:
      return sed_script_is_safe(v)
                 ? ""
                 : "is a sed script that can write files, read other files or run commands";
    case ArgKind::kAwkProgram:
      return awk_program_is_safe(v)
                 ? ""
                 : "is an awk program that can run commands, write files or read other files";
    case ArgKind::kArchive: {
      size_t colon = v.find(':');
      if (colon != std::string::npos && v.find('/') > colon)
        return "names an archive on another host, reached through a remote shell";
      return "";
    }
    case ArgKind::kLoopbackUrl:
      return is_loopback_url(v) ? ""
                                : "is not a plain http:// address on this machine's loopback "
                                  "(only those are read-only)";
    case ArgKind::kDateFormat:
      return starts_with(v, "+") ? "" : "is not a +FORMAT, so it would set the clock";
    case ArgKind::kJqProgram: {
      // jq's `import "../../x" as $d;` and `include` read other files (escapes may hide the
      // path); mikefarah's yq has load(), load_str(), ...
      for (std::string_view bad : {"import", "include", "load"}) {
        for (size_t at = v.find(bad); at != std::string::npos; at = v.find(bad, at + 1)) {
          const bool start =
              at == 0 || !(std::isalnum(static_cast<unsigned char>(v[at - 1])) || v[at - 1] == '_');
          if (start)
            return fmt::format(
                "is a program that reads other files ({}), which cannot be "
                "checked",
                bad);
        }
      }
      return "";
    }
    case ArgKind::kHeader:
      return starts_with(v, "@") ? "reads a file (`@file`), which cannot be checked" : "";
    case ArgKind::kKey:
      if (v.find('=') != std::string::npos) return "sets a value";
      return v.find_first_of("./") != std::string::npos ? "" : "is not a setting's name";
    default:
      return "";
  }
}

std::optional<ArgProblem> check_program_args(const ProgramSpec& spec, const ProgramSpec* parent,
                                             const std::vector<ArgWord>& args,
                                             const ArgContext& ctx) {
  return Matcher(spec, parent, ctx).run(args);
}

std::optional<ArgProblem> check_global_prefix(const ProgramSpec& parent,
                                              const std::vector<ArgWord>& args, size_t& end) {
  ArgContext ctx;
  return Matcher(parent, nullptr, ctx).prefix(args, end);
}

}  // namespace cordon
