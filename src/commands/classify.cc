#include "commands/classify.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "commands/denied_rules.h"
#include "commands/expansion.h"
#include "commands/program_args.h"
#include "commands/program_tables.h"
#include "commands/sensitive_paths.h"
#include "commands/shell_builtins.h"
#include "commands/shell_tokenizer.h"
#include "commands/wrappers.h"
#include "config/command_entry.h"
#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

const char* to_string(CommandClass c) {
  switch (c) {
    case CommandClass::kReadOnly:
      return "read-only";
    case CommandClass::kNeedsApproval:
      return "needs-approval";
    case CommandClass::kDenied:
      return "denied";
  }
  return "needs-approval";
}

namespace {

// Nesting of `sh -c` strings, wrappers and substitutions the walk follows before it gives up.
constexpr int kMaxDepth = 16;
// Folders a line may `cd` into before we stop following.
constexpr size_t kMaxCwds = 32;
// Distinct words checked as paths before we stop (each may cost a realpath on the host).
constexpr size_t kMaxPathChecks = 10000;
// Words a brace or a glob may become before the deny rules call it unsafe (CMD-4).
constexpr size_t kMaxExpansion = 10000;

// An entry ending in one of these matches only on its own: `node --version` does not make
// `node --version -e 'code'` read-only.
bool version_word(std::string_view w) {
  return w == "--version" || w == "-version" || w == "-v" || w == "-V" || w == "version" ||
         w == "-VV";
}

// A word for a message, in backquotes: quoted only when it holds blanks or quotes, control
// characters made visible, long words cut.
std::string display(std::string_view w, bool quote_blanks = true) {
  constexpr size_t kMax = 120;
  std::string_view v = w.size() > kMax ? w.substr(0, kMax) : w;
  bool control = false, quote = v.empty() && quote_blanks;
  for (unsigned char c : v) {
    if (c < 0x20 || c == 0x7f) control = true;
    if (quote_blanks && (c == ' ' || c == '\'' || c == '"' || c == '\\' || c == '`')) quote = true;
  }
  std::string out;
  if (control) {
    out = "$'";
    for (unsigned char c : v) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\'' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20 || c == 0x7f) {
        out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
      } else {
        out += static_cast<char>(c);
      }
    }
    out += "'";
  } else if (quote) {
    out = shell_quote(v);
  } else {
    out = std::string(v);
  }
  if (w.size() > kMax) out += "...";
  return "`" + out + "`";
}

bool is_fd_word(std::string_view t) {
  if (t == "-") return true;
  if (t.empty()) return false;
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}

// Commands whose arguments are not paths they open: an expansion there cannot reach a file.
bool takes_no_paths(std::string_view p) {
  static const char* const kList[] = {
      "echo",     "printf",  "true", "false", ":",   "test", "[",     "sleep",    "seq",   "expr",
      "basename", "dirname", "exit", "wait",  "set", "type", "which", "printenv", "factor"};
  for (const char* k : kList)
    if (p == k) return true;
  return false;
}

bool is_grep(std::string_view p) {
  return p == "grep" || p == "egrep" || p == "fgrep" || p == "zgrep" || p == "zegrep" ||
         p == "zfgrep" || p == "bzgrep" || p == "xzgrep" || p == "zstdgrep";
}

bool system_folder(std::string_view dir) {
  static const char* const kDirs[] = {"/bin",      "/usr/bin",        "/usr/local/bin",   "/sbin",
                                      "/usr/sbin", "/usr/local/sbin", "/opt/homebrew/bin"};
  for (const char* d : kDirs)
    if (dir == d) return true;
  return false;
}

}  // namespace

// One entry of a read-only or denied list (outside the anonymous namespace: Lists holds them).
struct ClassifierEntry {
  std::vector<std::string> words;
  std::string text;    // the words joined by one space
  std::string source;  // "built-in list", "[commands] read_only", ...
  bool exact = false;
};

struct CommandClassifier::Lists {
  const ProgramTables& tables = builtin_program_tables();         // the built-in list
  std::unordered_map<std::string, std::vector<ClassifierEntry>> read_only;  // `[commands] read_only`
  std::vector<ClassifierEntry> denied;
  SensitivePaths sensitive;
  std::vector<std::string> denied_paths;

  // The path matchers depend on the home folder; a caller nearly always passes the same one,
  // so the last pair is kept (building them costs more than classifying a short line).
  struct PathMatchers {
    std::string home;
    bool unconfined = false;
    SensitiveMatcher sensitive;
    DeniedPaths denied;
  };
  // Unconfined (CMD-3, issue 27): other processes' environments are readable under /proc, and
  // a sandbox would not keep a command from them, so they are sensitive too.
  std::shared_ptr<const PathMatchers> matchers(const std::string& home, bool unconfined) const {
    std::lock_guard<std::mutex> lock(mu);
    auto& last = unconfined ? last_unconfined : last_sandboxed;
    if (!last || last->home != home) {
      SensitivePaths paths = sensitive;
      if (unconfined)
        for (const char* f : {"/proc/*/environ", "/proc/*/task/*/environ"})
          paths.files.push_back(f);
      last = std::make_shared<const PathMatchers>(PathMatchers{
          home, unconfined, SensitiveMatcher(paths, home), DeniedPaths(denied_paths, home)});
    }
    return last;
  }
  mutable std::mutex mu;
  mutable std::shared_ptr<const PathMatchers> last_sandboxed, last_unconfined;
};

namespace {

class Walk {
 public:
  Walk(const CommandClassifier::Lists& lists, const ClassifyContext& ctx)
      : L_(lists),
        ctx_(ctx),
        home_(ctx.home.empty() || ctx.home[0] != '/' ? "/nonexistent-home"
                                                     : normalize_path(ctx.home)),
        matchers_(lists.matchers(home_, ctx.unconfined)),
        sensitive_(matchers_->sensitive),
        denied_(matchers_->denied) {
    std::string cwd = ctx.cwd.empty() || ctx.cwd[0] != '/' ? "/" : normalize_path(ctx.cwd);
    cwds_.push_back(cwd);
  }

  void start() {
    if (ctx_.network)
      add(CommandClass::kNeedsApproval, "network", "network",
          "the command asks for the network, and a networked command is never read-only.");  // CMD-3
    const std::string cwd = cwds_[0];
    check_folder(cwd, "");
    if (ctx_.resolve) {
      std::string real = ctx_.resolve(cwd);
      if (!real.empty() && real[0] == '/' && normalize_path(real) != cwd)
        check_folder(normalize_path(real), real);
    }
  }

  void line(std::string_view text, int depth) {
    if (depth > kMaxDepth) {
      too_deep(text);
      return;
    }
    std::string bomb = find_fork_bomb(text);
    if (!bomb.empty())
      add(CommandClass::kDenied, bomb, "denied-command",
          fmt::format("{} is a fork bomb: it starts copies of itself without end.",  // CMD-4
                      display(bomb)));
    // `: ${GIT_DIR:=x}` assigns as it expands (CMD-2): judged like `GIT_DIR=x`.
    for (const auto& [name, value] : assigning_expansions(text))
      if (!harmless_variable(name, value.find('$') == std::string::npos ? value : "?"))
        add(CommandClass::kNeedsApproval, "${" + name + "}", "environment",
            fmt::format("`${{{}:=...}}` assigns {}, which can change what later commands run or "
                        "read.",
                        name, name));
    ShellScript script = parse_shell(text, depth);
    for (const auto& c : script.commands) simple(c, depth);
    // A printer after the xargs in source order (`xargs rm -rf < <(echo ~)`) counts too.
    for (const auto& p : xargs_destroys_) deny_catastrophic(printed_, "xargs " + p);
    if (!script.complete) {
      size_t at = std::min(script.problem_offset, text.size());
      std::string excerpt(text.substr(at, 32));
      add(CommandClass::kNeedsApproval, excerpt, "unparsed",
          fmt::format("the line cannot be parsed with confidence: {}{}.", script.problem,  // CMD-1
                      excerpt.empty() ? "" : ", at " + display(excerpt)));
    }
  }

  void simple(const SimpleCommand& c, int depth) {
    for (const auto& sub : c.substitutions)
      for (const auto& sc : sub.commands) simple(sc, depth + 1);
    for (const auto& r : c.redirections) redirection(r);
    if (c.kind == CommandKind::kForList) {
      for_list(c);
      return;
    }
    for (const auto& a : c.assignments) {
      size_t eq = a.text.find('=');
      loop_vars_.erase(a.text.substr(0, eq == std::string::npos ? a.text.size() : eq));
    }
    for (const auto& a : c.assignments)
      assignment(a, c.words.empty() ? "" : c.words[0].text, !c.words.empty());
    if (c.words.empty()) return;
    argv(std::span<const ShellWord>(c.words), depth, "");
    shell_fed_a_script(c, depth);
  }

  // `for f in WORDS`: each word is checked as a path (globs followed). When every word is
  // known (no expansion), `"$f"` later in the line stands for words already checked.
  void for_list(const SimpleCommand& c) {
    if (c.assignments.empty()) return;
    const std::string& name = c.assignments[0].text;
    variable(name, "", "");
    bool known = true;
    LoopVar v;
    for (const auto& w : c.words) {
      check_word(w, true, true);  // a use of the variable is judged where it is used
      if (dynamic(w) || w.process_substitution) known = false;
      if (w.has_glob || w.text.find_first_of(" \t\n*?[") != std::string::npos) v.splits = true;
      if (!w.text.empty() && w.text[0] == '-') v.option_shaped = true;
      if (w.has_glob && known) {
        Expansion e = expand_for_program(w.text);
        if (!e.known) v.option_shaped = v.option_shaped || e.may_be_option;
        for (const auto& m : e.words)
          if (!m.empty() && m[0] == '-') v.option_shaped = true;
      }
    }
    loop_vars_.erase(name);
    if (known) loop_vars_[name] = v;
  }

  struct LoopVar {
    bool splits = false;         // a value could split into other words
    bool option_shaped = false;  // a value starts (or could start) with `-`
  };

  // The loop variable `"$f"` (or `$f` when no value could be split) stands for, or null.
  const LoopVar* checked_loop_var(const ShellWord& w) const {
    for (const auto& [name, v] : loop_vars_) {
      if (w.text != "$" + name && w.text != "${" + name + "}") continue;
      return !w.unquoted_expansion || !v.splits ? &v : nullptr;
    }
    return nullptr;
  }
  bool checked_loop_value(const ShellWord& w) const { return checked_loop_var(w) != nullptr; }

  // `--author=$(git config user.email)`: an option whose value is never a path, so a value only
  // known at run time cannot name a file (the substitution is classified on its own).
  static bool value_not_path(const ShellWord& w) {
    static const char* const kOptions[] = {
        "--author=", "--committer=", "--grep=",   "--since=", "--until=",     "--before=",
        "--after=",  "--format=",    "--pretty=", "--date=",  "--max-count=", "--message="};
    if (w.risky_expansion || w.process_substitution) return false;
    for (const char* o : kOptions) {
      std::string_view opt = o;
      if (starts_with(w.text, opt) && w.plain_prefix >= opt.size()) return true;
    }
    return false;
  }

  // `sh <<EOF ... EOF` and `bash <<< 'cmd'`: the shell reads its script from the redirection.
  void shell_fed_a_script(const SimpleCommand& c, int depth) {
    std::vector<std::string> texts;
    for (const auto& w : c.words) texts.push_back(w.text);
    const std::string& name = texts[0];
    const std::string program =
        name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
    ShellCall sh = parse_shell_call(program, texts);
    if (!sh.is_shell || !sh.stdin_script) return;
    for (const auto& r : c.redirections) {
      if (r.op == RedirectOp::kHereDoc) {
        if (!r.here_doc_quoted && r.target.has_expansion)
          add(CommandClass::kNeedsApproval, program, "unparsed",
              fmt::format("the script {} reads from a here-document expands at run time.",  // CMD-1
                          display(program)));
        line(r.here_doc, depth + 1);
      } else if (r.op == RedirectOp::kHereString) {
        if (dynamic(r.target))
          add(CommandClass::kNeedsApproval, program, "unparsed",
              fmt::format("the script {} reads from a here-string expands at run time.",
                          display(program)));
        line(r.target.text, depth + 1);
      }
    }
  }

  // `fed_by`: "xargs" or "find -exec" when that program adds arguments of its own.
  void argv(std::span<const ShellWord> words, int depth, const std::string& fed_by) {
    if (words.empty()) return;
    if (depth > kMaxDepth) {
      too_deep(words[0].text);
      return;
    }
    const ShellWord& w0 = words[0];
    if (dynamic(w0) || w0.has_glob || w0.process_substitution) {
      add(CommandClass::kNeedsApproval, w0.text, "expansion",
          fmt::format("the command name {} is only known at run time.",
                      display(w0.text)));  // CMD-1
      for (size_t i = 1; i < words.size(); ++i) check_word(words[i], true, false);
      return;
    }
    std::vector<std::string> texts;
    texts.reserve(words.size());
    for (const auto& w : words) texts.push_back(w.text);
    const std::string& name = texts[0];
    const size_t slash = name.rfind('/');
    const std::string program = slash == std::string::npos ? name : name.substr(slash + 1);
    if (program.empty()) {
      add(CommandClass::kNeedsApproval, name, "not-read-only",
          fmt::format("{} is not a program on the read-only list.", display(name)));  // CMD-2
      return;
    }

    denied(program, texts, words);

    GitGlobals git;
    if (program == "git") {
      git = parse_git_globals(texts);
      for (const auto& dir : git.chdirs) add_cwd(dir);
    }

    ShellCall sh = parse_shell_call(program, texts);
    if (sh.is_shell && sh.has_command_string) {
      shell(words, sh, program, depth);
      return;
    }
    if (program == "eval") {
      eval(words, depth);
      return;
    }
    Unwrapped u = unwrap_command(program, texts);
    if (u.is_wrapper) {
      wrapper(words, texts, u, program, depth, fed_by);
      return;
    }

    const bool no_paths = takes_no_paths(program);
    for (size_t i = 1; i < words.size(); ++i) check_word(words[i], no_paths, !no_paths);
    if (!fed_by.empty() && !no_paths)
      add(CommandClass::kNeedsApproval, program, "expansion",
          fmt::format(
              "{} gives {} arguments only known at run time, which cannot be checked.",  // CMD-3
              fed_by, display(program)));
    implicit_folder(program, texts);
    note_printed(program, words);
    if (fed_by == "xargs" && destroys_targets(program)) {
      xargs_destroys_.push_back(program);
      deny_catastrophic(printed_, "xargs " + program);
    }
    if (program == "cd") change_dir(words);
    read_only(program, words, texts, git);
    if (program == "find") find_exec(words, depth);
  }

  Classification result() const {
    if (have_) return best_;
    Classification c;
    c.cls = CommandClass::kReadOnly;
    if (matched_.empty()) {
      c.rule = "nothing-to-run";
      c.reason = "the line runs no command.";  // CMD-2
      return c;
    }
    std::vector<std::string> shown;
    for (const auto& m : matched_) {
      std::string d = "`" + m + "`";
      if (std::find(shown.begin(), shown.end(), d) == shown.end()) shown.push_back(d);
    }
    c.rule = "read-only-list";
    c.word = matched_[0];
    c.reason =
        fmt::format("every command is on the read-only list: {}.", join(shown, ", "));  // CMD-2
    return c;
  }

 private:
  void add(CommandClass cls, std::string word, std::string rule, std::string reason) {
    if (approval_at_most_ && cls == CommandClass::kDenied) cls = CommandClass::kNeedsApproval;
    if (have_ && static_cast<int>(cls) <= static_cast<int>(best_.cls)) return;
    best_ = Classification{cls, std::move(reason), std::move(word), std::move(rule)};
    have_ = true;
  }

  void too_deep(std::string_view where) {
    add(CommandClass::kNeedsApproval, std::string(where.substr(0, 32)), "unparsed",
        "the command nests shells, wrappers and substitutions too deeply to follow.");  // CMD-1
  }

  // `~user`, `~+` and `~-` name folders only known at run time.
  static bool tilde_unknown(const ShellWord& w) {
    return w.tilde && w.text != "~" && !starts_with(w.text, "~/");
  }
  static bool dynamic(const ShellWord& w) {
    return w.has_expansion || w.has_brace || w.risky_expansion || tilde_unknown(w);
  }

  // --- paths (CMD-3, CMD-5) --------------------------------------------------------------

  void check_folder(const std::string& cwd, const std::string& via) {
    std::string how = via.empty() ? "" : fmt::format(" (through a symlink to {})", via);
    std::string d = denied_.within(cwd);
    if (!d.empty())
      add(CommandClass::kDenied, cwd, "denied-path",
          fmt::format("the working folder {}{} is within the denied path {} "
                      "([commands] denied_paths).",  // CMD-5
                      display(cwd), how, d));
    std::string m = sensitive_.match(cwd);
    if (!m.empty())
      add(CommandClass::kNeedsApproval, cwd, "sensitive-path",
          fmt::format("the working folder {}{} is a sensitive path ({}).",  // CMD-3
                      display(cwd), how, m));
  }

  // `allow_expansion`: the program takes no paths, so an expansion cannot name a file.
  // `glob`: follow pathname expansion (off for programs that take no paths).
  void check_word(const ShellWord& w, bool allow_expansion, bool glob) {
    if (w.process_substitution) return;  // a /dev/fd path; its command is classified itself
    if (w.risky_expansion)
      add(CommandClass::kNeedsApproval, w.text, "expansion",
          fmt::format("{} uses an expansion that can run code kept in a variable (arithmetic, "
                      "${{!name}}, ${{name@P}}, subscripts).",  // CMD-1
                      display(w.text)));
    if (dynamic(w) && (checked_loop_value(w) || value_not_path(w))) return;
    if (dynamic(w)) {
      std::string d = denied_.mentioned_in(w.text);
      if (!d.empty())
        add(CommandClass::kDenied, w.text, "denied-path",
            fmt::format("{} names the denied path {} ([commands] denied_paths).",  // CMD-5
                        display(w.text), d));
      std::string m = sensitive_.match_names(w.text);
      if (!m.empty())
        add(CommandClass::kNeedsApproval, w.text, "sensitive-path",
            fmt::format("{} names a sensitive path ({}).", display(w.text), m));  // CMD-3
      if (!allow_expansion)
        add(CommandClass::kNeedsApproval, w.text, "expansion",
            fmt::format("{} is only known at run time, so the path it names cannot be checked.",
                        display(w.text)));
      return;
    }
    const std::string& t = w.text;
    // The same word in the same folders needs checking once (`ls a a a ...`).
    std::string key = t;
    key += glob && w.has_glob ? '\1' : '\0';
    key += std::to_string(cwds_.size());
    if (!checked_.insert(std::move(key)).second) return;
    if (checked_.size() > kMaxPathChecks) {
      add(CommandClass::kNeedsApproval, t, "unparsed",
          fmt::format("the line names more than {} paths, too many to check.",  // CMD-3
                      kMaxPathChecks));
      return;
    }
    check_text(t, t, glob && w.has_glob);
    // `--file=PATH`, `if=PATH`: the value is a path too.
    size_t eq = t.find('=');
    if (eq != std::string::npos && eq + 1 < t.size() &&
        (t[0] == '-' || t.substr(0, eq).find('/') == std::string::npos))
      check_text(t, t.substr(eq + 1), glob && w.has_glob);
    // `HEAD:.env`, `host:path`, `a:b:c` search lists: each part may be a path (not URLs).
    if (t.find(':') != std::string::npos && t.find("://") == std::string::npos) {
      size_t start = 0;
      for (int parts = 0; parts < 16 && start <= t.size(); ++parts) {
        size_t colon = t.find(':', start);
        std::string part = t.substr(start, colon == std::string::npos ? colon : colon - start);
        // `HEAD:secret/x` may name a file in git rather than on disk: at most an approval.
        if (!part.empty() && part != t) {
          approval_at_most_ = true;
          check_text(t, part, false);
          approval_at_most_ = false;
        }
        if (colon == std::string::npos) break;
        start = colon + 1;
      }
    }
  }

  void check_text(const std::string& word, const std::string& t, bool glob) {
    if (t.empty()) return;
    // Names as written: `../.ssh/x` loses `.ssh` once normalized.
    std::string m = sensitive_.match_names(t);
    if (!m.empty())
      add(CommandClass::kNeedsApproval, word, "sensitive-path",
          fmt::format("{} is a sensitive path ({}).", display(word), m));  // CMD-3, CMD-5
    std::string expanded = (t == "~" || starts_with(t, "~/")) ? expand_home(t, home_) : t;
    if (!expanded.empty() && expanded[0] == '/') {
      check_abs(word, normalize_path(expanded), glob);
      if (!glob) check_passed_through(word, expanded);
    } else {
      const std::vector<std::string> cwds = cwds_;
      for (const auto& cwd : cwds) {
        check_abs(word, path_join(cwd, expanded), glob);
        if (!glob) check_passed_through(word, cwd + "/" + expanded);
      }
    }
  }

  // `/srv/secret/../x` goes through /srv/secret (and, were it a symlink, `..` would lead
  // elsewhere): the folders before each `..` count as named.
  void check_passed_through(const std::string& word, const std::string& raw) {
    if (raw.find("..") == std::string::npos) return;
    std::string so_far = "/";
    int ups = 0;
    for (auto c : path_components(raw)) {
      if (c == "..") {
        if (++ups > 64) return;  // bounded work; the normalized path is checked anyway
        check_resolved(word, so_far, "", false);
        so_far = path_parent(so_far);
      } else {
        so_far = path_join(so_far, c);
      }
    }
  }

  void check_abs(const std::string& word, const std::string& abs, bool glob) {
    if (glob) {
      check_glob(word, abs);
      return;
    }
    check_resolved(word, abs, "", true);
    if (ctx_.resolve) {
      std::string real = ctx_.resolve(abs);
      if (!real.empty() && real[0] == '/' && normalize_path(real) != abs)
        check_resolved(word, normalize_path(real), real, true);
    }
  }

  void check_resolved(const std::string& word, const std::string& abs, const std::string& via,
                      bool reach) {
    std::string how = via.empty() ? "" : fmt::format(" (through a symlink to {})", via);
    std::string d = denied_.within(abs);
    if (!d.empty()) {
      add(CommandClass::kDenied, word, "denied-path",
          fmt::format("{}{} is within the denied path {} ([commands] denied_paths); no approval "
                      "can allow it.",  // CMD-5
                      display(word), how, d));
    } else if (reach && !(d = denied_.reaches(abs)).empty()) {
      add(CommandClass::kNeedsApproval, word, "denied-path",
          fmt::format("{}{} is a folder that holds the denied path {}.", display(word), how, d));
    }
    std::string m = not_a_process(abs, sensitive_.match(abs));
    if (m.empty() && is_disk_device(abs)) m = "a raw disk or memory device";
    if (!m.empty()) {
      add(CommandClass::kNeedsApproval, word, "sensitive-path",
          fmt::format("{}{} is a sensitive path ({}).", display(word), how, m));  // CMD-3, CMD-5
    } else if (reach && !(m = not_a_process(abs, sensitive_.reaches(abs))).empty()) {
      add(CommandClass::kNeedsApproval, word, "sensitive-path",
          fmt::format("{}{} is a folder that holds the sensitive path {}.", display(word), how, m));
    }
  }

  // The /proc entries of an unconfined classifier (`/proc/*/environ`) stand for processes:
  // /proc/cpuinfo neither is nor holds one.
  static std::string not_a_process(std::string_view abs, std::string found) {
    if (!starts_with(found, "/proc/*/")) return found;
    auto comps = path_components(abs);
    if (comps.size() < 2) return found;
    const std::string_view pid = comps[1];
    bool digits = !pid.empty();
    for (char c : pid) digits = digits && c >= '0' && c <= '9';
    return digits || pid == "self" || pid == "thread-self" ? found : std::string();
  }

  void check_glob(const std::string& word, const std::string& pattern) {
    // The literal folder before the first glob: checked like any path, except that naming a
    // folder above a sensitive path is fine here (the glob below it is checked instead).
    auto comps = path_components(pattern);
    std::string prefix = "/";
    for (auto c : comps) {
      if (has_glob_chars(c)) break;
      prefix = path_join(prefix, c);
    }
    check_resolved(word, prefix, "", false);
    if (ctx_.resolve) {
      std::string real = ctx_.resolve(prefix);
      if (!real.empty() && real[0] == '/' && normalize_path(real) != prefix) {
        check_resolved(word, normalize_path(real), real, false);
        std::string rest = pattern.size() > prefix.size() ? pattern.substr(prefix.size()) : "";
        check_glob_pattern(word, normalize_path(real + "/" + rest));
      }
    }
    // What it matches, when that is known in full (CMD-2, CMD-3): each match is checked as a
    // path; a glob whose matches are all clean is not asked about (`du -sh *`).
    if (ctx_.expander) {
      const Expander::Matches& m = glob_once(pattern);
      if (m.complete) {
        for (const auto& p : m.paths) {
          if (!dot_visible(pattern, p)) continue;
          std::string abs = normalize_path(p);
          check_resolved(word, abs, "", true);
          if (ctx_.resolve) {
            std::string real = ctx_.resolve(abs);
            if (!real.empty() && real[0] == '/' && normalize_path(real) != abs)
              check_resolved(word, normalize_path(real), real, true);
          }
        }
        return;
      }
    }
    check_glob_pattern(word, pattern);
  }

  void check_glob_pattern(const std::string& word, const std::string& pattern) {
    std::string d = denied_.could_name(pattern);
    if (!d.empty()) {
      add(CommandClass::kDenied, word, "denied-path",
          fmt::format("{} could expand to the denied path {} ([commands] denied_paths).",  // CMD-5
                      display(word), d));
    } else if (!(d = denied_.could_reach(pattern)).empty()) {
      add(CommandClass::kNeedsApproval, word, "denied-path",
          fmt::format("{} could expand to a folder that holds the denied path {}.", display(word),
                      d));
    }
    std::string m = sensitive_.could_match(pattern);
    if (!m.empty())
      add(CommandClass::kNeedsApproval, word, "sensitive-path",
          fmt::format("{} could expand to a sensitive path ({}).", display(word),  // CMD-3, CMD-5
                      m));
  }

  void add_cwd(const std::string& dir) {
    if (dir.empty()) return;
    std::string expanded = (dir == "~" || starts_with(dir, "~/")) ? expand_home(dir, home_) : dir;
    const std::vector<std::string> cwds = cwds_;
    for (const auto& cwd : cwds) {
      std::string next = path_join(cwd, expanded);
      if (std::find(cwds_.begin(), cwds_.end(), next) == cwds_.end()) cwds_.push_back(next);
      if (expanded[0] == '/') break;
    }
    if (cwds_.size() > kMaxCwds) {
      add(CommandClass::kNeedsApproval, dir, "unparsed",
          "the line changes folders too often to follow.");  // CMD-1
      cwds_.resize(kMaxCwds);
    }
  }

  // Recursive searchers read the working folder when given no path.
  void implicit_folder(const std::string& program, const std::vector<std::string>& texts) {
    bool recursive = program == "rg" || program == "ag";
    if (is_grep(program)) {
      for (size_t i = 1; i < texts.size(); ++i) {
        const std::string& a = texts[i];
        if (a == "--") break;
        if (a == "--recursive" || a == "--dereference-recursive" || a == "--directories=recurse" ||
            (a.size() > 1 && a[0] == '-' && a[1] != '-' &&
             a.find_first_of("rR") != std::string::npos))
          recursive = true;
      }
    }
    if (!recursive) return;
    const std::vector<std::string> cwds = cwds_;
    for (const auto& cwd : cwds) {
      std::string d = denied_.reaches(cwd);
      if (!d.empty())
        add(CommandClass::kNeedsApproval, program, "denied-path",
            fmt::format(
                "{} searches the working folder {}, which holds the denied path {}.",  // CMD-5
                display(program), display(cwd), d));
      std::string m = sensitive_.reaches(cwd);
      if (!m.empty())
        add(CommandClass::kNeedsApproval, program, "sensitive-path",
            fmt::format(
                "{} searches the working folder {}, which holds the sensitive path {}.",  // CMD-3
                display(program), display(cwd), m));
    }
  }

  // --- shell syntax around commands ------------------------------------------------------

  void redirection(const Redirection& r) {
    const ShellWord& t = r.target;
    auto risky = [&]() {
      if (t.risky_expansion)
        add(CommandClass::kNeedsApproval, t.text, "expansion",
            fmt::format("the here-document or here-string after {} uses an expansion that can "
                        "run code kept in a variable.",  // CMD-1
                        display(t.text)));
    };
    switch (r.op) {
      case RedirectOp::kHereDoc:
      case RedirectOp::kHereString:
        risky();
        return;
      case RedirectOp::kDupIn:
        if (!is_fd_word(t.text)) check_word(t, false, true);
        return;
      case RedirectOp::kDupOut:
        if (is_fd_word(t.text)) return;
        output(t, ">&");
        return;
      case RedirectOp::kIn:
        network_device(t);
        check_word(t, false, true);
        return;
      case RedirectOp::kOut:
        output(t, ">");
        return;
      case RedirectOp::kAppend:
        output(t, ">>");
        return;
      case RedirectOp::kClobber:
        output(t, ">|");
        return;
      case RedirectOp::kReadWrite:
        output(t, "<>");
        return;
      case RedirectOp::kOutErr:
        output(t, "&>");
        return;
      case RedirectOp::kAppendOutErr:
        output(t, "&>>");
        return;
    }
  }

  // bash opens a connection for /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT.
  void network_device(const ShellWord& t) {
    if (starts_with(t.text, "/dev/tcp/") || starts_with(t.text, "/dev/udp/"))
      add(CommandClass::kNeedsApproval, t.text, "network",
          fmt::format("{} opens a network connection.", display(t.text)));  // CMD-3
  }

  void output(const ShellWord& t, const char* op) {
    if (t.process_substitution) return;  // >(cmd): cmd is classified itself
    network_device(t);
    if (!dynamic(t) && !t.has_glob) {
      std::string p =
          (t.text == "~" || starts_with(t.text, "~/")) ? expand_home(t.text, home_) : t.text;
      if (!p.empty() && p[0] == '/') {
        std::string abs = normalize_path(p);
        if (is_harmless_device(abs)) return;
        if (is_disk_device(abs)) {
          add(CommandClass::kDenied, t.text, "denied-command",
              fmt::format("{} {} writes straight to a disk or memory device (or the kernel's "
                          "SysRq trigger).",  // CMD-4
                          op, display(t.text)));
          return;
        }
      }
    }
    device_target(t, op);
    check_word(t, false, true);
    add(CommandClass::kNeedsApproval, std::string(op) + " " + t.text, "output-redirection",
        fmt::format("the output redirection {} {} writes a file.", op, display(t.text)));  // CMD-2
  }

  // What a redirection would open (CMD-4): braces and globs expanded, links followed. A glob
  // into /dev or /proc is denied outright: a write there cannot be told from a disk write.
  void device_target(const ShellWord& t, const char* op) {
    if (t.has_expansion) return;
    std::vector<std::string> alts{t.text};
    if (t.has_brace)
      alts = brace_expand(t.text, kMaxExpansion).value_or(std::vector<std::string>{});
    std::vector<std::string> paths;
    for (const auto& alt : alts) {
      for (const auto& abs : absolute_in_cwds(alt)) {
        const bool glob = t.has_glob && has_glob_chars(alt);
        if (glob && (starts_with(abs, "/dev/") || starts_with(abs, "/proc/"))) {
          deny_device(t.text, op);
          return;
        }
        if (!glob) paths.push_back(normalize_path(abs));
        if (glob && ctx_.expander) {
          const Expander::Matches& m = glob_once(normalize_path(abs));
          paths.insert(paths.end(), m.paths.begin(), m.paths.end());
        }
      }
    }
    for (const auto& p : paths) {
      std::string real = ctx_.resolve ? ctx_.resolve(p) : std::string();
      if (is_disk_device(p) || (!real.empty() && is_disk_device(normalize_path(real)))) {
        deny_device(t.text, op);
        return;
      }
    }
  }

  void deny_device(const std::string& word, const char* op) {
    add(CommandClass::kDenied, word, "denied-command",
        fmt::format("{} {} could write straight to a disk or memory device (or the kernel's "
                    "SysRq trigger).",  // CMD-4
                    op, display(word)));
  }

  void assignment(const ShellWord& a, const std::string& command, bool prefix) {
    size_t eq = a.text.find('=');
    if (eq == std::string::npos) return;
    std::string name = a.text.substr(0, eq);
    if (!name.empty() && name.back() == '+') name.pop_back();
    ShellWord value = a;
    value.text = a.text.substr(eq + 1);
    value.has_glob = false;  // no pathname expansion in assignments
    value.tilde = starts_with(value.text, "~");
    check_word(value, true, false);
    if (prefix) {
      if (!harmless_environment(name, value.text) && !own_git_variable(name, value, command))
        add(CommandClass::kNeedsApproval, a.text, "environment",
            fmt::format("{} sets {} for {}, which can change what it runs or reads.",  // CMD-2
                        display(a.text), name, display(command)));
    } else {
      variable(name, value.text, a.text);
    }
  }

  void variable(const std::string& name, const std::string& value, const std::string& word) {
    if (harmless_variable(name, value)) return;
    add(CommandClass::kNeedsApproval, word.empty() ? name : word, "environment",
        fmt::format(
            "setting the shell variable {} can change what later commands run or read.",  // CMD-2
            name));
  }

  // --- what the shell acts on (CMD-4) ------------------------------------------------------

  // Programs the deny rules judge by their targets.
  static bool judged_by_target(const std::string& p) {
    for (const char* k : {"rm", "rmdir", "unlink", "shred", "chmod", "chown", "chgrp", "find", "dd",
                          "cp", "mv", "tee", "install", "rsync", "pv"})
      if (p == k) return true;
    return false;
  }

  static bool destructive(const std::string& p, const std::vector<std::string>& texts) {
    if (p == "find") return std::find(texts.begin(), texts.end(), "-delete") != texts.end();
    for (const char* k : {"rm", "rmdir", "unlink", "shred", "chmod", "chown", "chgrp"})
      if (p == k) return true;
    return false;
  }

  // The words as written, then what the shell makes of them: braces expanded, globs matched
  // against the filesystem in every folder the line may be in, and targets followed through
  // links (`dir/`, `dir/*`, or every target for chmod and chown, which follow links named on
  // the command line). `unsafe` gets a word that could not be expanded in full.
  std::vector<std::string> shell_args(std::span<const ShellWord> words, bool follow_all,
                                      std::string& unsafe) {
    std::vector<std::string> out;
    for (size_t i = 1; i < words.size(); ++i) {
      const ShellWord& w = words[i];
      out.push_back(w.text);
      if (w.has_expansion || w.process_substitution) continue;
      std::vector<std::string> alts{w.text};
      if (w.has_brace) {
        auto b = brace_expand(w.text, kMaxExpansion);
        if (!b) {
          unsafe = w.text;
          continue;
        }
        alts = std::move(*b);
      }
      for (const auto& alt : alts) {
        std::vector<std::string> found{alt};
        if (w.has_glob && has_glob_chars(alt)) globbed(alt, found, unsafe);
        for (const auto& f : found) {
          if (f != w.text) out.push_back(f);
          follow(f, follow_all, out);
        }
      }
    }
    return out;
  }

  std::vector<std::string> absolute_in_cwds(const std::string& word) const {
    std::string p = (word == "~" || starts_with(word, "~/")) ? expand_home(word, home_) : word;
    const bool slash = p.size() > 1 && p.back() == '/';
    std::vector<std::string> out;
    for (const auto& cwd : cwds_) {
      std::string abs = path_join(cwd, p);
      if (slash && abs != "/") abs += '/';
      out.push_back(std::move(abs));
      if (!p.empty() && p[0] == '/') break;
    }
    return out;
  }

  // A glob's matches, added to `found`. Incomplete matches are unsafe when the pattern is short
  // enough to name `/`, a system folder or the home folder (or a folder above it).
  void globbed(const std::string& pattern, std::vector<std::string>& found, std::string& unsafe) {
    if (!ctx_.expander) return;
    for (const auto& abs : absolute_in_cwds(pattern)) {
      const Expander::Matches& m = glob_once(abs);
      const size_t depth = std::max<size_t>(1, path_components(home_).size());
      if (!m.complete && (path_components(abs).size() <= depth || abs.back() == '/'))
        unsafe = pattern;
      found.insert(found.end(), m.paths.begin(), m.paths.end());
    }
  }

  void follow(const std::string& target, bool follow_all, std::vector<std::string>& out) const {
    if (!ctx_.resolve || target.empty() || target[0] == '-') return;
    std::string folder = target, suffix;
    for (const char* s : {"/*", "/.*", "/"}) {
      if (target.size() > std::string_view(s).size() && ends_with(target, s)) {
        folder = target.substr(0, target.size() - std::string_view(s).size());
        suffix = s;
        break;
      }
    }
    if (suffix.empty() && !follow_all) return;
    for (const auto& abs : absolute_in_cwds(folder)) {
      std::string real = ctx_.resolve(normalize_path(abs));
      if (!real.empty() && real[0] == '/' && normalize_path(real) != normalize_path(abs))
        out.push_back(normalize_path(real) + suffix);
    }
  }

  // --- what runs ---------------------------------------------------------------------------

  void denied(const std::string& program, const std::vector<std::string>& texts,
              std::span<const ShellWord> words) {
    std::vector<std::string> args(texts.begin() + 1, texts.end());
    std::vector<std::string> match_args = args;
    if (program == "git") {
      GitGlobals g = parse_git_globals(texts);
      match_args.assign(texts.begin() + static_cast<std::ptrdiff_t>(g.subcommand), texts.end());
    }
    for (const auto& e : L_.denied) {
      if (!glob_match(e.words[0], program)) continue;
      if (match_args.size() + 1 < e.words.size()) continue;
      bool ok = true;
      for (size_t i = 1; i < e.words.size() && ok; ++i) ok = e.words[i] == match_args[i - 1];
      if (!ok) continue;
      std::string shown = program;
      for (size_t i = 1; i < e.words.size(); ++i) shown += " " + match_args[i - 1];
      add(CommandClass::kDenied, shown, "denied-command",
          fmt::format("{} is a denied command (`{}`, {}).", display(shown), e.text,  // CMD-4
                      e.source));
      return;
    }
    if (judged_by_target(program)) {
      std::string unsafe;
      args =
          shell_args(words, program == "chmod" || program == "chown" || program == "chgrp", unsafe);
      if (!unsafe.empty() && destructive(program, texts))
        add(CommandClass::kDenied, program + " " + unsafe, "denied-command",
            fmt::format(
                "{} {} cannot be expanded safely (too many matches, or a folder that "
                "cannot be read), so what it would delete or change cannot be checked.",  // CMD-4
                display(program), display(unsafe)));
    }
    if (auto r = denied_by_rule(program, args, cwds_, home_))
      add(CommandClass::kDenied, program + " " + r->word, "denied-command",
          fmt::format("{} with {} {}: a denied command.", display(program), display(r->word),
                      r->why));
  }

  void shell(std::span<const ShellWord> words, const ShellCall& sh, const std::string& program,
             int depth) {
    if (!sh.confident)
      add(CommandClass::kNeedsApproval, program, "unparsed",
          fmt::format("{} is given {}: cannot tell how its script reads.",
                      display(program),  // CMD-1
                      sh.problem));
    if (sh.script >= words.size()) {
      add(CommandClass::kNeedsApproval, program, "unparsed",
          fmt::format("{} -c has no script.", display(program)));
      return;
    }
    const ShellWord& script = words[sh.script];
    for (size_t i = sh.script + 1; i < words.size(); ++i) check_word(words[i], false, true);
    if (dynamic(script) || script.has_glob)
      add(CommandClass::kNeedsApproval, script.text, "unparsed",
          fmt::format("the script given to {} -c is only known at run time.",  // CMD-1
                      display(program)));
    line(script.text, depth + 1);
  }

  void eval(std::span<const ShellWord> words, int depth) {
    std::string joined;
    bool unknown = false;
    for (size_t i = 1; i < words.size(); ++i) {
      if (i > 1) joined += ' ';
      joined += words[i].text;
      if (dynamic(words[i]) || words[i].has_glob) unknown = true;
    }
    if (unknown)
      add(CommandClass::kNeedsApproval, joined, "unparsed",
          "the words given to `eval` are only known at run time.");  // CMD-1
    line(joined, depth + 1);
  }

  void wrapper(std::span<const ShellWord> words, const std::vector<std::string>& texts,
               const Unwrapped& u, const std::string& program, int depth,
               const std::string& fed_by) {
    const std::string inner = u.command < texts.size() ? texts[u.command] : "";
    if (!u.confident)
      add(CommandClass::kNeedsApproval, program + " " + u.problem, "unparsed",
          fmt::format("{} is given {}, an option not understood, so the command it runs is a "
                      "guess.",  // CMD-1
                      display(program), u.problem));
    if (!u.privileged.empty())
      add(CommandClass::kNeedsApproval, program, "privileged",
          fmt::format("{} {}.", display(program), u.privileged));  // CMD-2
    if (!u.writes.empty())
      add(CommandClass::kNeedsApproval, program, "write-option",
          fmt::format("{} {}.", display(program), u.writes));
    if (!u.file_list.empty())
      add(CommandClass::kNeedsApproval, u.file_list, "file-list",
          fmt::format("{} {} reads the arguments it passes on from a file, which cannot be "
                      "checked.",  // CMD-3
                      display(program), display(u.file_list)));
    for (size_t i = 1; i < u.command && i < words.size(); ++i) {
      if (std::find(u.assignments.begin(), u.assignments.end(), i) != u.assignments.end())
        assignment(words[i], inner, true);
      else
        check_word(words[i], true, false);
    }
    for (const auto& f : u.files) check_text(f, f, false);
    for (const auto& dir : u.chdirs) add_cwd(dir);
    for (const auto& s : u.scripts) line(s, depth + 1);
    if (u.command >= words.size()) {
      if (!u.scripts.empty() || !u.privileged.empty()) return;
      if (!u.implied.empty()) {
        matched_.push_back(program);  // xargs alone runs echo
        return;
      }
      read_only(program, words, texts, GitGlobals{});
      return;
    }
    argv(words.subspan(u.command), depth + 1, u.stdin_arguments ? program : fed_by);
  }

  void change_dir(std::span<const ShellWord> words) {
    size_t i = 1;
    while (i < words.size() && words[i].text.size() > 1 && words[i].text[0] == '-') {
      if (words[i].text == "--") {
        ++i;
        break;
      }
      ++i;
    }
    if (i >= words.size()) {
      add_cwd(home_);
      return;
    }
    const ShellWord& t = words[i];
    if (t.text == "-") {
      add(CommandClass::kNeedsApproval, "cd -", "unparsed",
          "`cd -` returns to a folder only known at run time.");  // CMD-1
      return;
    }
    if (dynamic(t) || t.has_glob) return;  // already needs approval
    add_cwd(t.text);
  }

  void find_exec(std::span<const ShellWord> words, int depth) {
    const std::vector<std::string> starts = find_start_points(words);
    for (size_t i = 1; i < words.size(); ++i) {
      const std::string& a = words[i].text;
      if (a != "-exec" && a != "-execdir" && a != "-ok" && a != "-okdir") continue;
      size_t j = i + 1;
      while (j < words.size() && words[j].text != ";" && words[j].text != "+") ++j;
      if (j > i + 1) {
        // `find ~ -exec rm -rf {} +` is `rm -rf ~` by another name (CMD-4).
        const std::string& run = words[i + 1].text;
        const std::string prog =
            run.substr(run.rfind('/') == std::string::npos ? 0 : run.rfind('/') + 1);
        if (destroys_targets(prog)) deny_catastrophic(starts, "find " + a + " " + prog);
        argv(words.subspan(i + 1, j - i - 1), depth + 1, "find " + a);
      }
      i = j;
    }
  }

  // find's start points: the words after -H/-L/-P/-D/-O and before the expression.
  static std::vector<std::string> find_start_points(std::span<const ShellWord> words) {
    std::vector<std::string> out;
    size_t i = 1;
    while (i < words.size()) {
      const std::string& t = words[i].text;
      if (t == "-H" || t == "-L" || t == "-P" || starts_with(t, "-O")) {
        ++i;
      } else if (t == "-D") {
        i += 2;
      } else {
        break;
      }
    }
    for (; i < words.size(); ++i) {
      const std::string& t = words[i].text;
      if (!t.empty() && (t[0] == '-' || t == "(" || t == ")" || t == "!" || t == ",")) break;
      out.push_back(t);
    }
    if (out.empty()) out.push_back(".");
    return out;
  }

  // Denies when one of `targets` is `/`, a system folder or the home folder (or holds one).
  void deny_catastrophic(const std::vector<std::string>& targets, const std::string& how) {
    for (const auto& t : targets)
      if (catastrophic_target(t, cwds_, home_))
        add(CommandClass::kDenied, how + " " + t, "denied-command",
            fmt::format("{} on {} would delete or change the whole system or home folder: a "
                        "denied command.",  // CMD-4
                        display(how, false), display(t)));
  }

  // `echo ~ | xargs rm -rf`: what the line prints (echo, printf, find's start points, ls,
  // realpath, readlink, pwd) may be what xargs hands a program that deletes or changes files.
  void note_printed(const std::string& program, std::span<const ShellWord> words) {
    if (program == "find") {
      for (const auto& s : find_start_points(words)) printed_.push_back(s);
      return;
    }
    if (program == "pwd") {
      printed_.insert(printed_.end(), cwds_.begin(), cwds_.end());
      return;
    }
    if (program != "echo" && program != "printf" && program != "ls" && program != "realpath" &&
        program != "readlink")
      return;
    for (size_t i = 1; i < words.size(); ++i) {
      const std::string& t = words[i].text;
      if (t.size() > 1 && t[0] == '-') continue;
      // `echo $HOME/` and `printf '%s\n' ~` print what they expand to.
      printed_.push_back(t);
    }
  }

  void read_only(const std::string& program, std::span<const ShellWord> words,
                 const std::vector<std::string>& texts, const GitGlobals& git) {
    const std::string& name = texts[0];
    size_t slash = name.rfind('/');
    if (slash != std::string::npos) {
      std::string dir = slash == 0 ? "/" : normalize_path(name.substr(0, slash));
      if (!system_folder(dir)) {
        add(CommandClass::kNeedsApproval, name, "not-read-only",
            fmt::format("{} is not a program from a system folder, so the read-only list does "
                        "not apply to it.",  // CMD-2
                        display(name)));
        return;
      }
    }
    if (is_judged_builtin(program)) {
      if (auto p = shell_builtin_problem(program, words)) {
        add(CommandClass::kNeedsApproval, p->word, p->rule,
            fmt::format("{}: {} {}, so it is not read-only.", display(program, false),  // CMD-2
                        display(p->word), p->why));
        return;
      }
      matched_.push_back(program);
      return;
    }
    size_t first = 1;
    if (program == "git") {
      if (!git.problem.empty()) {
        add(CommandClass::kNeedsApproval, "git " + git.problem_word, "not-read-only",
            fmt::format("{} {}.", display("git " + git.problem_word), git.problem));  // CMD-2
        return;
      }
      first = git.subcommand;
      if (foreign_git_folder(git)) return;
    }
    std::vector<std::string> args(texts.begin() + static_cast<std::ptrdiff_t>(first), texts.end());
    // `node --version`: read-only only exactly so.
    std::vector<std::string> whole{program};
    whole.insert(whole.end(), args.begin(), args.end());
    if (L_.tables.is_exact(whole)) {
      matched_.push_back(join(whole, " "));
      return;
    }
    const ClassifierEntry* user = config_entry(program, args);
    std::vector<ArgWord> aw = arg_words(words.subspan(std::min(first, words.size())));
    ProgramTables::Selection sel = L_.tables.select(program, aw);
    if (user && (!sel.spec || user->words.size() > 1 + sel.words)) {
      if (user->exact && args.size() + 1 > user->words.size()) {
        add(CommandClass::kNeedsApproval, program, "not-read-only",
            fmt::format("only `{}` on its own is on the read-only list, not with more "
                        "arguments.",  // CMD-2
                        user->text));
        return;
      }
      matched_.push_back(user->text);
      return;
    }
    if (!sel.spec || !sel.unknown_child.empty()) {
      not_listed(program, args, sel.unknown_child);
      return;
    }
    std::optional<ArgProblem> problem = sel.prefix_problem;
    if (!problem) {
      std::vector<ArgWord> rest(
          aw.begin() + static_cast<std::ptrdiff_t>(std::min(aw.size(), sel.prefix + sel.words)),
          aw.end());
      ArgContext actx;
      actx.unconfined = ctx_.unconfined;
      problem = check_program_args(*sel.spec, sel.parent, rest, actx);
    }
    if (problem) {
      // `requires:` names the table itself: `gzip` compresses in place unless -c...
      const bool named = problem->word == sel.spec->display_name();
      add(CommandClass::kNeedsApproval, named ? sel.name : problem->word, problem->rule,
          named ? fmt::format("{} {}, so it is not read-only.", display(sel.name, false),  // CMD-2
                              problem->why)
                : fmt::format("{}: {} {}, so it is not read-only.", display(sel.name, false),
                              display(problem->word), problem->why));
      return;
    }
    if ((!sel.spec->unless_upward.empty() || !sel.spec->unless_here.empty()) &&
        !upward_clean(*sel.spec, sel.name))
      return;
    matched_.push_back(sel.name);
  }

  // git with a git folder or work tree other than the project's own (issue 27, GIT-1): a git
  // folder's config names programs git runs (core.fsmonitor on `status`), and one the project
  // did not have may hold anything. So do `--git-dir`, `--work-tree`, and a working folder that
  // git would take for a bare repository (HEAD beside objects/ and refs/).
  bool foreign_git_folder(const GitGlobals& git) {
    const std::string own_dir = ctx_.project.empty() ? "" : path_join(ctx_.project, ".git");
    for (const auto& [option, value, own] :
         {std::tuple{"--git-dir", git.git_dir, own_dir},
          std::tuple{"--work-tree", git.work_tree, normalize_or_empty(ctx_.project)}}) {
      if (value.empty()) continue;
      bool ours = !own.empty();
      for (const auto& abs : absolute_in_cwds(value)) ours = ours && normalize_path(abs) == own;
      if (!ours) {
        add(CommandClass::kNeedsApproval, std::string(option) + "=" + value, "not-read-only",
            fmt::format("`git {}={}` names a {} other than the project's own, whose config can "
                        "make git run programs.",  // CMD-2
                        option, value,
                        option == std::string("--git-dir") ? "git folder" : "work tree"));
        return true;
      }
    }
    if (!ctx_.expander) return false;
    for (const auto& cwd : cwds_) {
      const std::string stop = ctx_.project.empty() ? home_ : ctx_.project;
      for (std::string d = cwd; d != stop && d != "/" && path_within(d, stop); d = path_parent(d)) {
        if (path_base(d) == ".git" || !git_shaped(d)) continue;
        add(CommandClass::kNeedsApproval, d, "not-read-only",
            fmt::format("git would use {} as its repository (HEAD beside objects/ and refs/), "
                        "a git folder other than the project's own, whose config can make git run "
                        "programs.",  // CMD-2
                        display(d)));
        return true;
      }
    }
    return false;
  }

  static std::string normalize_or_empty(const std::string& p) {
    return p.empty() ? p : normalize_path(p);
  }

  bool git_shaped(const std::string& dir) const {
    for (const char* part : {"HEAD", "objects/", "refs/"})
      if (ctx_.expander->glob(path_join(dir, part), 2).paths.empty()) return false;
    return true;
  }

  // GIT_DIR=... or GIT_WORK_TREE=... naming the project's own, for git.
  bool own_git_variable(const std::string& name, const ShellWord& value,
                        const std::string& command) const {
    if (command != "git" || ctx_.project.empty() || dynamic(value) || value.text.empty())
      return false;
    std::string own = name == "GIT_DIR"         ? path_join(ctx_.project, ".git")
                      : name == "GIT_WORK_TREE" ? normalize_path(ctx_.project)
                                                : "";
    if (own.empty()) return false;
    for (const auto& abs : absolute_in_cwds(value.text))
      if (normalize_path(abs) != own) return false;
    return true;
  }

  // Not on the list: named with its first argument when the list has longer entries for it
  // (`npm install`, `bash script.sh`), or as `only X on its own` when an exact entry starts it.
  void not_listed(const std::string& program, const std::vector<std::string>& args,
                  const std::string& child) {
    for (const auto& e : L_.tables.exact()) {
      if (e[0] != program || e.size() > args.size() + 1) continue;
      bool prefix = true;
      for (size_t i = 1; i < e.size() && prefix; ++i) prefix = e[i] == args[i - 1];
      if (prefix) {
        add(CommandClass::kNeedsApproval, program, "not-read-only",
            fmt::format("only `{}` on its own is on the read-only list, not with more "
                        "arguments.",  // CMD-2
                        join(e, " ")));
        return;
      }
    }
    std::string shown = child;
    if (shown.empty()) {
      shown = program;
      bool longer = L_.read_only.count(program) > 0;
      for (const auto& e : L_.tables.exact()) longer = longer || e[0] == program;
      if (longer && !args.empty()) shown += " " + args[0];
    }
    add(CommandClass::kNeedsApproval, shown, "not-read-only",
        fmt::format("{} is not on the read-only list.", display(shown, false)));  // CMD-2
  }

  // `[commands] read_only`: the longest entry whose words start the command; with it, the
  // rest of the words are the user's to vouch for.
  const ClassifierEntry* config_entry(const std::string& program, const std::vector<std::string>& args) {
    auto it = L_.read_only.find(program);
    if (it == L_.read_only.end()) return nullptr;
    const ClassifierEntry* best = nullptr;
    for (const auto& e : it->second) {
      const size_t n = e.words.size() - 1;
      if (args.size() < n) continue;
      bool ok = true;
      for (size_t i = 0; i < n && ok; ++i) ok = e.words[i + 1] == args[i];
      if (ok && (!best || n + 1 > best->words.size())) best = &e;
    }
    return best;
  }

  // `unless-upward`: files that make the program run the project's code (`.cargo/config.toml`,
  // `.yarnrc.yml`) must be absent from the working folder and each folder above it, up to the
  // home folder. Looked up through the expander; without one, nothing is known.
  bool upward_clean(const ProgramSpec& spec, const std::string& name) {
    if (!ctx_.expander) {
      std::vector<std::string> all = spec.unless_upward;
      all.insert(all.end(), spec.unless_here.begin(), spec.unless_here.end());
      add(CommandClass::kNeedsApproval, name, "not-read-only",
          fmt::format("{} runs the project's code when one of {} is present, and that cannot "
                      "be checked here.",  // CMD-2
                      display(name, false), join(all, ", ")));
      return false;
    }
    for (const auto& cwd : cwds_)
      for (const auto& f : spec.unless_here) {
        Expander::Matches m = ctx_.expander->glob(path_join(cwd, f), 4);
        if (!m.paths.empty() || !m.complete) {
          std::string p = m.paths.empty() ? path_join(cwd, f) : m.paths[0];
          add(CommandClass::kNeedsApproval, p, "not-read-only",
              fmt::format(
                  "{} would import {} from the working folder, so it is not read-only.",  // CMD-2
                  display(name, false), display(p)));
          return false;
        }
      }
    for (const auto& cwd : cwds_) {
      std::string dir = cwd;
      while (true) {
        if (dir == home_ && cwd != home_) break;
        for (const auto& f : spec.unless_upward) {
          std::string p = path_join(dir, f);
          Expander::Matches m = ctx_.expander->glob(p, 4);
          if (!m.paths.empty() || !m.complete) {
            add(CommandClass::kNeedsApproval, p, "not-read-only",
                fmt::format(
                    "{} runs the project's code through {}, so it is not read-only.",  // CMD-2
                    display(name, false), display(p)));
            return false;
          }
        }
        if (dir == "/") break;
        dir = path_parent(dir);
      }
    }
    return true;
  }

  // The words a program is given, as the shell will give them: a glob replaced by its matches
  // when they are known (CMD-2: a match that starts with `-` is an option nobody checked), and
  // a word only known at run time marked as such.
  std::vector<ArgWord> arg_words(std::span<const ShellWord> words) {
    std::vector<ArgWord> out;
    for (const auto& w : words) {
      if (w.process_substitution) {
        out.push_back({w.text, false, false});
        continue;
      }
      if (dynamic(w)) {
        ArgWord a{w.text, w.unquoted_expansion || w.has_brace, true};
        if (const LoopVar* v = checked_loop_var(w)) {
          a.many = v->splits && w.unquoted_expansion;
          a.may_be_option = v->option_shaped;
        } else if (w.plain_prefix >= 2 && w.text[0] == '-' && !w.risky_expansion) {
          // `--author=$(...)`, `-n$N`: the option is written out, only its value is not.
          size_t eq = w.text.find('=');
          bool name_known = w.text[1] != '-' || (eq != std::string::npos && eq < w.plain_prefix);
          if (name_known) a = ArgWord{w.text, false, false};
        }
        out.push_back(std::move(a));
        continue;
      }
      if (!w.has_glob) {
        out.push_back({w.text, false, false});
        continue;
      }
      Expansion e = expand_for_program(w.text);
      if (!e.known) {
        out.push_back({w.text, true, e.may_be_option});
        continue;
      }
      if (e.words.empty()) {
        out.push_back({w.text, false, false});  // no match: the shell keeps the word
        continue;
      }
      for (auto& m : e.words) {
        if (!m.empty() && m[0] == '-')
          add(CommandClass::kNeedsApproval, w.text, "expansion",
              fmt::format("{} expands to {}, a file name that the program would read as an "
                          "option.",  // CMD-2
                          display(w.text), display(m)));
        out.push_back({std::move(m), false, false});
      }
    }
    return out;
  }

  struct Expansion {
    bool known = false;
    bool may_be_option = false;      // unknown, and the shell could give a word starting `-`
    std::vector<std::string> words;  // as the shell passes them (relative stays relative)
  };

  // What the shell makes of a glob word (sh's defaults: no dotglob, no nullglob).
  Expansion expand_for_program(const std::string& word) {
    Expansion e;
    const bool relative = word[0] != '/' && word[0] != '~';
    e.may_be_option =
        relative && (word[0] == '*' || word[0] == '?' || word[0] == '[' || word[0] == '-');
    if (!ctx_.expander) return e;
    // The literal folder the word starts with ("src/", "../", "~/", "/etc/", or nothing): the
    // shell keeps it as written and appends what matched below it. In each folder the line may
    // be in (`cd x && ls *`), the matches are taken together.
    const size_t glob_at = word.find_first_of("*?[");
    const size_t lit = glob_at == std::string::npos ? std::string::npos : word.rfind('/', glob_at);
    const std::string lead = lit == std::string::npos ? "" : word.substr(0, lit + 1);
    const std::vector<std::string> patterns = absolute_in_cwds(word);
    const std::vector<std::string> bases = lead.empty() ? cwds_ : absolute_in_cwds(lead);
    for (size_t c = 0; c < patterns.size(); ++c) {
      const std::string base_norm = normalize_path(bases[std::min(c, bases.size() - 1)]);
      std::string pattern = patterns[c];
      const bool slash = pattern.size() > 1 && pattern.back() == '/';
      pattern = normalize_path(pattern);
      if (slash && pattern != "/") pattern += '/';
      const Expander::Matches& m = glob_once(pattern);
      if (!m.complete) {
        e.words.clear();
        return e;
      }
      for (const auto& p : m.paths) {
        if (!dot_visible(pattern, p)) continue;
        std::string w = !path_within(p, base_norm) || p.size() <= base_norm.size()
                            ? p
                            : lead + p.substr(base_norm == "/" ? 1 : base_norm.size() + 1);
        if (std::find(e.words.begin(), e.words.end(), w) == e.words.end())
          e.words.push_back(std::move(w));
      }
    }
    e.known = true;
    return e;
  }

  // A pattern's matches, read once per line (the path checks, the deny rules and the options
  // all ask for the same globs).
  const Expander::Matches& glob_once(const std::string& pattern) {
    auto it = globs_.find(pattern);
    if (it == globs_.end())
      it = globs_.emplace(pattern, ctx_.expander->glob(pattern, kMaxExpansion)).first;
    return it->second;
  }

  // sh without dotglob: a `*`, `?` or `[` never matches a leading dot.
  static bool dot_visible(const std::string& pattern, const std::string& match) {
    auto pc = path_components(pattern);
    auto mc = path_components(match);
    for (size_t i = 0; i < pc.size() && i < mc.size(); ++i)
      if (!mc[i].empty() && mc[i][0] == '.' && (pc[i].empty() || pc[i][0] != '.')) return false;
    return true;
  }

  const CommandClassifier::Lists& L_;
  const ClassifyContext& ctx_;
  const std::string home_;
  const std::shared_ptr<const CommandClassifier::Lists::PathMatchers> matchers_;
  const SensitiveMatcher& sensitive_;
  const DeniedPaths& denied_;
  std::vector<std::string> cwds_;
  std::vector<std::string> matched_;
  std::vector<std::string> printed_;         // words the line prints (note_printed)
  std::vector<std::string> xargs_destroys_;  // programs xargs runs that delete or change files
  std::map<std::string, Expander::Matches> globs_;  // glob_once
  std::unordered_set<std::string> checked_;
  // Loop variables over checked words, and whether their values could split into other words.
  std::map<std::string, LoopVar> loop_vars_;
  bool approval_at_most_ = false;
  Classification best_;
  bool have_ = false;
};

}  // namespace

Result<CommandClassifier> CommandClassifier::create(const CommandsConfig& config) {
  auto lists = std::make_shared<Lists>();
  auto make = [](std::string_view text, const char* source) {
    ClassifierEntry e;
    e.words = entry_words(text);
    e.text = join(e.words, " ");
    e.source = source;
    e.exact = e.words.size() > 1 && version_word(e.words.back()) && e.words[0] != "command";
    return e;
  };
  if (!builtin_program_tables_error().empty())
    return make_error(ErrorKind::kConfig, "the built-in read-only tables do not parse: " +
                                              builtin_program_tables_error());
  for (const auto& t : config.read_only) {
    if (auto err = check_command_entry(t, false))
      return make_error(ErrorKind::kConfig, "[commands] read_only: " + *err + ".");
    ClassifierEntry e = make(t, "[commands] read_only");
    lists->read_only[e.words[0]].push_back(std::move(e));
  }
  for (auto t : default_denied_entries()) lists->denied.push_back(make(t, "default list"));
  for (const auto& t : config.denied) {
    if (auto err = check_command_entry(t, true))
      return make_error(ErrorKind::kConfig, "[commands] denied: " + *err + ".");
    lists->denied.push_back(make(t, "[commands] denied"));
  }
  lists->sensitive = default_sensitive_paths();
  auto append = [](std::vector<std::string>& to, const std::vector<std::string>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  append(lists->sensitive.dirs, config.sensitive.dirs);
  append(lists->sensitive.files, config.sensitive.files);
  append(lists->sensitive.prefixes, config.sensitive.prefixes);
  append(lists->sensitive.extensions, config.sensitive.extensions);
  for (const auto& p : config.denied_paths) {
    bool ok = !p.empty() && (p[0] == '/' || starts_with(p, "~/"));
    std::string norm = ok ? normalize_path(p[0] == '/' ? p : p.substr(2)) : "";
    if (!ok || norm.empty() || norm == "/" ||
        (p[0] == '~' && (norm == "." || starts_with(norm, ".."))))
      return make_error(ErrorKind::kConfig,
                        fmt::format("[commands] denied_paths: \"{}\" must be absolute or start "
                                    "with \"~/\", and not be the root or the home folder.",
                                    p));
    lists->denied_paths.push_back(p);
  }
  return CommandClassifier(std::move(lists));
}

Classification CommandClassifier::classify_line(std::string_view line,
                                                const ClassifyContext& ctx) const {
  Walk walk(*lists_, ctx);
  walk.start();
  walk.line(line, 0);
  return walk.result();
}

Classification CommandClassifier::classify_argv(const std::vector<std::string>& argv,
                                                const ClassifyContext& ctx) const {
  Walk walk(*lists_, ctx);
  walk.start();
  // Without a shell, nothing expands: every word is literal.
  SimpleCommand cmd;
  for (const auto& a : argv) {
    ShellWord w;
    w.text = a;
    w.quoted = true;
    if (a.find('\0') != std::string::npos) {
      walk.line(std::string_view("\0", 1), 0);  // reported as unparsed
      return walk.result();
    }
    cmd.words.push_back(std::move(w));
  }
  walk.simple(cmd, 0);
  return walk.result();
}

}  // namespace cordon
