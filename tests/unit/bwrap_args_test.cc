// The bwrap renderer against golden argument lists, and the seccomp compiler.
#include "render/bwrap_args.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fake_facts.h"
#include "plan/planner.h"
#include "plan/seccomp_rules.h"
#include "render/linux/seccomp_bpf.h"
#include "test_paths.h"

namespace cordon {
namespace {

using testing::FakeWorld;
using testing::file_info;
using testing::link_info;

// One argument per line; regenerate with CORDON_UPDATE_GOLDEN=1.
void expect_golden(const std::string& name, const std::vector<std::string>& args) {
  std::string text;
  for (const auto& a : args) text += a + "\n";
  std::string path = test_golden_dir() + "/" + name;
  if (std::getenv("CORDON_UPDATE_GOLDEN")) {
    std::ofstream(path) << text;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing golden file " << path
                         << " (run with CORDON_UPDATE_GOLDEN=1 to create it)";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), text) << "golden file " << path << " differs";
}

using testing::cmd;

TEST(BwrapArgs, DefaultPlan) {  // MODE-1, FS-1..4, FS-9, PROC-1, PROC-2, PROC-7
  FakeWorld w;
  w.exists_hidden("~/.ssh", file_info("/home/u/.ssh", Kind::kDir));
  w.exists_hidden("~/.aws", link_info("/home/u/.aws", "/home/u/dotfiles/aws", Kind::kDir));
  w.exists_hidden("~/.netrc", file_info("/home/u/.netrc"));
  Plan p = make_plan(w.policy, w.facts, cmd({"make", "test"}));
  ASSERT_FALSE(p.refused());
  auto args = render_bwrap_args(p, BwrapFds{4, 5});
  expect_golden("bwrap_default.txt", args);
  EXPECT_EQ(bwrap_command_line(p, 3),
            (std::vector<std::string>{"bwrap", "--args", "3", "--", "make", "test"}));
}

TEST(BwrapArgs, OlderBwrapGetsOnlyTheOptionsItHas) {  // PROBE-4, PROC-7
  FakeWorld w;
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_FALSE(p.refused());
  auto newest = render_bwrap_args(p, BwrapFds{4, 5});
  auto old = render_bwrap_args(p, BwrapFds{4, 5}, bwrap_features(BwrapVersion{0, 6, 1}));
  EXPECT_NE(std::find(newest.begin(), newest.end(), "--disable-userns"), newest.end());
  EXPECT_EQ(std::find(old.begin(), old.end(), "--disable-userns"), old.end());
  EXPECT_EQ(std::find(old.begin(), old.end(), "--size"), old.end());
  // Otherwise the same arguments: only the one option is left out.
  newest.erase(std::find(newest.begin(), newest.end(), "--disable-userns"));
  EXPECT_EQ(old, newest);
  // The seccomp rule against new user namespaces stays either way.
  bool unshare = false, clone = false;
  for (const auto& r : p.seccomp) {
    for (const auto& a : r.args) {
      if (a.index == 0 && a.mask == 0x10000000 && a.value == 0x10000000) {
        if (r.syscall == "unshare") unshare = true;
        if (r.syscall == "clone") clone = true;
      }
    }
  }
  EXPECT_TRUE(unshare);
  EXPECT_TRUE(clone);
}

TEST(BwrapArgs, NetworkAndWritable) {  // NET-3, FS-2
  FakeWorld w;
  w.policy.writable = {"~/.cache/pip"};
  w.facts.writable = {file_info("/home/u/.cache/pip", Kind::kDir)};
  w.facts.credential_files = {file_info(w.project + "/.env")};
  Request r = cmd({"pip", "install", "-r", "requirements.txt"});
  r.network = true;
  Plan p = make_plan(w.policy, w.facts, r);
  ASSERT_FALSE(p.refused());
  expect_golden("bwrap_network.txt", render_bwrap_args(p, BwrapFds{4, 5}));
}

TEST(BwrapArgs, GpuDeviceNodesAreDevBound) {  // GPU-1
  FakeWorld w;
  w.policy.gpu = true;
  w.facts.machine.gpu_devices = {"/dev/dri/card0", "/dev/dri/renderD128", "/dev/nvidia0",
                                 "/dev/nvidia-caps/nvidia-cap1", "/dev/nvidia-uvm",
                                 "/dev/nvidiactl"};
  Plan p = make_plan(w.policy, w.facts, cmd({"nvidia-smi"}));
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  auto args = render_bwrap_args(p, BwrapFds{4, 5});
  expect_golden("bwrap_gpu.txt", args);
  // Each after bwrap's fresh /dev, which would otherwise cover it.
  auto dev = std::find(args.begin(), args.end(), "--dev");
  auto node = std::find(args.begin(), args.end(), "--dev-bind");
  ASSERT_NE(node, args.end());
  EXPECT_LT(dev, node);
  EXPECT_EQ(*(node + 1), "/dev/dri/card0");
  EXPECT_EQ(*(node + 2), "/dev/dri/card0");
}

TEST(BwrapArgs, AlwaysUnsharesEverythingAndDropsPrivileges) {  // PROC-1, PROC-2, PROC-7
  FakeWorld w;
  auto args = render_bwrap_args(make_plan(w.policy, w.facts, cmd({"true"})), BwrapFds{4, 5});
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  for (const char* flag :
       {"--unshare-all ", "--unshare-user ", "--disable-userns ", "--die-with-parent ",
        "--new-session ", "--cap-drop ALL ", "--seccomp 4 ", "--json-status-fd 5 "})
    EXPECT_NE(joined.find(flag), std::string::npos) << flag;
  EXPECT_EQ(joined.find("--share-net"), std::string::npos);
}

// JOB-2: in the session's loopback bwrap keeps the network namespace it was started
// in (the launcher joined the session's) and still makes every other one.
TEST(BwrapArgs, SessionLoopbackKeepsTheNetworkItStartsIn) {
  FakeWorld w;
  PlanOptions po;
  po.session_loopback = true;
  auto args =
      render_bwrap_args(make_plan(w.policy, w.facts, cmd({"true"}), po), BwrapFds{4, 5});
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  for (const char* flag : {"--unshare-all ", "--unshare-user ", "--share-net "})
    EXPECT_NE(joined.find(flag), std::string::npos) << flag;
}

TEST(BwrapArgs, NulJoin) { EXPECT_EQ(nul_join({"a", "b c"}), std::string("a\0b c\0", 6)); }

TEST(Seccomp, RulesCompareLow32BitsMasked) {  // PROC-7
  for (const auto& r : default_seccomp_rules()) {
    EXPECT_TRUE(r.errno_value == EPERM || (r.syscall == "clone3" && r.errno_value == ENOSYS))
        << r.syscall;
    for (const auto& a : r.args) {
      if (r.syscall == "socket" || r.syscall == "ioctl") {
        // The low 32 bits only: a whole-value comparison, or single bits of the allowlist
        // (NET-2), never a bit above them.
        EXPECT_EQ(a.op, SeccompOp::kMaskedEq);
        EXPECT_NE(a.mask, 0u) << r.syscall;
        EXPECT_EQ(a.mask & ~0xffffffffULL, 0u) << r.syscall;
      }
    }
  }
}

TEST(Seccomp, Compiles) {  // PROC-7
  auto bpf = compile_seccomp(default_seccomp_rules());
  ASSERT_TRUE(bpf.ok()) << bpf.error().message;
  EXPECT_GT(bpf->size(), 64u);
  EXPECT_EQ(bpf->size() % 8, 0u);  // struct sock_filter is 8 bytes
}

}  // namespace
}  // namespace cordon
