// GPU-1 (issue 31): [sandbox] gpu = true, planned from fake facts (which device nodes exist).
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_facts.h"
#include "plan/env_filter.h"
#include "plan/gpu_rules.h"
#include "plan/plan_check.h"
#include "plan/planner.h"

namespace cordon {
namespace {

using testing::FakeWorld;

using testing::cmd;

std::vector<MountOp> dev_binds(const Plan& p) {
  std::vector<MountOp> out;
  for (const auto& m : p.mounts)
    if (m.kind == MountKind::kDevBind) out.push_back(m);
  return out;
}

const std::vector<std::string> kNodes = {
    "/dev/dri/card0",  "/dev/dri/renderD128", "/dev/nvidia-caps/nvidia-cap1",
    "/dev/nvidia-modeset", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
    "/dev/nvidia0",    "/dev/nvidia1",        "/dev/nvidiactl"};

TEST(GpuRules, NamesTheDriversNodesOnly) {  // GPU-1
  for (const char* yes : {"nvidia0", "nvidia15", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools",
                          "nvidia-modeset", "nvidia-caps/nvidia-cap1", "dri/card0",
                          "dri/renderD128", "dxg"})
    EXPECT_TRUE(is_gpu_device_name(yes)) << yes;
  for (const char* no : {"nvidia", "nvidiax", "nvidia0a", "sda", "null", "kmsg", "mem", "dri",
                         "dri/", "dri/by-path/x", "nvidia-caps", "nvidia-caps/..", "dri/..",
                         "nvidia-uvm/../sda", "fuse", "dxgx"})
    EXPECT_FALSE(is_gpu_device_name(no)) << no;
}

TEST(GpuRules, BindsEachNodeThatExistsAtItsOwnPath) {  // GPU-1, FS-9
  FakeWorld w;
  w.policy.gpu = true;
  w.facts.machine.gpu_devices = kNodes;
  Plan p = make_plan(w.policy, w.facts, cmd({"nvidia-smi"}));
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  auto binds = dev_binds(p);
  ASSERT_EQ(binds.size(), kNodes.size());
  for (size_t i = 0; i < kNodes.size(); ++i) {
    EXPECT_EQ(binds[i].src, kNodes[i]);
    EXPECT_EQ(binds[i].dest, kNodes[i]);
  }
  EXPECT_EQ(p.gpu, kNodes);  // what `cordon policy` lists
  EXPECT_EQ(p.env.value("CORDON_GPU"), "1");
  EXPECT_EQ(p.env.value("CORDON_SANDBOX"), "1");
  // After the fresh /dev (else it would cover them); /sys and /proc/driver stay as they are.
  size_t dev = 0, first = SIZE_MAX;
  for (size_t i = 0; i < p.mounts.size(); ++i) {
    if (p.mounts[i].kind == MountKind::kDev) dev = i;
    if (p.mounts[i].kind == MountKind::kDevBind) first = std::min(first, i);
    EXPECT_FALSE(path_within(p.mounts[i].dest, "/sys")) << p.mounts[i].dest;
    EXPECT_FALSE(path_within(p.mounts[i].dest, "/proc/driver")) << p.mounts[i].dest;
  }
  EXPECT_LT(dev, first);
}

TEST(GpuRules, NothingExistsNothingBoundAndSaysSo) {  // GPU-1
  FakeWorld w;
  w.policy.gpu = true;
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_FALSE(p.refused());
  EXPECT_TRUE(dev_binds(p).empty());
  EXPECT_TRUE(p.gpu.empty());
  ASSERT_FALSE(p.notices.empty());
  EXPECT_NE(p.notices.back().find("no GPU device node was found"), std::string::npos);
}

TEST(GpuRules, GpuOffBindsNothingEvenWhenNodesExist) {  // GPU-1, FS-9
  FakeWorld w;
  w.facts.machine.gpu_devices = kNodes;  // as if read anyway
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_FALSE(p.refused());
  EXPECT_TRUE(dev_binds(p).empty());
  EXPECT_TRUE(p.gpu.empty());
  EXPECT_FALSE(p.env.get("CORDON_GPU").has_value());
}

TEST(GpuRules, AFactOutsideTheListIsNeverBound) {  // GPU-1
  FakeWorld w;
  w.policy.gpu = true;
  w.facts.machine.gpu_devices = {"/dev/sda", "/dev/../etc/shadow", "/home/u/nvidia0",
                                 "/dev/dri/../mem", "/dev", "/dev/nvidia0"};
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_FALSE(p.refused());
  auto binds = dev_binds(p);
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds[0].dest, "/dev/nvidia0");
}

TEST(GpuRules, WslGetsDxgAndItsLibrariesReadOnly) {  // GPU-1
  FakeWorld w;
  w.policy.gpu = true;
  w.facts.machine.gpu_devices = {"/dev/dxg"};
  w.facts.machine.wsl_gpu_libs = true;
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_FALSE(p.refused());
  ASSERT_EQ(dev_binds(p).size(), 1u);
  auto lib = std::find_if(p.mounts.begin(), p.mounts.end(),
                          [](const MountOp& m) { return m.dest == "/usr/lib/wsl"; });
  ASSERT_NE(lib, p.mounts.end());
  EXPECT_EQ(lib->kind, MountKind::kRoBind);
  EXPECT_EQ(p.gpu, (std::vector<std::string>{"/dev/dxg", "/usr/lib/wsl (read-only)"}));
}

TEST(GpuRules, SeatbeltSaysGpuIsNotSupported) {  // GPU-1, MAC-1
  FakeWorld w;
  w.policy.gpu = true;
  w.facts.machine.gpu_devices = kNodes;
  w.facts.machine.sandbox_exec = "/usr/bin/sandbox-exec";
  PlanOptions o;
  o.backend = Backend::kSeatbelt;
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}), o);
  ASSERT_FALSE(p.refused());
  EXPECT_TRUE(dev_binds(p).empty());
  EXPECT_FALSE(p.env.get("CORDON_GPU").has_value());
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings.back().find("not supported with the macOS sandbox"), std::string::npos);
}

TEST(GpuRules, ThePlanCheckDevBindsOnlyNodesUnderDev) {  // GPU-1
  Plan p;
  p.runner = Runner::kSandbox;
  p.argv = {"ls"};
  p.cwd = "/p";
  p.mounts = {{MountKind::kRoBind, "/", "/", "base"}, {MountKind::kDev, "", "/dev", "dev"},
              {MountKind::kDevBind, "/dev/nvidia0", "/dev/nvidia0", "gpu"}};
  EXPECT_FALSE(check_plan(p).has_value());
  for (auto [src, dest] : {std::pair{"/home/u", "/home/u"}, std::pair{"/dev", "/dev"},
                           std::pair{"/dev/sda", "/dev/nvidia0"},
                           std::pair{"/dev/../etc", "/dev/../etc"},
                           std::pair{"/usr/lib/wsl", "/usr/lib/wsl"}}) {
    Plan bad = p;
    bad.mounts.back() = {MountKind::kDevBind, src, dest, "gpu"};
    auto r = check_plan(bad);
    ASSERT_TRUE(r.has_value()) << src;
    EXPECT_EQ(r->reason, ErrorKind::kInvalid);
  }
}

TEST(GpuRules, CudaAndNvidiaVariablesPassTheFilter) {  // GPU-1, ENV-1
  EnvMap env;
  env.set("CUDA_VISIBLE_DEVICES", "0,1");
  env.set("NVIDIA_VISIBLE_DEVICES", "all");
  env.set("NVIDIA_DRIVER_CAPABILITIES", "compute,utility");
  env.set("CUDA_HOME", "/usr/local/cuda");
  env.set("LD_LIBRARY_PATH", "/usr/local/cuda/lib64");
  EnvFilterResult r = filter_env(env, Policy{}, false);
  EXPECT_TRUE(r.stripped.empty());
  EXPECT_EQ(r.kept.vars.size(), 5u);
}

}  // namespace
}  // namespace cordon
