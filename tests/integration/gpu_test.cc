// GPU-1 (issue 31): [sandbox] gpu = true in real sandboxes. Device nodes made for the test
// (mknod, as root) in a throw-away tmpfs that a private mount namespace (`unshare -m`) puts over
// /dev, so cordon reads them as the machine's; nvidia-smi where a GPU exists.
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

namespace cordon::it {
namespace {

// $0: the throw-away folder; the rest: the command run with that folder as /dev. The nodes
// bwrap's fresh /dev takes from the machine's (null, zero, ...) are made too.
constexpr const char* kFakeDev = R"(set -e
d=$0
mount -t tmpfs -o mode=755 cordon-gpu-test "$d"
mknod -m 666 "$d/null" c 1 3; mknod -m 666 "$d/zero" c 1 5; mknod -m 666 "$d/full" c 1 7
mknod -m 666 "$d/random" c 1 8; mknod -m 666 "$d/urandom" c 1 9; mknod -m 666 "$d/tty" c 5 0
ln -s /proc/self/fd "$d/fd"
mkdir "$d/pts" "$d/shm" "$d/dri"
mknod -m 666 "$d/nvidia0" c 195 0; mknod -m 666 "$d/nvidiactl" c 195 255
mknod -m 666 "$d/dri/card0" c 226 0
mknod -m 600 "$d/sda" c 8 0
mount --bind "$d" /dev
exec "$@"
)";

constexpr const char* kAllThere =
    "test -c /dev/nvidia0 && test -c /dev/nvidiactl && test -c /dev/dri/card0 && echo GPU";
constexpr const char* kNoneThere =
    "test -e /dev/nvidia0 || test -e /dev/nvidiactl || test -e /dev/dri/card0 || echo NONE";

// Runs `cordon ARGS...` with the fake /dev (root only: can_make_a_fake_dev).
Proc with_fake_dev(const World& w, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"unshare", "-m", "--propagation", "private", "--",
                                   "/bin/sh", "-c", kFakeDev, w.root() + "/fake-dev",
                                   cordon_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  mkdir((w.root() + "/fake-dev").c_str(), 0755);
  return run_program(argv, w.env, w.project());
}

bool can_make_a_fake_dev(const World& w) {
  return geteuid() == 0 && w.host({"unshare", "-m", "true"}).status == 0;
}

TEST(Gpu, DeviceNodesThatExistAreBoundWithGpuOn) {  // GPU-1, FS-9
  REQUIRE_SANDBOX();
  World w;
  if (!can_make_a_fake_dev(w))
    GTEST_SKIP() << "making device nodes (mknod) and a private /dev (unshare -m) needs root";
  w.config("[sandbox]\ngpu = true\n");
  Proc r = with_fake_dev(
      w, {"run", "--", "/bin/sh", "-c",
          std::string(kAllThere) + "; test -e /dev/sda || echo NO-DISK; echo \"gpu=$CORDON_GPU\"; "
                                   "test -r /sys/class && echo SYS"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("GPU\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("NO-DISK\n"), std::string::npos) << r.out;  // only the GPU's nodes
  EXPECT_NE(r.out.find("gpu=1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SYS\n"), std::string::npos) << r.out;
  // CFG-6: cordon policy lists what was bound.
  Proc p = with_fake_dev(w, {"policy"});
  EXPECT_EQ(p.status, 0) << p.err;
  for (const char* node : {"/dev/nvidia0", "/dev/nvidiactl", "/dev/dri/card0"})
    EXPECT_NE(p.out.find(std::string("  ") + node + "\n"), std::string::npos) << node << p.out;
  EXPECT_EQ(p.out.find("/dev/sda"), std::string::npos) << p.out;
  Proc j = with_fake_dev(w, {"policy", "--json"});
  EXPECT_NE(j.out.find("\"/dev/nvidiactl\""), std::string::npos) << j.out;
}

TEST(Gpu, NoDeviceNodesWithGpuOff) {  // GPU-1, FS-9
  REQUIRE_SANDBOX();
  World w;
  if (!can_make_a_fake_dev(w))
    GTEST_SKIP() << "making device nodes (mknod) and a private /dev (unshare -m) needs root";
  Proc r = with_fake_dev(w, {"run", "--", "/bin/sh", "-c",
                              std::string(kNoneThere) + "; echo \"gpu=${CORDON_GPU-unset}\""});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("NONE\ngpu=unset\n"), std::string::npos) << r.out << r.err;
  Proc p = with_fake_dev(w, {"policy"});
  EXPECT_EQ(p.out.find("/dev/nvidia0"), std::string::npos) << p.out;
}

// As any user, on a machine without a GPU: the command runs, and the start notice and
// `cordon policy` say nothing was bound.
TEST(Gpu, GpuOnWithoutAGpuRunsAndSaysNothingWasBound) {  // GPU-1, CFG-6
  REQUIRE_SANDBOX();
  World w;
  struct stat st;
  for (const char* node : {"/dev/nvidiactl", "/dev/nvidia0", "/dev/dri", "/dev/dxg"})
    if (stat(node, &st) == 0) GTEST_SKIP() << node << " exists here: this test wants none";
  w.config("[sandbox]\ngpu = true\n");
  Proc r = w.sh("echo \"gpu=$CORDON_GPU\"; ls /dev | grep -c nvidia || true");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "gpu=1\n0\n") << r.err;
  Proc p = w.cordon({"policy"});
  EXPECT_EQ(p.status, 0) << p.err;
  EXPECT_NE(p.out.find("(nothing bound: no GPU device node found)"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("no GPU device node was found"), std::string::npos) << p.out;
}

TEST(Gpu, NvidiaSmiRunsWhereAGpuExists) {  // GPU-1
  REQUIRE_SANDBOX();
  World w;
  struct stat st;
  if (stat("/dev/nvidiactl", &st) != 0 || w.host({"sh", "-c", "command -v nvidia-smi"}).status)
    GTEST_SKIP() << "no NVIDIA GPU here (/dev/nvidiactl or nvidia-smi is missing)";
  w.config("[sandbox]\ngpu = true\n");
  Proc r = w.cordon({"run", "--", "nvidia-smi", "-L"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("GPU 0"), std::string::npos) << r.out;
  w.config("");  // and without gpu, the driver cannot be reached
  EXPECT_NE(w.cordon({"run", "--", "nvidia-smi", "-L"}).status, 0);
}

}  // namespace
}  // namespace cordon::it
