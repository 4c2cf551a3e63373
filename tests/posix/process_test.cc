// The POSIX process primitive (src/process_posix/process.cc), the one a macOS build links, run
// here on Linux: this binary links it instead of the Linux primitive (clone, pidfd), so every
// rule the launchers rely on is checked against it on this machine (MAC-5). Each test names
// the requirement (docs/requirements.md) it holds the primitive to.
#include "process/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "cordon/cordon.h"
#include "process_posix/child_watch.h"
#include "process_table/process_table.h"

namespace cordon {
namespace {

using namespace std::chrono_literals;

ProcessSpec sh(const std::string& script) {
  ProcessSpec s;
  s.path = "/bin/sh";
  s.argv = {"/bin/sh", "-c", script};
  s.env.set("PATH", "/usr/bin:/bin");
  s.out = OutputMode::kCapture;
  s.err = OutputMode::kCapture;
  return s;
}

bool alive(int pid) {
  auto e = read_process_entry(pid);
  return e && e->state != 'Z';
}

// Waits up to `limit` for `pid` to be gone.
bool gone_within(int pid, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (!alive(pid)) return true;
    std::this_thread::sleep_for(10ms);
  }
  return !alive(pid);
}

TEST(PosixProcess, CapturesOutputAndExitStatus) {  // PROC-5
  auto o = run_process(sh("echo out; echo err >&2; exit 7"));
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->out, "out\n");
  EXPECT_EQ(o->err, "err\n");
  EXPECT_EQ(o->exit_code, 7);
  EXPECT_EQ(o->signal, 0);
  EXPECT_GE(o->ended, o->started);
  EXPECT_EQ(registered_children(), 0u);
}

TEST(PosixProcess, ReportsTheSignalThatEndedIt) {  // PROC-5: 128+N is the caller's
  auto o = run_process(sh("kill -TERM $$"));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->signal, SIGTERM);
  EXPECT_EQ(o->exit_code, -1);
}

TEST(PosixProcess, RunsWithTheGivenEnvironmentFolderAndInput) {  // ENV-5, FS-1
  ProcessSpec s = sh("pwd; echo \"$ONLY\"; env | wc -l; cat");
  s.env.set("ONLY", "this");
  s.cwd = "/tmp";
  s.in = InputMode::kData;
  s.in_data = std::string(200000, 'x') + "\n";  // more than a pipe holds
  auto o = run_process(s);
  ASSERT_TRUE(o.ok());
  const std::string expected_head = "/tmp\nthis\n";
  ASSERT_EQ(o->out.substr(0, expected_head.size()), expected_head) << o->out.substr(0, 80);
  EXPECT_EQ(o->out.size(), expected_head.size() + 2 + 200001);  // "N\n" from wc (2 or 3 names)
}

TEST(PosixProcess, CaptureKeepsOnlyTheLimit) {  // RES-2
  ProcessSpec s = sh("head -c 100000 /dev/zero");
  s.capture_limit = 1000;
  auto o = run_process(s);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->out.size(), 1000u);
  EXPECT_TRUE(o->out_truncated);
}

TEST(PosixProcess, StandardInputIsNullByDefault) {  // PROC-2
  auto o = run_process(sh("cat; echo done"));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->out, "done\n");
}

TEST(PosixProcess, AMissingProgramIsAnExecError) {  // PROC-5, RES-4
  ProcessSpec s = sh("");
  s.path = "/nonexistent/program";
  s.argv = {s.path};
  auto o = run_process(s);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().code, ErrorKind::kExec);
  EXPECT_NE(o.error().message.find("starting /nonexistent/program failed"), std::string::npos)
      << o.error().message;
  EXPECT_EQ(registered_children(), 0u);
}

TEST(PosixProcess, AMissingFolderIsNamed) {  // FS-1
  ProcessSpec s = sh("true");
  s.cwd = "/nonexistent/folder";
  auto o = run_process(s);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.error().message.find("changing folder"), std::string::npos) << o.error().message;
}

TEST(PosixProcess, TimeoutEndsTheWholeGroup) {  // PROC-4
  ProcessSpec s = sh("sleep 30 & echo $!; sleep 30");
  s.timeout = 300ms;
  auto t0 = std::chrono::steady_clock::now();
  auto o = run_process(s);
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->timed_out);
  EXPECT_EQ(o->signal, SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  int background = std::atoi(o->out.c_str());
  ASSERT_GT(background, 0) << o->out;
  EXPECT_TRUE(gone_within(background, 2s)) << background;
}

TEST(PosixProcess, CancelEndsTheCommand) {  // APR-5: Ctrl-C, `cancel`, shutdown
  api::Cancel cancel;
  ProcessSpec s = sh("sleep 30");
  s.cancel_fd = cancel.fd();
  std::thread t([&] {
    std::this_thread::sleep_for(200ms);
    cancel.cancel();
  });
  auto t0 = std::chrono::steady_clock::now();
  auto o = run_process(s);
  t.join();
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->canceled);
  EXPECT_TRUE(cancel.canceled());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST(PosixProcess, TheGroupEndsWithTheFirstProcess) {  // PROC-1 (as far as a group allows)
  ProcessSpec s = sh("sleep 30 >/dev/null 2>&1 & echo $!");
  s.end_group_on_exit = true;
  auto o = run_process(s);
  ASSERT_TRUE(o.ok());
  int background = std::atoi(o->out.c_str());
  ASSERT_GT(background, 0);
  EXPECT_TRUE(gone_within(background, 2s));
  EXPECT_FALSE(o->output_cut);
}

TEST(PosixProcess, OutputHeldOpenIsCutAfterTheGrace) {  // RES-3: "output cut"
  // setsid execs sleep in the same process (a background job is no group leader): $! is it.
  ProcessSpec s = sh("setsid sleep 30 & echo $!; sleep 0.2");
  s.end_group_on_exit = true;
  s.output_grace = 200ms;
  auto o = run_process(s);
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->output_cut);
  int left = std::atoi(o->out.c_str());
  ASSERT_GT(left, 0) << o->out;
  EXPECT_TRUE(alive(left));  // it left the group, so the group's end did not reach it
  ::kill(left, SIGKILL);
  EXPECT_TRUE(gone_within(left, 2s));
}

TEST(PosixProcess, AProcessThatLeftTheGroupIsFoundByItsMarker) {  // NET-4, MAC-5
  ProcessSpec s = sh("setsid sleep 30 >/dev/null 2>&1 </dev/null & sleep 0.2");
  s.marker = "CORDON_RUN=posixtest" + std::to_string(getpid());
  s.env.set("CORDON_RUN", s.marker.substr(11));
  s.end_group_on_exit = true;
  auto o = run_process(s);
  ASSERT_TRUE(o.ok());
  ASSERT_EQ(o->escaped.size(), 1u);
  int pid = o->escaped[0];
  auto env = read_process_environment(pid);
  ASSERT_TRUE(env.has_value());
  EXPECT_NE(std::find(env->begin(), env->end(), s.marker), env->end());
  EXPECT_EQ(find_marked_processes(s.marker, {}), o->escaped);
  ::kill(pid, SIGKILL);
  EXPECT_TRUE(gone_within(pid, 2s));
}

TEST(PosixProcess, TeeForwardsAndKeepsTheTail) {  // RES-3
  int saved = dup(1);
  Fd r, w;
  ASSERT_TRUE(make_pipe(r, w).ok());
  dup2(w.fd, 1);
  ProcessSpec s = sh("echo one; echo two");
  s.out = OutputMode::kTee;
  auto o = run_process(s);
  dup2(saved, 1);
  ::close(saved);
  w.reset();
  char buf[64] = {};
  ssize_t n = read(r.fd, buf, sizeof buf - 1);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "one\ntwo\n");
  EXPECT_EQ(o->out, "one\ntwo\n");
}

TEST(PosixProcess, PassesOnlyTheNamedDescriptors) {  // PROC-7: nothing of ours reaches it
  Fd r, w;
  ASSERT_TRUE(make_pipe(r, w).ok());
  EXPECT_GE(r.fd, 10);
  EXPECT_GE(w.fd, 10);
  int leaked = fcntl(w.fd, F_DUPFD, 20);  // not close-on-exec: must still not reach it
  ASSERT_GE(leaked, 20);
  ProcessSpec s = sh("echo hi >&5; ls /dev/fd/ | tr '\\n' ' '");
  s.pass_fds = {{w.fd, 5}};
  auto o = run_process(s);
  ::close(leaked);
  w.reset();
  ASSERT_TRUE(o.ok());
  char buf[16] = {};
  EXPECT_EQ(read(r.fd, buf, sizeof buf), 3);
  EXPECT_EQ(std::string(buf), "hi\n");
  // 0, 1, 2, 5 and ls's own directory descriptor.
  EXPECT_EQ(o->out.find(std::to_string(leaked)), std::string::npos) << o->out;
  EXPECT_EQ(o->out.find(std::to_string(r.fd)), std::string::npos) << o->out;
}

TEST(PosixProcess, LimitsAreAppliedAsRlimits) {  // PROC-6
  ProcessSpec s = sh("ulimit -n; ulimit -f");
  s.limits.open_files = 64;
  s.limits.file_size = 1024 * 512;
  auto o = run_process(s);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->out, "64\n1024\n");  // ulimit -f counts 512-byte blocks
}

TEST(PosixProcess, ManyAtOnceEachSeeTheirOwnEnd) {  // SRV-4: commands in flight together
  std::vector<std::thread> ts;
  std::atomic<int> good{0};
  for (int i = 0; i < 8; ++i)
    ts.emplace_back([&, i] {
      auto o = run_process(sh("sleep 0.0" + std::to_string(i) + "; exit " + std::to_string(i)));
      if (o.ok() && o->exit_code == i) ++good;
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(good.load(), 8);
  EXPECT_EQ(registered_children(), 0u);
}

TEST(PosixProcess, AChildsExitWakesThePollLoop) {  // PERF-1: a self-pipe, not a timer
  // Two watchers at once (two commands in flight): each is woken by the exit.
  ChildWatch first, second;
  ASSERT_GE(first.fd(), 10);
  ASSERT_GE(second.fd(), 10);
  pollfd idle{first.fd(), POLLIN, 0};
  EXPECT_EQ(poll(&idle, 1, 0), 0);  // nothing yet
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  ASSERT_GT(pid, 0);
  pollfd p[2] = {{first.fd(), POLLIN, 0}, {second.fd(), POLLIN, 0}};
  for (auto& one : p) {
    int n;
    // The SIGCHLD that writes the pipe may interrupt this very poll (EINTR): poll again.
    while ((n = poll(&one, 1, 10000)) < 0 && errno == EINTR) {
    }
    EXPECT_EQ(n, 1);  // long before any timer would fire
  }
  int st;
  EXPECT_EQ(waitpid(pid, &st, 0), pid);
  first.drain();
  EXPECT_EQ(poll(&idle, 1, 0), 0);  // drained: quiet until the next exit
}

TEST(PosixProcess, TheProcessTableKnowsUs) {  // PROC-3, SES-2: records keyed by boot
  auto me = read_proc_stat(getpid());
  ASSERT_TRUE(me.has_value());
  EXPECT_EQ(me->ppid, getppid());
  EXPECT_EQ(me->pgrp, getpgrp());
  EXPECT_GT(me->start, 0);
  EXPECT_FALSE(read_proc_stat(0).has_value());
  EXPECT_FALSE(current_boot_id().empty());
  EXPECT_EQ(current_boot_id(), read_boot_id());
  auto pids = list_pids();
  EXPECT_NE(std::find(pids.begin(), pids.end(), getpid()), pids.end());
}

TEST(PosixProcess, TemporaryDataFileReadsBack) {  // the bwrap launcher's memfd, portably
  auto fd = memfd_with("posix-test", "hello");
  ASSERT_TRUE(fd.ok());
  EXPECT_GE(*fd, 10);
  char buf[8] = {};
  EXPECT_EQ(read(*fd, buf, sizeof buf), 5);
  EXPECT_EQ(std::string(buf), "hello");
  ::close(*fd);
}

TEST(PosixProcess, CommandLookupFollowsPath) {  // RES-4
  EnvMap env;
  env.set("PATH", "/nonexistent:/bin:/usr/bin");
  EXPECT_EQ(find_command("sh", env, "/").path.empty(), false);
  EXPECT_TRUE(find_command("sh", env, "/").runnable);
  EXPECT_TRUE(find_command("no-such-command-xyz", env, "/").path.empty());
  EXPECT_EQ(resolve_command("./x", env, "/tmp"), "/tmp/x");
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

// Issue 30: background jobs' live input, output and signals are the Linux primitive's; this
// one refuses them clearly rather than running a job whose input nobody can feed.
TEST(PosixProcess, RefusesABackgroundJobsFeed) {  // issue 30
  ProcessSpec spec = sh("echo never");
  spec.in = InputMode::kStream;
  spec.feed = std::make_shared<ProcessFeed>();
  auto o = run_process(spec);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.error().message.find("background jobs"), std::string::npos) << o.error().message;
}

// Issue 30 item 4: a feed for the output alone (ExecRequest::on_output) is handed each piece
// as it comes here too; the capture stays as it was.
TEST(PosixProcess, HandsOutputToAnOutputFeed) {  // issue 30
  std::string out, err;
  ProcessSpec spec = sh("echo one; echo two >&2");
  spec.out = OutputMode::kCapture;
  spec.err = OutputMode::kCapture;
  spec.feed = std::make_shared<ProcessFeed>(
      [&](int stream, const char* d, size_t n) { (stream == 1 ? out : err).append(d, n); });
  auto o = run_process(spec);
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(out, "one\n");
  EXPECT_EQ(err, "two\n");
  EXPECT_EQ(o->out, "one\n");
  EXPECT_EQ(o->err, "two\n");
}

}  // namespace
}  // namespace cordon
