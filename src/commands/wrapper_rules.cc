#include "commands/wrapper_rules.h"

#include "core/strings.h"

namespace cordon {

namespace {

// `env -` is `env -i`.
std::vector<std::string> env_lone_dash(std::vector<std::string> args) {
  for (size_t i = 1; i < args.size() && args[i] != "--"; ++i)
    if (args[i] == "-") args[i] = "-i";
  return args;
}

// nice -10 and nice --10 (an adjustment written as an option).
std::vector<std::string> nice_adjustment(std::vector<std::string> args) {
  if (args.size() > 1 && args[1].size() > 1 && args[1][0] == '-') {
    std::string_view n = args[1];
    n.remove_prefix(n.size() > 2 && n[1] == '-' ? 2 : 1);
    bool digits = !n.empty();
    for (char c : n)
      if (c < '0' || c > '9') digits = false;
    if (digits) args[1] = "--adjustment=" + std::string(n);
  }
  return args;
}

// su [options] [-] [user [args]]: options may come after the user (getopt permutes), and the
// command is the value of -c, not an operand.
Unwrapped su_scripts(const std::vector<std::string>& argv) {
  Unwrapped u;
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
}

constexpr std::string_view kAnotherUser = "runs the command as another user";

const std::vector<WrapperRule>& wrapper_table() {
  using E = WrapperEffect;
  static const std::vector<WrapperRule> kRules = {
      {.name = "env",
       .syntax = {.flags = "i0v",
                  .with_value = "uCS",
                  .long_flags = {"--ignore-environment", "--null", "--debug",
                                 "--list-signal-handling"},
                  .long_with_value = {"--unset", "--chdir", "--split-string"},
                  .long_opt_value = {"--ignore-signal", "--default-signal", "--block-signal"},
                  .assignments = true},
       .options = {{{"-C", "--chdir"}, E::kChdir},
                   {{"-S", "--split-string"}, E::kUnparsed, "splits a string into arguments"}},
       .rewrite = env_lone_dash},
      {.name = "nice",
       .syntax = {.with_value = "n", .long_with_value = {"--adjustment"}},
       .rewrite = nice_adjustment},
      {.name = "nohup", .writes = "may write nohup.out"},
      {.name = "timeout",
       .syntax = {.flags = "v",
                  .with_value = "ks",
                  .long_flags = {"--preserve-status", "--foreground", "--verbose"},
                  .long_with_value = {"--kill-after", "--signal"}},
       .operands = 1},  // the duration
      {.name = "stdbuf",
       .syntax = {.with_value = "ioe", .long_with_value = {"--input", "--output", "--error"}}},
      {.name = "setsid", .syntax = {.flags = "cfw", .long_flags = {"--ctty", "--fork", "--wait"}}},
      {.name = "ionice",
       .syntax = {.flags = "tu",  // -u is read as a flag: listed first
                  .with_value = "cnpPu",
                  .long_flags = {"--ignore"},
                  .long_with_value = {"--class", "--classdata", "--pid", "--pgid", "--uid"}},
       .options = {{{"-p", "-P", "-u", "--pid", "--pgid", "--uid"},
                    E::kWrites,
                    "changes the priority of other processes"}}},
      {.name = "time",
       .syntax = {.flags = "pvqa",
                  .with_value = "of",
                  .long_flags = {"--portability", "--verbose", "--quiet", "--append"},
                  .long_with_value = {"--output", "--format"}},
       .options = {{{"-o", "--output"}, E::kWrites, "writes its report to {}"}}},
      {.name = "exec", .syntax = {.flags = "cl", .with_value = "a"}},
      {.name = "command", .syntax = {.flags = "pvV"}, .options = {{{"-v", "-V"}, E::kLookup}}},
      {.name = "builtin"},
      {.name = "xargs",
       .syntax = {.flags = "0prtx",
                  .with_value = "adEILnPs",
                  .opt_value = "eil",
                  .long_flags = {"--null", "--interactive", "--no-run-if-empty", "--verbose",
                                 "--exit", "--open-tty", "--show-limits"},
                  .long_with_value = {"--arg-file", "--delimiter", "--max-lines", "--max-args",
                                      "--max-procs", "--max-chars", "--process-slot-var"},
                  .long_opt_value = {"--eof", "--replace"}},
       .options = {{{"-a", "--arg-file"}, E::kArgumentFile}},
       .implied = "echo",
       .stdin_arguments = true},
      {.name = "sudo",
       .syntax = {.flags = "AbEeHiKklnPSsVv",
                  .with_value = "CDghpRrTtUu",
                  .long_flags = {"--askpass", "--background", "--edit", "--help", "--login",
                                 "--list", "--non-interactive", "--preserve-groups",
                                 "--remove-timestamp", "--reset-timestamp", "--shell", "--stdin",
                                 "--validate", "--version", "--bell"},
                  .long_with_value = {"--close-from", "--chdir", "--group", "--host", "--prompt",
                                      "--chroot", "--role", "--type", "--command-timeout",
                                      "--other-user", "--user"},
                  .long_opt_value = {"--preserve-env"},
                  .assignments = true},
       .options = {{{"-D", "--chdir"}, E::kChdir}},
       .privileged = kAnotherUser},
      {.name = "doas", .syntax = {.flags = "Lns", .with_value = "uC"}, .privileged = kAnotherUser},
      {.name = "su", .reader = su_scripts},
      // watch [options] command: joined and run by `sh -c` (or run as is with -x); either way
      // the words that follow are the command.
      {.name = "watch",
       .syntax = {.flags = "bcdeghptx",
                  .with_value = "nqs",
                  .long_flags = {"--beep", "--color", "--no-color", "--errexit", "--chgexit",
                                 "--no-title", "--precise", "--exec", "--no-wrap", "--differences"},
                  .long_with_value = {"--interval", "--equexit", "--shell-command"},
                  .long_opt_value = {"--differences"}}},
      {.name = "busybox", .no_options = true},
  };
  return kRules;
}

}  // namespace

const WrapperRule* find_wrapper_rule(std::string_view program) {
  for (const auto& r : wrapper_table())
    if (r.name == program) return &r;
  return nullptr;
}

}  // namespace cordon
