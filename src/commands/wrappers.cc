#include "commands/wrappers.h"

#include <initializer_list>

#include "commands/shell_tokenizer.h"
#include "core/strings.h"

namespace cordon {

namespace {


bool is_assignment(std::string_view w) {
  size_t eq = w.find('=');
  return eq != std::string_view::npos && eq > 0 && is_shell_name(w.substr(0, eq));
}

// getopt-style options of one wrapper.
struct Syntax {
  std::string_view flags;       // short options without a value
  std::string_view with_value;  // short options with a value (attached or the next word)
  std::string_view opt_value;   // short options whose value can only be attached (-i[R])
  std::initializer_list<std::string_view> long_flags;
  std::initializer_list<std::string_view> long_with_value;  // --name=v or --name v
  std::initializer_list<std::string_view> long_opt_value;   // only --name=v
  bool assignments = false;  // NAME=value words may come before the command
};

struct Scan {
  size_t next = 1;
  bool confident = true;
  std::string problem;
  std::vector<size_t> assignments;
  std::vector<std::pair<std::string, std::string>> options;  // ("-C", "dir"), ("--chdir", ...)
};

Scan scan(const std::vector<std::string>& argv, const Syntax& syn) {
  Scan s;
  size_t i = 1;
  auto unknown = [&](const std::string& a) {
    if (s.confident) s.problem = a;
    s.confident = false;
  };
  while (i < argv.size()) {
    const std::string& a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
      size_t eq = a.find('=');
      std::string name = a.substr(0, eq);
      if (is_one_of(name, syn.long_flags) && eq == std::string::npos) {
        s.options.emplace_back(name, "");
        ++i;
      } else if (is_one_of(name, syn.long_with_value)) {
        if (eq != std::string::npos) {
          s.options.emplace_back(name, a.substr(eq + 1));
          ++i;
        } else {
          s.options.emplace_back(name, i + 1 < argv.size() ? argv[i + 1] : "");
          i += 2;
        }
      } else if (is_one_of(name, syn.long_opt_value)) {
        s.options.emplace_back(name, eq == std::string::npos ? "" : a.substr(eq + 1));
        ++i;
      } else {
        unknown(a);
        ++i;
      }
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      size_t consumed = 1;
      for (size_t j = 1; j < a.size(); ++j) {
        char c = a[j];
        std::string opt = std::string("-") + c;
        if (syn.flags.find(c) != std::string_view::npos) {
          s.options.emplace_back(opt, "");
          continue;
        }
        if (syn.with_value.find(c) != std::string_view::npos) {
          if (j + 1 < a.size()) {
            s.options.emplace_back(opt, a.substr(j + 1));
          } else {
            s.options.emplace_back(opt, i + 1 < argv.size() ? argv[i + 1] : "");
            consumed = 2;
          }
          break;
        }
        if (syn.opt_value.find(c) != std::string_view::npos) {
          s.options.emplace_back(opt, a.substr(j + 1));
          break;
        }
        unknown(a);
        break;
      }
      i += consumed;
      continue;
    }
    if (syn.assignments && is_assignment(a)) {
      s.assignments.push_back(i);
      ++i;
      continue;
    }
    break;
  }
  s.next = i < argv.size() ? i : argv.size();
  return s;
}

bool has_option(const Scan& s, std::initializer_list<std::string_view> names) {
  for (const auto& [o, v] : s.options)
    if (is_one_of(o, names)) return true;
  return false;
}

}  // namespace

Unwrapped unwrap_command(std::string_view p, const std::vector<std::string>& argv) {
  Unwrapped u;
  Scan s;
  if (p == "env") {
    // `env -` is `env -i`.
    std::vector<std::string> args = argv;
    for (size_t i = 1; i < args.size() && args[i] != "--"; ++i)
      if (args[i] == "-") args[i] = "-i";
    s = scan(args, {"i0v",
                    "uCS",
                    "",
                    {"--ignore-environment", "--null", "--debug", "--list-signal-handling"},
                    {"--unset", "--chdir", "--split-string"},
                    {"--ignore-signal", "--default-signal", "--block-signal"},
                    true});
    for (const auto& [o, v] : s.options) {
      if (o == "-C" || o == "--chdir") u.chdirs.push_back(v);
      if (o == "-S" || o == "--split-string") {
        s.confident = false;
        s.problem = o + " (splits a string into arguments)";
      }
    }
  } else if (p == "nice") {
    std::vector<std::string> args = argv;
    // nice -10 and nice --10 (an adjustment written as an option).
    if (args.size() > 1 && args[1].size() > 1 && args[1][0] == '-') {
      std::string_view n = args[1];
      n.remove_prefix(n.size() > 2 && n[1] == '-' ? 2 : 1);
      bool digits = !n.empty();
      for (char c : n)
        if (c < '0' || c > '9') digits = false;
      if (digits) args[1] = "--adjustment=" + std::string(n);
    }
    s = scan(args, {"", "n", "", {}, {"--adjustment"}, {}, false});
  } else if (p == "nohup") {
    s = scan(argv, {"", "", "", {}, {}, {}, false});
    u.writes = "may write nohup.out";
  } else if (p == "timeout") {
    s = scan(argv, {"v",
                    "ks",
                    "",
                    {"--preserve-status", "--foreground", "--verbose"},
                    {"--kill-after", "--signal"},
                    {},
                    false});
    if (s.next < argv.size()) ++s.next;  // the duration
  } else if (p == "stdbuf") {
    s = scan(argv, {"", "ioe", "", {}, {"--input", "--output", "--error"}, {}, false});
  } else if (p == "setsid") {
    s = scan(argv, {"cfw", "", "", {"--ctty", "--fork", "--wait"}, {}, {}, false});
  } else if (p == "ionice") {
    s = scan(argv, {"tu",
                    "cnpPu",
                    "",
                    {"--ignore"},
                    {"--class", "--classdata", "--pid", "--pgid", "--uid"},
                    {},
                    false});
    if (has_option(s, {"-p", "-P", "-u", "--pid", "--pgid", "--uid"}))
      u.writes = "changes the priority of other processes";
  } else if (p == "time") {
    s = scan(argv, {"pvqa",
                    "of",
                    "",
                    {"--portability", "--verbose", "--quiet", "--append"},
                    {"--output", "--format"},
                    {},
                    false});
    for (const auto& [o, v] : s.options)
      if (o == "-o" || o == "--output") u.writes = "writes its report to " + v;
  } else if (p == "exec") {
    s = scan(argv, {"cl", "a", "", {}, {}, {}, false});
  } else if (p == "command") {
    s = scan(argv, {"pvV", "", "", {}, {}, {}, false});
    if (has_option(s, {"-v", "-V"})) return u;  // a lookup, not a wrapper
  } else if (p == "builtin") {
    s = scan(argv, {"", "", "", {}, {}, {}, false});
  } else if (p == "xargs") {
    s = scan(argv, {"0prtx",
                    "adEILnPs",
                    "eil",
                    {"--null", "--interactive", "--no-run-if-empty", "--verbose", "--exit",
                     "--open-tty", "--show-limits"},
                    {"--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs",
                     "--max-chars", "--process-slot-var"},
                    {"--eof", "--replace"},
                    false});
    for (const auto& [o, v] : s.options)
      if (o == "-a" || o == "--arg-file") {
        u.files.push_back(v);
        u.file_list = o + " " + v;
      }
    u.stdin_arguments = true;
    u.implied = "echo";
  } else if (p == "sudo") {
    s = scan(argv,
             {"AbEeHiKklnPSsVv",
              "CDghpRrTtUu",
              "",
              {"--askpass", "--background", "--edit", "--help", "--login", "--list",
               "--non-interactive", "--preserve-groups", "--remove-timestamp", "--reset-timestamp",
               "--shell", "--stdin", "--validate", "--version", "--bell"},
              {"--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role",
               "--type", "--command-timeout", "--other-user", "--user"},
              {"--preserve-env"},
              true});
    u.privileged = "runs the command as another user";
    s.confident = true;  // needs approval anyway; the guess is only used to find denied ones
    for (const auto& [o, v] : s.options)
      if (o == "-D" || o == "--chdir") u.chdirs.push_back(v);
  } else if (p == "doas") {
    s = scan(argv, {"Lns", "uC", "", {}, {}, {}, false});
    u.privileged = "runs the command as another user";
    s.confident = true;
  } else if (p == "su") {
    // su [options] [-] [user [args]]: options may come after the user (getopt permutes), and
    // the command is the value of -c, not an operand.
    for (size_t i = 1; i < argv.size(); ++i) {
      const std::string& a = argv[i];
      if (a == "--") break;
      if (a == "-c" || a == "--command" || a == "--session-command") {
        if (i + 1 < argv.size()) u.scripts.push_back(argv[++i]);
      } else if (starts_with(a, "--command=") || starts_with(a, "--session-command=")) {
        u.scripts.push_back(a.substr(a.find('=') + 1));
      } else if (a.size() > 2 && a[0] == '-' && a[1] != '-' && a.back() == 'c') {
        if (i + 1 < argv.size()) u.scripts.push_back(argv[++i]);
      } else if (a.size() > 2 && a[0] == '-' && a[1] != '-' && a.find('c') != std::string::npos) {
        u.scripts.push_back(a.substr(a.find('c') + 1));
      }
    }
    u.privileged = "runs commands as another user";
    u.is_wrapper = true;
    u.command = argv.size();  // the rest is a user name and shell arguments
    return u;
  } else if (p == "watch") {
    // watch [options] command: joined and run by `sh -c` (or run as is with -x); either way
    // the words that follow are the command.
    s = scan(argv, {"bcdeghptx",
                    "nqs",
                    "",
                    {"--beep", "--color", "--no-color", "--errexit", "--chgexit", "--no-title",
                     "--precise", "--exec", "--no-wrap", "--differences"},
                    {"--interval", "--equexit", "--shell-command"},
                    {"--differences"},
                    false});
  } else if (p == "busybox") {
    u.is_wrapper = true;
    u.command = argv.size() > 1 ? 1 : argv.size();
    return u;
  } else {
    return u;
  }
  u.is_wrapper = true;
  u.command = s.next;
  u.confident = s.confident;
  u.problem = s.problem;
  u.assignments = s.assignments;
  return u;
}

ShellCall parse_shell_call(std::string_view p, const std::vector<std::string>& argv) {
  ShellCall c;
  if (!is_one_of(p, {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "posh", "yash", "rbash"}))
    return c;
  c.is_shell = true;
  auto doubt = [&](const std::string& why) {
    if (c.confident) c.problem = why;
    c.confident = false;
  };
  size_t i = 1;
  bool reads_stdin = false;
  while (i < argv.size()) {
    const std::string& a = argv[i];
    if (a == "--" || a == "-") {
      ++i;
      break;
    }
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
      if (is_one_of(a, {"--login", "--noprofile", "--norc", "--posix", "--restricted", "--verbose",
                        "--noediting", "--noprofile"})) {
        ++i;
      } else if (a == "--rcfile" || a == "--init-file") {
        doubt(a + " (reads another startup file)");
        i += 2;
      } else if (a == "--version" || a == "--help") {
        return c;  // prints and exits
      } else {
        doubt(a + " (an option we do not know)");
        ++i;
      }
      continue;
    }
    if (a.size() > 1 && (a[0] == '-' || a[0] == '+')) {
      size_t values = 0;
      for (size_t j = 1; j < a.size(); ++j) {
        char ch = a[j];
        if (ch == 'c') {
          c.has_command_string = true;
        } else if (ch == 's') {
          reads_stdin = true;
        } else if (ch == 'o') {
          ++values;
        } else if (ch == 'O') {
          ++values;
          doubt(a + " (a shell option that changes how words expand)");
        } else if (ch == 'k') {
          doubt(a + " (lets any word set the environment)");
        } else if (ch == 'i') {
          doubt(a + " (an interactive shell expands aliases and history, like !cmd)");
        } else if (std::string_view("abefhimnprstuvxBCEHPTlD").find(ch) == std::string_view::npos) {
          doubt(a + " (an option we do not know)");
        }
      }
      i += 1 + values;
      continue;
    }
    break;
  }
  if (c.has_command_string) c.script = i;
  c.stdin_script = !c.has_command_string && (i >= argv.size() || reads_stdin);
  return c;
}

GitGlobals parse_git_globals(const std::vector<std::string>& argv) {
  GitGlobals g;
  auto problem = [&](const std::string& word, const std::string& why) {
    if (g.problem.empty()) {
      g.problem_word = word;
      g.problem = why;
    }
  };
  // Display settings only: anything else may name a program (core.pager, core.fsmonitor,
  // core.sshCommand, diff.external, alias.*, *.textconv, credential.helper, ...).
  auto allowed_key = [](std::string key) {
    key = to_lower(key);
    for (const char* prefix : {"color.", "advice.", "column."})
      if (starts_with(key, prefix)) return true;
    return is_one_of(key, {"core.quotepath",
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
                           "init.defaultbranch"});
  };
  size_t i = 1;
  while (i < argv.size()) {
    const std::string& a = argv[i];
    std::string name = a.substr(0, a.find('='));
    const bool has_value = a.find('=') != std::string::npos;
    if (a == "-C") {
      if (i + 1 < argv.size()) g.chdirs.push_back(argv[i + 1]);
      i += 2;
    } else if (a == "-c") {
      std::string kv = i + 1 < argv.size() ? argv[i + 1] : "";
      std::string key = kv.substr(0, kv.find('='));
      if (!allowed_key(key))
        problem("-c " + kv, "sets " + key + ", a setting that can name a program to run");
      i += 2;
    } else if (name == "--config-env") {
      problem(a, "takes a setting from the environment, which cannot be checked");
      i += has_value ? 1 : 2;
    } else if (name == "--exec-path" && has_value) {
      problem(a, "changes where git finds the programs it runs");
      ++i;
    } else if (is_one_of(name, {"--git-dir", "--work-tree", "--namespace", "--super-prefix",
                                "--attr-source"})) {
      std::string value = has_value ? a.substr(a.find('=') + 1)
                                    : (i + 1 < argv.size() ? argv[i + 1] : std::string());
      if (name == "--git-dir") g.git_dir = value.empty() ? "." : value;
      if (name == "--work-tree") g.work_tree = value.empty() ? "." : value;
      i += has_value ? 1 : 2;
    } else if (is_one_of(a, {"--no-pager", "-P", "-p", "--paginate", "--bare",
                             "--no-replace-objects", "--no-lazy-fetch", "--literal-pathspecs",
                             "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
                             "--no-optional-locks", "--no-advice"})) {
      ++i;
    } else {
      break;
    }
  }
  g.subcommand = i < argv.size() ? i : argv.size();
  return g;
}

}  // namespace cordon
