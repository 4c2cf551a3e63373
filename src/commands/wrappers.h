// Programs that run another command (CMD-1): where, in their argv, the real command starts.
// Pure; argv[0] is the wrapper itself.
//
//   unwrap_command("env", {"env", "-i", "-u", "HOME", "LANG=C", "ls", "-l"});
//   // .command == 5 ("ls"), .assignments == {4}
//   parse_shell_call("bash", {"bash", "-lc", "make test"});   // .script == 2
//   parse_git_globals({"git", "-C", "src", "-c", "color.ui=never", "log"});  // .subcommand == 5
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cordon {

struct Unwrapped {
  bool is_wrapper = false;
  size_t command = 0;               // index of the command it runs; argv.size() when there is none
  bool confident = true;            // false: an option we do not know; `command` is a guess
  std::string problem;              // that option
  std::vector<size_t> assignments;  // NAME=value words that set the command's environment
  std::vector<std::string> chdirs;  // folders it runs the command in (`env -C DIR`)
  std::vector<std::string> files;   // files it reads itself (`xargs -a FILE`)
  // Non-empty: the command's arguments (file names) come from a file it reads (`xargs -a
  // FILE`), which cannot be checked (CMD-3).
  std::string file_list;
  std::string privileged;            // non-empty: it runs the command as another user
  std::string writes;                // non-empty: it writes a file of its own (`nohup.out`)
  bool stdin_arguments = false;      // xargs: the command gets arguments read from stdin
  std::string implied;               // what runs when no command is given ("echo" for xargs)
  std::vector<std::string> scripts;  // shell strings it runs (`su -c STRING`)
};

// env, nice, nohup, timeout, stdbuf, setsid, ionice, time, exec, command, builtin, xargs, sudo,
// doas, su, watch, busybox: one entry each in wrapper_rules.cc. Any other program: is_wrapper ==
// false. `command -v` and `command -V` only look a name up: not a wrapper either.
Unwrapped unwrap_command(std::string_view program, const std::vector<std::string>& argv);

struct ShellCall {
  bool is_shell = false;            // sh, bash, zsh, dash, ksh, mksh, ash, posh, yash
  bool has_command_string = false;  // -c was given: the script is argv[script]
  size_t script = 0;
  bool stdin_script = false;  // no -c and no script file (or -s): the script is standard input
  bool confident = true;      // false: an option that changes how the script reads (-O extglob)
  std::string problem;
};
ShellCall parse_shell_call(std::string_view program, const std::vector<std::string>& argv);

struct GitGlobals {
  size_t subcommand = 1;            // index of the first word after git's global options
  std::vector<std::string> chdirs;  // -C DIR, in order
  // --git-dir and --work-tree as given (the last of each), "" when not given.
  std::string git_dir, work_tree;
  std::string problem_word;  // a global option that can make any git command run a program
  std::string problem;       // why
};
// Skips `-C DIR`, `-c k=v`, `--git-dir[=]`, `--work-tree[=]`, `--namespace[=]`, `--no-pager`,
// `-P`, `-p`, `--paginate`, `--bare`, `--no-replace-objects`, `--literal-pathspecs` and the
// other global options. `-c` keys outside a small list of display settings are a problem: a
// key such as core.pager, core.fsmonitor or alias.* runs a program.
GitGlobals parse_git_globals(const std::vector<std::string>& argv);

}  // namespace cordon
