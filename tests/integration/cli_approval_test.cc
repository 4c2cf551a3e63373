// APR-7 for the CLI: what needs approval is asked on the terminal when there is one, else
// refused naming the flag that approves it; --away refuses instead of asking; the command
// policy refuses denied commands (CMD-4, CMD-6) before anything runs.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "harness.h"

namespace cordon::it {
namespace {

// Runs `cordon ARGS...` on a new pseudo-terminal (its controlling terminal), answers `answer`
// once the question appears, and returns everything it wrote and its exit status.
Proc on_terminal(const World& w, const std::vector<std::string>& args, const std::string& answer) {
  Proc r;
  std::vector<std::string> argv = {cordon_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> envs;
  for (const auto& [k, v] : w.env) envs.push_back(k + "=" + v);
  std::vector<char*> a, e;
  for (auto& s : argv) a.push_back(s.data());
  a.push_back(nullptr);
  for (auto& s : envs) e.push_back(s.data());
  e.push_back(nullptr);
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    if (chdir(w.project().c_str()) != 0) _exit(121);
    execve(a[0], a.data(), e.data());
    _exit(122);
  }
  bool answered = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child is gone
    r.out.append(buf, static_cast<size_t>(n));
    if (!answered && r.out.find("[n] no") != std::string::npos) {
      std::string line = answer + "\n";
      if (write(master, line.data(), line.size()) < 0) break;
      answered = true;
    }
  }
  close(master);
  int st = 0;
  waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

TEST(CliApproval, WithoutATerminalTheRefusalNamesTheFlag) {  // APR-7, MODE-3
  REQUIRE_SANDBOX();
  World w;
  w.config("[sandbox]\nmode = \"external\"\n");
  Proc r = w.sh("echo x > made.txt");
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("--allow-command"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no terminal"), std::string::npos) << r.err;
  EXPECT_FALSE(w.exists("made.txt"));
  // A read-only command needs no approval.
  r = w.cordon({"run", "--", "cat", "README.md"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "hello\n");
  // The flag typed by a person approves it.
  r = w.sh("echo x > made.txt", {"--allow-command"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(w.exists("made.txt"));
}

TEST(CliApproval, AskedOnTheTerminal) {  // APR-7
  REQUIRE_SANDBOX();
  World w;
  w.config("[sandbox]\nmode = \"external\"\n");
  Proc r = on_terminal(w, {"run", "--", "/bin/sh", "-c", "echo x > yes.txt"}, "y");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("cordon asks: allow running"), std::string::npos) << r.out;
  EXPECT_TRUE(w.exists("yes.txt"));
  r = on_terminal(w, {"run", "--", "/bin/sh", "-c", "echo x > no.txt"}, "n");
  EXPECT_EQ(r.status, 125) << r.out;
  EXPECT_NE(r.out.find("denied by the user"), std::string::npos) << r.out;
  EXPECT_FALSE(w.exists("no.txt"));
}

TEST(CliApproval, AwayRefusesInsteadOfAsking) {  // APR-4, APR-7
  REQUIRE_SANDBOX();
  World w;
  w.config("[sandbox]\nmode = \"external\"\n");
  Proc r = on_terminal(w, {"run", "--away", "--", "/bin/sh", "-c", "echo x > away.txt"}, "y");
  EXPECT_EQ(r.status, 125) << r.out;
  EXPECT_EQ(r.out.find("cordon asks"), std::string::npos) << r.out;  // nobody was asked
  EXPECT_NE(r.out.find("the user is away"), std::string::npos) << r.out;
  EXPECT_FALSE(w.exists("away.txt"));
  // Away is refused under approve-all.
  w.config("[approvals]\nmode = \"approve-all\"\n");
  r = w.cordon({"run", "--away", "--", "true"});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("approve-all"), std::string::npos) << r.err;
}

TEST(CliApproval, DeniedCommandsNeverRun) {  // CMD-4, CMD-6
  REQUIRE_SANDBOX();
  World w;
  w.write("disk.img", std::string(64 << 10, 'x'));
  Proc r = w.cordon({"run", "--", "mkfs.ext4", "-q", "-F", "disk.img"});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("command policy denies it"), std::string::npos) << r.err;
  EXPECT_EQ(w.read("disk.img"), std::string(64 << 10, 'x'));  // mkfs never ran
  // Inside a shell string too.
  r = w.sh("true; mkfs.ext4 -q -F disk.img");
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("denies"), std::string::npos) << r.err;
  EXPECT_EQ(w.read("disk.img"), std::string(64 << 10, 'x'));
}

TEST(CliApproval, FlagsTypedByAPersonAreTheApproval) {  // APR-7
  REQUIRE_SANDBOX();
  World w;
  // No terminal, no question: --outside-sandbox is the person's own yes.
  Proc r = w.cordon({"run", "--outside-sandbox", "--", "/bin/sh", "-c", "echo out > out.txt"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(w.read("out.txt"), "out\n");
}

}  // namespace
}  // namespace cordon::it
