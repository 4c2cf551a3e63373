// Issue 15 items 1, 2 and 5: the explicit handle of a sandbox being started (PendingSandbox):
// start -> hand_over -> release -> wait, or abort before release. What an abort leaves (no
// command run, no pid registered), and the plan's process part checked by content.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>
#include <iterator>
#include <string>
#include <vector>

#include "core/env.h"
#include "harness.h"
#include "host/facts_reader.h"
#include "launch/linux/launcher.h"
#include "plan/seccomp_rules.h"

namespace cordon::it {
namespace {

struct Rig {
  Rig() {
    char tmpl[] = "/tmp/cordon-pending-XXXXXX";
    dir = mkdtemp(tmpl);
    EnvMap host;
    host.set("PATH", "/usr/local/bin:/usr/bin:/bin");
    bwrap = find_bwrap(host);
    part.argv = {"/bin/sh", "-c", "echo ran; touch " + dir + "/ran"};
    part.env.set("PATH", "/usr/bin:/bin");
    part.cwd = dir;
    part.seccomp = default_seccomp_rules();
    io.out = OutputMode::kCapture;
    io.err = OutputMode::kCapture;
  }
  ~Rig() {
    unlink((dir + "/ran").c_str());
    rmdir(dir.c_str());
  }
  // The plan of `part`: the whole filesystem read-only, `dir` writable.
  Plan plan() const {
    Plan p;
    p.runner = Runner::kSandbox;
    p.argv = part.argv;
    p.env = part.env;
    p.cwd = part.cwd;
    p.seccomp = part.seccomp;
    p.mounts = {{MountKind::kRoBind, "/", "/", "base"},
                {MountKind::kDev, "", "/dev", "dev"},
                {MountKind::kProc, "", "/proc", "proc"},
                {MountKind::kBind, dir, dir, "writable"}};
    return p;
  }
  Result<PendingSandbox> start() const {
    return PendingSandbox::start(part, Limits{}, std::chrono::seconds(60), bwrap, "", io);
  }
  bool ran() const { return access((dir + "/ran").c_str(), F_OK) == 0; }
  std::string dir, bwrap;
  ProcessPart part;
  LaunchIo io;
};

TEST(PendingSandbox, StartHandOverReleaseWait) {  // PERF-1, FS-1, PROC-5
  REQUIRE_SANDBOX();
  Rig rig;
  ASSERT_FALSE(rig.bwrap.empty());
  auto s = rig.start();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_GT(s->pid(), 0);
  ASSERT_TRUE(s->hand_over(rig.plan()).ok());
  EXPECT_FALSE(rig.ran()) << "nothing runs before release";
  ASSERT_TRUE(s->release().ok());
  auto o = s->wait();
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_TRUE(o->bwrap_started) << o->err;
  EXPECT_EQ(o->bwrap_exit_code.value_or(-1), 0) << o->err;
  EXPECT_EQ(o->out, "ran\n");
  EXPECT_TRUE(rig.ran());
}

// PROC-6, PERF-1: bwrap is in the command's cgroup from its first instruction (on cgroup v1 its
// child joins through `tasks` before it execs, which costs no RCU grace period), so the
// sandbox's pid 1 and the command are too, and the cgroup is gone once the sandbox was waited
// for.
TEST(PendingSandbox, ReleasedOnlyOnceInTheCommandsCgroup) {  // PROC-6, PERF-1
  REQUIRE_SANDBOX();
  if (geteuid() != 0) GTEST_SKIP() << "no cgroup can be made here as a plain user";
  Rig rig;
  rig.part.argv = {"/bin/sleep", "1"};
  Limits limits;
  limits.pids = 50;
  std::string path;
  {
  auto s = PendingSandbox::start(rig.part, limits, std::chrono::seconds(60), rig.bwrap, "", rig.io);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const pid_t pid = s->pid();
  auto cgroup_of = [](pid_t p) {
    std::ifstream f("/proc/" + std::to_string(p) + "/cgroup");
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  const std::string at_start = cgroup_of(pid);  // before it has its options
  ASSERT_TRUE(s->hand_over(rig.plan()).ok());
  ASSERT_TRUE(s->release().ok());
  const std::string mine = cgroup_of(pid);
  EXPECT_EQ(at_start, mine) << "bwrap was in its cgroup before it had its options";
  const auto at = mine.find("pids:/");
  ASSERT_NE(at, std::string::npos) << mine;
  path = mine.substr(at + 5, mine.find('\n', at) - at - 5);
  EXPECT_NE(path.find("cordon-"), std::string::npos) << mine;
  // bwrap may fork its pid 1 after the release (it then inherits bwrap's cgroup): wait for it.
  pid_t child = 0;
  for (int i = 0; i < 400 && child == 0; ++i) {
    std::ifstream kids("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                       "/children");
    if (!(kids >> child)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_NE(child, 0) << "bwrap's pid 1";
  EXPECT_NE(cgroup_of(child).find("pids:" + path), std::string::npos) << cgroup_of(child);
  std::ifstream max("/sys/fs/cgroup/pids" + path + "/pids.max");
  std::string value;
  max >> value;
  EXPECT_EQ(value, "50");
  auto o = s->wait();
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->bwrap_exit_code.value_or(-1), 0) << o->err;
  }  // the handle, dropped, removes the cgroup
  struct stat st;
  EXPECT_NE(::stat(("/sys/fs/cgroup/pids" + path).c_str(), &st), 0) << "the cgroup is removed";
}

TEST(PendingSandbox, AbortedBeforeReleaseRunsNothingAndForgetsItsPid) {  // NET-4, PROC-3, SES-2
  REQUIRE_SANDBOX();
  Rig rig;
  const size_t before = registered_children();
  {
    auto s = rig.start();
    ASSERT_TRUE(s.ok()) << s.error().message;
    const pid_t pid = s->pid();
    EXPECT_EQ(registered_children(), before + 1);
    ASSERT_TRUE(s->hand_over(rig.plan()).ok());
    s->abort();
    EXPECT_EQ(registered_children(), before);
    EXPECT_NE(::kill(pid, 0), 0) << "bwrap was killed and collected";
    EXPECT_FALSE(s->wait().ok());
  }
  {
    auto s = rig.start();  // dropped without a word: the same
    ASSERT_TRUE(s.ok()) << s.error().message;
  }
  EXPECT_EQ(registered_children(), before);
  usleep(200 * 1000);
  EXPECT_FALSE(rig.ran());
}

// The processes whose command line holds `marker` (a sandbox's pid 1 shows bwrap's).
std::vector<pid_t> processes_holding(const std::string& marker) {
  std::vector<pid_t> found;
  for (const auto& [pid, line] : command_lines())
    if (line.find(marker) != std::string::npos) found.push_back(pid);
  return found;
}

// An abort while bwrap sets the sandbox up (after it took its options) ends bwrap's pid 1 too.
// Killed early, pid 1 waits for bwrap forever (it has no death signal yet) and keeps the
// caller's output open: `cordon run` ended, but whoever read its output waited on.
TEST(PendingSandbox, AnAbortDuringSetUpLeavesNoProcessBehind) {  // PROC-3
  REQUIRE_SANDBOX();
  Rig rig;
  const std::string marker = "aborted-" + std::to_string(getpid()) + "-" + rig.dir.substr(5);
  rig.part.argv = {"/bin/sh", "-c", "echo " + marker};
  for (int i = 0; i < 60; ++i) {
    auto s = rig.start();
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_TRUE(s->hand_over(rig.plan()).ok());
    usleep(static_cast<useconds_t>((i % 30) * 100));  // 0 to 3 ms into bwrap's set-up
    s->abort();
  }
  usleep(300 * 1000);
  std::vector<pid_t> left = processes_holding(marker);
  EXPECT_TRUE(left.empty()) << left.size() << " sandbox processes outlived their abort";
  for (pid_t p : left) ::kill(p, SIGKILL);
}

TEST(PendingSandbox, ThePlanMustHoldTheProcessPartItStartedWith) {  // ENV-1, NET-1, PROC-2
  REQUIRE_SANDBOX();
  Rig rig;
  const size_t before = registered_children();
  Plan other_env = rig.plan();
  other_env.env.set("EXTRA", "1");
  // The same number of seccomp rules, one of them another: compared by content, not size.
  Plan other_filter = rig.plan();
  ASSERT_FALSE(other_filter.seccomp.empty());
  other_filter.seccomp.back().errno_value += 1;
  Plan other_argv = rig.plan();
  other_argv.argv.back() += "; touch " + rig.dir + "/other";
  for (const Plan* p : {&other_env, &other_filter, &other_argv}) {
    auto s = rig.start();
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto st = s->hand_over(*p);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, ErrorKind::kAborted) << st.error().message;
    EXPECT_FALSE(s->wait().ok());
  }
  EXPECT_EQ(registered_children(), before);
  EXPECT_FALSE(rig.ran());
}

TEST(PendingSandbox, TheRendererRefusesANulThatSlippedThrough) {  // FS-2 (issue 15 item 3)
  REQUIRE_SANDBOX();
  Rig rig;
  Plan p = rig.plan();
  p.mounts.push_back({MountKind::kRoBind, "/etc" + std::string(1, '\0') + "--bind", "/etc", "x"});
  auto s = rig.start();
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto st = s->hand_over(p);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorKind::kInvalid) << st.error().message;
  EXPECT_FALSE(rig.ran());
}

}  // namespace
}  // namespace cordon::it
