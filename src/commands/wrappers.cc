#include "commands/wrappers.h"

#include <algorithm>
#include <initializer_list>

#include "commands/shell_tokenizer.h"
#include "commands/wrapper_rules.h"
#include "core/strings.h"

namespace cordon {

namespace {

template <typename List>
bool listed_in(std::string_view a, const List& list) {
  for (auto s : list)
    if (a == s) return true;
  return false;
}

bool is_assignment(std::string_view w) {
  size_t eq = w.find('=');
  return eq != std::string_view::npos && eq > 0 && is_shell_name(w.substr(0, eq));
}

struct Scan {
  size_t next = 1;
  bool confident = true;
  std::string problem;
  std::vector<size_t> assignments;
  std::vector<std::pair<std::string, std::string>> options;  // ("-C", "dir"), ("--chdir", ...)

  void unknown(const std::string& word) {
    if (confident) problem = word;
    confident = false;
  }
};

// Reads the long option argv[i] (--name or --name=v); returns the words it takes.
size_t scan_long(const std::vector<std::string>& argv, size_t i, const WrapperSyntax& syn,
                 Scan& s) {
  const std::string& a = argv[i];
  const size_t eq = a.find('=');
  const bool attached = eq != std::string::npos;
  std::string name = a.substr(0, eq);
  if (listed_in(name, syn.long_flags) && !attached) {
    s.options.emplace_back(name, "");
  } else if (listed_in(name, syn.long_with_value)) {
    if (attached) {
      s.options.emplace_back(name, a.substr(eq + 1));
    } else {
      s.options.emplace_back(name, i + 1 < argv.size() ? argv[i + 1] : "");
      return 2;
    }
  } else if (listed_in(name, syn.long_opt_value)) {
    s.options.emplace_back(name, attached ? a.substr(eq + 1) : "");
  } else {
    s.unknown(a);
  }
  return 1;
}

// Reads the cluster of short options argv[i] (-ab, -n5, -n 5); returns the words it takes.
size_t scan_short(const std::vector<std::string>& argv, size_t i, const WrapperSyntax& syn,
                  Scan& s) {
  const std::string& a = argv[i];
  for (size_t j = 1; j < a.size(); ++j) {
    const char c = a[j];
    std::string opt = std::string("-") + c;
    if (syn.flags.find(c) != std::string_view::npos) {
      s.options.emplace_back(opt, "");
    } else if (syn.with_value.find(c) != std::string_view::npos) {
      if (j + 1 < a.size()) {
        s.options.emplace_back(opt, a.substr(j + 1));
        return 1;
      }
      s.options.emplace_back(opt, i + 1 < argv.size() ? argv[i + 1] : "");
      return 2;
    } else if (syn.opt_value.find(c) != std::string_view::npos) {
      s.options.emplace_back(opt, a.substr(j + 1));
      return 1;
    } else {
      s.unknown(a);
      return 1;
    }
  }
  return 1;
}

// getopt's reading, stopping at the first operand (or after `--`).
Scan scan(const std::vector<std::string>& argv, const WrapperSyntax& syn) {
  Scan s;
  size_t i = 1;
  while (i < argv.size()) {
    const std::string& a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.size() > 2 && a[0] == '-' && a[1] == '-')
      i += scan_long(argv, i, syn, s);
    else if (a.size() > 1 && a[0] == '-')
      i += scan_short(argv, i, syn, s);
    else if (syn.assignments && is_assignment(a))
      s.assignments.push_back(i++);
    else
      break;
  }
  s.next = std::min(i, argv.size());
  return s;
}

// `text` with "{}" replaced by `value`.
std::string fill_value(std::string_view text, const std::string& value) {
  std::string out(text);
  const size_t at = out.find("{}");
  if (at != std::string::npos) out.replace(at, 2, value);
  return out;
}

// What the options given do, in order. False: it only looks a name up (not a wrapper).
bool apply_options(const WrapperRule& rule, Scan& s, Unwrapped& u) {
  for (const auto& [o, v] : s.options)
    for (const auto& opt : rule.options) {
      if (!listed_in(o, opt.names)) continue;
      switch (opt.effect) {
        case WrapperEffect::kLookup:
          return false;
        case WrapperEffect::kChdir:
          u.chdirs.push_back(v);
          break;
        case WrapperEffect::kArgumentFile:
          u.files.push_back(v);
          u.file_list = o + " " + v;
          break;
        case WrapperEffect::kWrites:
          u.writes = fill_value(opt.text, v);
          break;
        case WrapperEffect::kUnparsed:
          s.confident = false;
          s.problem = o + " (" + std::string(opt.text) + ")";
          break;
      }
    }
  return true;
}

}  // namespace

Unwrapped unwrap_command(std::string_view p, const std::vector<std::string>& argv) {
  const WrapperRule* rule = find_wrapper_rule(p);
  if (rule == nullptr) return {};
  if (rule->reader != nullptr) return rule->reader(argv);
  Unwrapped u;
  u.writes = rule->writes;
  u.privileged = rule->privileged;
  u.implied = rule->implied;
  u.stdin_arguments = rule->stdin_arguments;
  Scan s;
  if (!rule->no_options) s = scan(rule->rewrite ? rule->rewrite(argv) : argv, rule->syntax);
  if (!apply_options(*rule, s, u)) return {};
  if (!rule->privileged.empty()) s.confident = true;  // the guess only finds denied commands
  u.is_wrapper = true;
  u.command = std::min(s.next + rule->operands, argv.size());
  u.confident = s.confident;
  u.problem = s.problem;
  u.assignments = s.assignments;
  return u;
}

namespace {

void doubt(ShellCall& c, const std::string& why) {
  if (c.confident) c.problem = why;
  c.confident = false;
}

// A shell's long option; returns the words it takes, 0 when the shell only prints and exits.
size_t shell_long_option(const std::string& a, ShellCall& c) {
  if (is_one_of(a, {"--login", "--noprofile", "--norc", "--posix", "--restricted", "--verbose",
                    "--noediting"}))
    return 1;
  if (a == "--rcfile" || a == "--init-file") {
    doubt(c, a + " (reads another startup file)");
    return 2;
  }
  if (a == "--version" || a == "--help") return 0;
  doubt(c, a + " (an option we do not know)");
  return 1;
}

// A cluster of a shell's short options (-eo, +x, -lc); returns the words it takes.
size_t shell_short_options(const std::string& a, ShellCall& c, bool& reads_stdin) {
  size_t values = 0;
  for (size_t j = 1; j < a.size(); ++j) {
    const char ch = a[j];
    if (ch == 'c') {
      c.has_command_string = true;
    } else if (ch == 's') {
      reads_stdin = true;
    } else if (ch == 'o') {
      ++values;
    } else if (ch == 'O') {
      ++values;
      doubt(c, a + " (a shell option that changes how words expand)");
    } else if (ch == 'k') {
      doubt(c, a + " (lets any word set the environment)");
    } else if (ch == 'i') {
      doubt(c, a + " (an interactive shell expands aliases and history, like !cmd)");
    } else if (std::string_view("abefhimnprstuvxBCEHPTlD").find(ch) == std::string_view::npos) {
      doubt(c, a + " (an option we do not know)");
    }
  }
  return 1 + values;
}

}  // namespace

ShellCall parse_shell_call(std::string_view p, const std::vector<std::string>& argv) {
  ShellCall c;
  if (!is_one_of(p, {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "posh", "yash", "rbash"}))
    return c;
  c.is_shell = true;
  size_t i = 1;
  bool reads_stdin = false;
  while (i < argv.size()) {
    const std::string& a = argv[i];
    if (a == "--" || a == "-") {
      ++i;
      break;
    }
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
      const size_t words = shell_long_option(a, c);
      if (words == 0) return c;
      i += words;
    } else if (a.size() > 1 && (a[0] == '-' || a[0] == '+')) {
      i += shell_short_options(a, c, reads_stdin);
    } else {
      break;
    }
  }
  if (c.has_command_string) c.script = i;
  c.stdin_script = !c.has_command_string && (i >= argv.size() || reads_stdin);
  return c;
}

namespace {

// Display settings only: anything else may name a program (core.pager, core.fsmonitor,
// core.sshCommand, diff.external, alias.*, *.textconv, credential.helper, ...).
bool display_setting(std::string_view key_as_given) {
  static constexpr std::string_view kPrefixes[] = {"color.", "advice.", "column."};
  static constexpr std::string_view kKeys[] = {"core.quotepath",
                                               "core.abbrev",
                                               "core.precomposeunicode",
                                               "log.decorate",
                                               "log.date",
                                               "log.abbrevcommit",
                                               "log.follow",
                                               "log.showroot",
                                               "diff.renames",
                                               "diff.noprefix",
                                               "diff.mnemonicprefix",
                                               "diff.relative",
                                               "diff.context",
                                               "status.short",
                                               "status.branch",
                                               "grep.linenumber",
                                               "grep.patterntype",
                                               "grep.extendedregexp",
                                               "i18n.logoutputencoding",
                                               "init.defaultbranch"};
  const std::string key = to_lower(key_as_given);
  for (auto prefix : kPrefixes)
    if (starts_with(key, prefix)) return true;
  return listed_in(key, kKeys);
}

// git's global options that take a value (--name=v or --name v) and only name places.
constexpr std::string_view kGitValueOptions[] = {"--git-dir", "--work-tree", "--namespace",
                                                 "--super-prefix", "--attr-source"};
constexpr std::string_view kGitFlags[] = {"--no-pager",
                                          "-P",
                                          "-p",
                                          "--paginate",
                                          "--bare",
                                          "--no-replace-objects",
                                          "--no-lazy-fetch",
                                          "--literal-pathspecs",
                                          "--glob-pathspecs",
                                          "--noglob-pathspecs",
                                          "--icase-pathspecs",
                                          "--no-optional-locks",
                                          "--no-advice"};

void git_problem(GitGlobals& g, const std::string& word, const std::string& why) {
  if (!g.problem.empty()) return;
  g.problem_word = word;
  g.problem = why;
}

// git's global option at argv[i]; returns the words it takes, 0 when it is not one.
size_t git_global(const std::vector<std::string>& argv, size_t i, GitGlobals& g) {
  const std::string& a = argv[i];
  const std::string name = a.substr(0, a.find('='));
  const bool has_value = a.find('=') != std::string::npos;
  const std::string next = i + 1 < argv.size() ? argv[i + 1] : std::string();
  if (a == "-C") {
    if (i + 1 < argv.size()) g.chdirs.push_back(next);
    return 2;
  }
  if (a == "-c") {
    const std::string key = next.substr(0, next.find('='));
    if (!display_setting(key))
      git_problem(g, "-c " + next, "sets " + key + ", a setting that can name a program to run");
    return 2;
  }
  if (name == "--config-env") {
    git_problem(g, a, "takes a setting from the environment, which cannot be checked");
    return has_value ? 1 : 2;
  }
  if (name == "--exec-path" && has_value) {
    git_problem(g, a, "changes where git finds the programs it runs");
    return 1;
  }
  if (listed_in(name, kGitValueOptions)) {
    const std::string value = has_value ? a.substr(a.find('=') + 1) : next;
    if (name == "--git-dir") g.git_dir = value.empty() ? "." : value;
    if (name == "--work-tree") g.work_tree = value.empty() ? "." : value;
    return has_value ? 1 : 2;
  }
  return listed_in(a, kGitFlags) ? 1 : 0;
}

}  // namespace

GitGlobals parse_git_globals(const std::vector<std::string>& argv) {
  GitGlobals g;
  size_t i = 1;
  while (i < argv.size()) {
    const size_t words = git_global(argv, i, g);
    if (words == 0) break;
    i += words;
  }
  g.subcommand = std::min(i, argv.size());
  return g;
}

}  // namespace cordon
