// CMD-1: a wrapper program (env, nice, timeout, xargs, sudo, ...) is peeled to find the command
// it runs; an option of the wrapper nobody listed makes the command a guess (not confident).
// One test per entry of the wrappers' table, with its edge cases.
#include "commands/wrappers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cordon {
namespace {

Unwrapped un(std::vector<std::string> argv) { return unwrap_command(argv[0], argv); }

// Where the command starts, and whether the options were all understood.
void at(const std::vector<std::string>& argv, size_t command, bool confident = true) {
  SCOPED_TRACE(testing::PrintToString(argv));
  Unwrapped u = un(argv);
  EXPECT_TRUE(u.is_wrapper);
  EXPECT_EQ(u.command, command);
  EXPECT_EQ(u.confident, confident);
}

std::string problem(const std::vector<std::string>& argv) { return un(argv).problem; }

TEST(Wrappers, NotAWrapper) {  // CMD-1
  EXPECT_FALSE(un({"ls", "-l"}).is_wrapper);
  EXPECT_FALSE(un({"envy", "ls"}).is_wrapper);
  EXPECT_FALSE(un({"sh", "-c", "ls"}).is_wrapper);
}

TEST(Wrappers, Env) {  // CMD-1
  Unwrapped u = un({"env", "-i", "-u", "HOME", "LANG=C", "ls", "-l"});
  EXPECT_EQ(u.command, 5u);
  EXPECT_EQ(u.assignments, std::vector<size_t>{4});
  at({"env", "-", "ls"}, 2);  // `env -` is `env -i`
  at({"env", "-", "-", "ls"}, 3);
  at({"env", "-iu", "HOME", "ls"}, 3);
  at({"env", "-uHOME", "ls"}, 2);
  at({"env", "--unset", "HOME", "ls"}, 3);
  at({"env", "--unset=HOME", "ls"}, 2);
  at({"env", "--ignore-signal=INT", "--default-signal", "ls"}, 3);
  at({"env", "--", "ls"}, 2);
  at({"env", "--", "A=1", "ls"}, 2);  // after --, a NAME=value word is the command
  at({"env", "A=1", "B=2"}, 3);
  at({"env"}, 1);
  EXPECT_EQ(un({"env", "-C", "src", "--chdir=lib", "ls"}).chdirs,
            (std::vector<std::string>{"src", "lib"}));
  EXPECT_EQ(un({"env", "-Csrc", "ls"}).chdirs, std::vector<std::string>{"src"});
  at({"env", "-S", "ls -l"}, 3, false);
  EXPECT_EQ(problem({"env", "-S", "ls -l"}), "-S (splits a string into arguments)");
  EXPECT_EQ(problem({"env", "--split-string=ls"}),
            "--split-string (splits a string into arguments)");
  // -S names itself even after an unknown option.
  EXPECT_EQ(problem({"env", "--frob", "-S", "ls"}), "-S (splits a string into arguments)");
  at({"env", "--frobnicate", "ls"}, 2, false);
  EXPECT_EQ(problem({"env", "--frobnicate", "ls"}), "--frobnicate");
  EXPECT_EQ(problem({"env", "-x", "-y", "ls"}), "-x");  // the first unknown one
  EXPECT_EQ(problem({"env", "-ix", "ls"}), "-ix");
  at({"env", "--null=1", "ls"}, 2, false);  // a flag given a value
  at({"env", "--ignore-signal", "ls"}, 2);  // an attached-only value, not given
}

TEST(Wrappers, Nice) {  // CMD-1
  at({"nice", "ls"}, 1);
  at({"nice", "-10", "ls"}, 2);
  at({"nice", "--10", "ls"}, 2);
  at({"nice", "-n", "5", "ls"}, 3);
  at({"nice", "-n5", "ls"}, 2);
  at({"nice", "--adjustment=5", "ls"}, 2);
  at({"nice", "--adjustment", "5", "ls"}, 3);
  at({"nice", "-1a", "ls"}, 2, false);
  EXPECT_EQ(problem({"nice", "-1a", "ls"}), "-1a");
  at({"nice", "-n", "5", "-10", "ls"}, 4, false);  // only the first word may be -N
  at({"nice", "-", "ls"}, 1);
  at({"nice", "--", "-10"}, 2);
}

TEST(Wrappers, Nohup) {  // CMD-1
  Unwrapped u = un({"nohup", "ls"});
  EXPECT_EQ(u.command, 1u);
  EXPECT_EQ(u.writes, "may write nohup.out");
  at({"nohup", "--", "ls"}, 2);
  at({"nohup", "--help"}, 2, false);
  at({"nohup", "-x", "ls"}, 2, false);
}

TEST(Wrappers, Timeout) {  // CMD-1: the duration comes before the command
  at({"timeout", "5", "cat", "f"}, 2);
  at({"timeout", "-s", "KILL", "5s", "cat", "f"}, 4);
  at({"timeout", "-sKILL", "5s", "cat"}, 3);
  at({"timeout", "-k", "1", "-v", "5", "ls"}, 5);
  at({"timeout", "--signal=KILL", "5", "ls"}, 3);
  at({"timeout", "--kill-after", "1", "--foreground", "5", "ls"}, 5);
  at({"timeout", "--preserve-status", "5", "ls"}, 3);
  at({"timeout", "5"}, 2);
  at({"timeout"}, 1);
  at({"timeout", "--", "5", "ls"}, 3);
  at({"timeout", "-x", "5", "ls"}, 3, false);
}

TEST(Wrappers, Stdbuf) {  // CMD-1
  at({"stdbuf", "-oL", "grep", "x"}, 2);
  at({"stdbuf", "-o", "L", "-e0", "grep"}, 4);
  at({"stdbuf", "--output=L", "--input", "0", "grep"}, 4);
  at({"stdbuf", "-x", "grep"}, 2, false);
}

TEST(Wrappers, Setsid) {  // CMD-1
  at({"setsid", "-f", "ls"}, 2);
  at({"setsid", "-cfw", "ls"}, 2);
  at({"setsid", "--fork", "--wait", "ls"}, 3);
  at({"setsid", "-x", "ls"}, 2, false);
}

TEST(Wrappers, Ionice) {  // CMD-1
  Unwrapped u = un({"ionice", "-c", "3", "ls"});
  EXPECT_EQ(u.command, 3u);
  EXPECT_EQ(u.writes, "");
  at({"ionice", "-t", "-c2", "-n7", "ls"}, 4);
  at({"ionice", "--class", "idle", "ls"}, 3);
  for (const std::vector<std::string>& argv :
       std::vector<std::vector<std::string>>{{"ionice", "-p", "1"},
                                             {"ionice", "-P", "1"},
                                             {"ionice", "--pid=1"},
                                             {"ionice", "--pgid", "1"},
                                             {"ionice", "--uid", "0"},
                                             {"ionice", "-u", "0"}})
    EXPECT_EQ(un(argv).writes, "changes the priority of other processes") << argv[1];
  at({"ionice", "-u", "0", "ls"}, 2);  // -u is read as a flag: the next word is the command
  at({"ionice", "--ignore", "ls"}, 2);
  at({"ionice", "-x", "ls"}, 2, false);
}

TEST(Wrappers, Time) {  // CMD-1
  at({"time", "ls"}, 1);
  at({"time", "-p", "ls"}, 2);
  at({"time", "-f", "%e", "ls"}, 3);
  at({"time", "--format=%e", "-v", "ls"}, 3);
  EXPECT_EQ(un({"time", "ls"}).writes, "");
  EXPECT_EQ(un({"time", "-o", "report", "ls"}).writes, "writes its report to report");
  EXPECT_EQ(un({"time", "-ao", "r", "ls"}).writes, "writes its report to r");
  EXPECT_EQ(un({"time", "--output=a", "-o", "b", "ls"}).writes, "writes its report to b");
  EXPECT_EQ(un({"time", "--output", "x", "ls"}).command, 3u);
  at({"time", "--quiet", "--append", "ls"}, 3);
  at({"time", "-x", "ls"}, 2, false);
}

TEST(Wrappers, Exec) {  // CMD-1
  at({"exec", "ls"}, 1);
  at({"exec", "-a", "name", "ls"}, 3);
  at({"exec", "-cl", "ls"}, 2);
  at({"exec", "-x", "ls"}, 2, false);
}

TEST(Wrappers, CommandAndBuiltin) {  // CMD-1: `command -v` only looks a name up
  at({"command", "ls"}, 1);
  at({"command", "-p", "ls"}, 2);
  EXPECT_FALSE(un({"command", "-v", "git"}).is_wrapper);
  EXPECT_FALSE(un({"command", "-V", "git"}).is_wrapper);
  EXPECT_FALSE(un({"command", "-pv", "git"}).is_wrapper);
  at({"command", "-x", "ls"}, 2, false);
  at({"command"}, 1);
  at({"builtin", "echo", "x"}, 1);
  at({"builtin", "--", "echo"}, 2);
  at({"builtin", "-x", "echo"}, 2, false);
}

TEST(Wrappers, Xargs) {  // CMD-1, CMD-3: xargs -a reads the arguments from a file
  Unwrapped u = un({"xargs", "echo"});
  EXPECT_EQ(u.command, 1u);
  EXPECT_TRUE(u.stdin_arguments);
  EXPECT_EQ(u.implied, "echo");
  EXPECT_EQ(u.file_list, "");
  at({"xargs"}, 1);
  at({"xargs", "-0", "-n1", "echo"}, 3);
  at({"xargs", "-0rtx", "-n", "1", "echo"}, 4);
  at({"xargs", "-I{}", "echo", "{}"}, 2);
  at({"xargs", "-I", "{}", "echo", "{}"}, 3);
  at({"xargs", "-i", "echo"}, 2);  // -i[R]: the value is only attached
  at({"xargs", "-ifoo", "echo"}, 2);
  at({"xargs", "-e", "echo"}, 2);
  at({"xargs", "-E", "END", "echo"}, 3);
  at({"xargs", "--eof", "echo"}, 2);
  at({"xargs", "--replace=X", "echo"}, 2);
  at({"xargs", "--max-args", "1", "--null", "echo"}, 4);
  at({"xargs", "--process-slot-var=N", "echo"}, 2);
  at({"xargs", "-X", "echo"}, 2, false);
  u = un({"xargs", "-a", "list", "cat"});
  EXPECT_EQ(u.command, 3u);
  EXPECT_EQ(u.files, std::vector<std::string>{"list"});
  EXPECT_EQ(u.file_list, "-a list");
  u = un({"xargs", "--arg-file=l1", "-al2", "cat"});
  EXPECT_EQ(u.files, (std::vector<std::string>{"l1", "l2"}));
  EXPECT_EQ(u.file_list, "-a l2");
}

TEST(Wrappers, Sudo) {  // CMD-1, CMD-2: runs as another user; the guess only finds denied ones
  Unwrapped u = un({"sudo", "ls"});
  EXPECT_EQ(u.command, 1u);
  EXPECT_EQ(u.privileged, "runs the command as another user");
  at({"sudo", "-u", "root", "cat", "f"}, 3);
  at({"sudo", "-E", "env", "reboot"}, 2);
  at({"sudo", "-iu", "root", "ls"}, 3);
  at({"sudo", "--preserve-env=PATH", "ls"}, 2);
  at({"sudo", "--preserve-env", "ls"}, 2);
  at({"sudo", "--user", "root", "--login", "ls"}, 4);
  u = un({"sudo", "FOO=1", "BAR=2", "ls"});
  EXPECT_EQ(u.command, 3u);
  EXPECT_EQ(u.assignments, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(un({"sudo", "-D", "/tmp", "--chdir=/x", "-Dy", "ls"}).chdirs,
            (std::vector<std::string>{"/tmp", "/x", "y"}));
  at({"sudo", "-X", "ls"}, 2, true);  // an unknown option: still confident (needs approval)
  at({"sudo", "--frob", "ls"}, 2, true);
}

TEST(Wrappers, Doas) {  // CMD-1, CMD-2
  Unwrapped u = un({"doas", "cat", "f"});
  EXPECT_EQ(u.command, 1u);
  EXPECT_EQ(u.privileged, "runs the command as another user");
  at({"doas", "-u", "root", "ls"}, 3);
  at({"doas", "-C", "conf", "ls"}, 3);
  at({"doas", "-ns", "ls"}, 2);
  at({"doas", "-x", "ls"}, 2, true);
  at({"doas", "FOO=1", "ls"}, 1);  // no NAME=value words: FOO=1 is the command
  EXPECT_TRUE(un({"doas", "FOO=1", "ls"}).assignments.empty());
}

TEST(Wrappers, Su) {  // CMD-1, CMD-2: the command is the value of -c, anywhere
  Unwrapped u = un({"su", "root", "-c", "ls"});
  EXPECT_TRUE(u.is_wrapper);
  EXPECT_EQ(u.command, 4u);
  EXPECT_EQ(u.privileged, "runs commands as another user");
  EXPECT_EQ(u.scripts, std::vector<std::string>{"ls"});
  EXPECT_EQ(un({"su", "-c", "ls", "root"}).scripts, std::vector<std::string>{"ls"});
  EXPECT_EQ(un({"su", "--command=ls"}).scripts, std::vector<std::string>{"ls"});
  EXPECT_EQ(un({"su", "--command", "ls"}).scripts, std::vector<std::string>{"ls"});
  EXPECT_EQ(un({"su", "--session-command=id"}).scripts, std::vector<std::string>{"id"});
  EXPECT_EQ(un({"su", "--session-command", "id"}).scripts, std::vector<std::string>{"id"});
  EXPECT_EQ(un({"su", "-lc", "ls"}).scripts, std::vector<std::string>{"ls"});
  EXPECT_EQ(un({"su", "-cls"}).scripts, std::vector<std::string>{"ls"});
  EXPECT_EQ(un({"su", "-c", "a", "-c", "b"}).scripts, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(un({"su", "-", "root"}).scripts.empty());
  EXPECT_TRUE(un({"su", "-c"}).scripts.empty());
  EXPECT_TRUE(un({"su", "--", "-c", "x"}).scripts.empty());
  EXPECT_TRUE(un({"su", "--login", "root"}).scripts.empty());
  EXPECT_EQ(un({"su", "-l", "root"}).command, 3u);
  EXPECT_TRUE(un({"su", "-l", "root"}).confident);
}

TEST(Wrappers, Watch) {  // CMD-1
  at({"watch", "ls"}, 1);
  at({"watch", "-n", "5", "ls"}, 3);
  at({"watch", "-n5", "-d", "ls"}, 3);
  at({"watch", "-x", "ls"}, 2);
  at({"watch", "--differences", "ls"}, 2);
  at({"watch", "--differences=cumulative", "ls"}, 2);
  at({"watch", "--interval=2", "--no-title", "ls"}, 3);
  at({"watch", "--foo", "ls"}, 2, false);
  at({"watch", "-X", "ls"}, 2, false);
}

TEST(Wrappers, Busybox) {  // CMD-1: the applet is the first word, whatever it looks like
  at({"busybox", "ls"}, 1);
  at({"busybox", "--list"}, 1);
  at({"busybox", "-x"}, 1);
  at({"busybox"}, 1);
}

ShellCall sh(std::vector<std::string> argv) { return parse_shell_call(argv[0], argv); }

TEST(Wrappers, ShellCall) {  // CMD-1: where a shell's -c script is, and options that change it
  EXPECT_FALSE(sh({"ls", "-c", "x"}).is_shell);
  EXPECT_TRUE(sh({"rbash", "-c", "x"}).has_command_string);
  ShellCall c = sh({"bash", "-c", "ls"});
  EXPECT_TRUE(c.is_shell && c.has_command_string && c.confident);
  EXPECT_EQ(c.script, 2u);
  EXPECT_EQ(sh({"bash", "-lc", "x"}).script, 2u);
  EXPECT_EQ(sh({"sh", "-e", "-c", "x"}).script, 3u);
  EXPECT_EQ(sh({"sh", "+e", "-c", "x"}).script, 3u);
  EXPECT_EQ(sh({"sh", "-o", "errexit", "-c", "x"}).script, 4u);
  EXPECT_EQ(sh({"sh", "-eo", "pipefail", "-c", "x"}).script, 4u);
  EXPECT_EQ(sh({"bash", "--login", "--norc", "-c", "x"}).script, 4u);
  EXPECT_EQ(sh({"sh", "-c"}).script, 2u);
  EXPECT_EQ(sh({"sh", "-c", "x", "-e"}).script, 2u);
  c = sh({"bash", "-O", "extglob", "-c", "x"});
  EXPECT_FALSE(c.confident);
  EXPECT_EQ(c.script, 4u);
  EXPECT_EQ(c.problem, "-O (a shell option that changes how words expand)");
  EXPECT_EQ(sh({"bash", "-k", "-i", "-c", "x"}).problem, "-k (lets any word set the environment)");
  EXPECT_EQ(sh({"bash", "-ic", "x"}).problem,
            "-ic (an interactive shell expands aliases and history, like !cmd)");
  EXPECT_EQ(sh({"bash", "-Z", "-c", "x"}).problem, "-Z (an option we do not know)");
  EXPECT_EQ(sh({"bash", "--frob", "-c", "x"}).problem, "--frob (an option we do not know)");
  c = sh({"bash", "--rcfile", "f", "-c", "x"});
  EXPECT_EQ(c.problem, "--rcfile (reads another startup file)");
  EXPECT_EQ(c.script, 4u);
  c = sh({"bash", "--version", "-c", "x"});  // prints and exits
  EXPECT_TRUE(c.is_shell);
  EXPECT_FALSE(c.has_command_string || c.stdin_script);
  EXPECT_TRUE(sh({"bash"}).stdin_script);
  EXPECT_TRUE(sh({"bash", "-s", "arg"}).stdin_script);
  EXPECT_TRUE(sh({"bash", "-e"}).stdin_script);
  EXPECT_FALSE(sh({"bash", "script.sh"}).stdin_script);
  c = sh({"bash", "--", "-c", "x"});
  EXPECT_FALSE(c.has_command_string || c.stdin_script);
  EXPECT_FALSE(sh({"bash", "-", "x"}).has_command_string);
}

TEST(Wrappers, GitGlobals) {  // CMD-1: git's own options before the subcommand
  GitGlobals g = parse_git_globals({"git", "log"});
  EXPECT_EQ(g.subcommand, 1u);
  g = parse_git_globals({"git", "-C", "src", "-c", "color.ui=never", "-C", "b", "log"});
  EXPECT_EQ(g.subcommand, 7u);
  EXPECT_EQ(g.chdirs, (std::vector<std::string>{"src", "b"}));
  EXPECT_EQ(g.problem, "");
  EXPECT_EQ(parse_git_globals({"git", "-c", "Color.UI=x", "log"}).problem, "");
  EXPECT_EQ(parse_git_globals({"git", "-c", "core.quotePath=off", "log"}).problem, "");
  g = parse_git_globals({"git", "-c", "core.pager=less", "--config-env=a=B", "log"});
  EXPECT_EQ(g.problem_word, "-c core.pager=less");
  EXPECT_EQ(g.problem, "sets core.pager, a setting that can name a program to run");
  EXPECT_EQ(g.subcommand, 4u);
  EXPECT_NE(parse_git_globals({"git", "-c", "alias.x=!sh", "x"}).problem, "");
  g = parse_git_globals({"git", "--config-env=a=B", "log"});
  EXPECT_EQ(g.problem, "takes a setting from the environment, which cannot be checked");
  EXPECT_EQ(g.subcommand, 2u);
  EXPECT_EQ(parse_git_globals({"git", "--config-env", "a=B", "log"}).subcommand, 3u);
  g = parse_git_globals({"git", "--exec-path=/x", "log"});
  EXPECT_EQ(g.problem, "changes where git finds the programs it runs");
  EXPECT_EQ(g.subcommand, 2u);
  EXPECT_EQ(parse_git_globals({"git", "--exec-path"}).subcommand, 1u);  // prints it
  g = parse_git_globals({"git", "--git-dir=/x", "--work-tree", "y", "--namespace=n", "log"});
  EXPECT_EQ(g.git_dir, "/x");
  EXPECT_EQ(g.work_tree, "y");
  EXPECT_EQ(g.subcommand, 5u);
  EXPECT_EQ(parse_git_globals({"git", "--git-dir=", "log"}).git_dir, ".");
  EXPECT_EQ(parse_git_globals({"git", "--no-pager", "-P", "-p", "--bare", "log"}).subcommand, 5u);
  EXPECT_EQ(parse_git_globals({"git", "-C"}).subcommand, 2u);
  EXPECT_TRUE(parse_git_globals({"git", "-C"}).chdirs.empty());
  EXPECT_EQ(parse_git_globals({"git", "--version"}).subcommand, 1u);
}

}  // namespace
}  // namespace cordon
