// GPU-1 (issue 31): the host reader of the GPU's device nodes (src/host/gpu_facts.cc), on a
// throw-away folder standing in for /dev: only character devices with a listed name count.
#include "host/gpu_facts.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/sysmacros.h>  // makedev (sys/types.h on macOS)
#endif
#include <unistd.h>

#include <fstream>
#include <string>

namespace cordon {
namespace {

class GpuFactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/var/tmp/cordon-gpu-facts-XXXXXX";
    dev_ = mkdtemp(tmpl);
    mkdir((dev_ + "/dri").c_str(), 0755);
    mkdir((dev_ + "/nvidia-caps").c_str(), 0755);
  }
  void TearDown() override { system(("rm -rf " + dev_).c_str()); }
  // A character device, or false when this user may not make one.
  bool node(const std::string& rel, unsigned major, unsigned minor) {
    return mknod((dev_ + "/" + rel).c_str(), S_IFCHR | 0600, makedev(major, minor)) == 0;
  }
  MachineFacts read() {
    MachineFacts m;
    m.gpu_devices = {"/dev/stale"};
    read_gpu_facts(m, GpuFactsInput{dev_, dev_ + "/no-wsl"});
    return m;
  }
  std::string dev_;
};

TEST_F(GpuFactsTest, FilesAndLinksWithTheNamesAreNotDevices) {  // GPU-1
  std::ofstream(dev_ + "/nvidia0") << "not a device\n";
  std::ofstream(dev_ + "/dri/card0") << "not a device\n";
  symlink("/dev/null", (dev_ + "/nvidiactl").c_str());
  mkdir((dev_ + "/nvidia-uvm").c_str(), 0755);
  MachineFacts m = read();
  EXPECT_TRUE(m.gpu_devices.empty());
  EXPECT_FALSE(m.wsl_gpu_libs);
}

TEST_F(GpuFactsTest, ListedCharacterDevicesAreReportedUnderDev) {  // GPU-1
  if (!node("nvidia0", 195, 0))
    GTEST_SKIP() << "mknod needs root (CAP_MKNOD); the file and link cases run as any user";
  ASSERT_TRUE(node("nvidiactl", 195, 255));
  ASSERT_TRUE(node("nvidia-uvm", 510, 0));
  ASSERT_TRUE(node("nvidia-caps/nvidia-cap1", 511, 1));
  ASSERT_TRUE(node("dri/renderD128", 226, 128));
  ASSERT_TRUE(node("sda", 8, 0));           // a disk: never
  ASSERT_TRUE(node("nvidia", 195, 254));    // not a listed name
  ASSERT_TRUE(node("dri/../kmsg", 1, 11));  // beside dri/, not in it
  mkdir((dev_ + "/no-wsl").c_str(), 0755);  // now it exists
  MachineFacts m = read();
  EXPECT_EQ(m.gpu_devices,
            (std::vector<std::string>{"/dev/dri/renderD128", "/dev/nvidia-caps/nvidia-cap1",
                                      "/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidiactl"}));
  EXPECT_TRUE(m.wsl_gpu_libs);
}

TEST_F(GpuFactsTest, AMissingFolderGivesNothing) {  // GPU-1
  MachineFacts m;
  read_gpu_facts(m, GpuFactsInput{dev_ + "/absent", dev_ + "/absent"});
  EXPECT_TRUE(m.gpu_devices.empty());
}

}  // namespace
}  // namespace cordon
