// PROBE-4: bwrap's real messages, row by row, in every spelling bwrap used across versions.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "render/bwrap_diagnosis.h"
#include "render/bwrap_version.h"
#include "test_paths.h"

namespace cordon {
namespace {

HostHints ubuntu() {
  HostHints h;
  h.apparmor_restrict_userns = 1;
  h.max_user_namespaces = 63000;
  h.bwrap_path = "/usr/bin/bwrap";
  h.config_file = "/home/u/.config/cordon/config.toml";
  return h;
}

HostHints plain() {
  HostHints h;
  h.bwrap_path = "/usr/bin/bwrap";
  h.config_file = "/home/u/.config/cordon/config.toml";
  return h;
}

HostHints docker() {
  HostHints h = plain();
  h.container = "/.dockerenv";
  h.container_kind = "docker";
  return h;
}

HostHints podman() {
  HostHints h = plain();
  h.container = "/run/.containerenv";
  h.container_kind = "podman";
  return h;
}

struct Case {
  const char* message;  // bwrap's stderr, as it prints it
  const char* row;
};

// Every message bwrap prints for the failures users meet (bubblewrap.c, network.c, 0.6 .. 0.11).
const Case kCases[] = {
    {"bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted\n", "loopback_newaddr"},
    {"bwrap: loopback: Failed RTM_NEWLINK: Operation not permitted\n", "loopback_newlink"},
    {"bwrap: setting up uid map: Permission denied\n", "uid_map"},
    {"bwrap: setting up gid map: Permission denied\n", "gid_map"},
    {"bwrap: error writing to setgroups: Permission denied\n", "setgroups"},
    // Before bwrap 0.11.1:
    {"bwrap: No permissions to creating new namespace, likely because the kernel does not allow "
     "non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl "
     "kernel.unprivileged_userns_clone=1'.\n",
     "userns_not_permitted"},
    // bwrap 0.11.1 and later:
    {"bwrap: No permissions to create a new namespace, likely because the kernel does not allow "
     "non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl "
     "kernel.unprivileged_userns_clone=1'.\n",
     "userns_not_permitted"},
    {"bwrap: Creating new namespace failed, likely because the kernel does not support user "
     "namespaces.  bwrap must be installed setuid on such systems.\n",
     "userns_unsupported"},
    // bwrap 0.7 and later name the limit; 0.6 prints the errno.
    {"bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces "
     "exceeded (ENOSPC)\n",
     "userns_limit"},
    {"bwrap: Creating new namespace failed: No space left on device\n", "userns_limit"},
    {"bwrap: Creating new namespace failed: Operation not permitted\n", "new_namespace_failed"},
    {"bwrap: Failed to make / slave: Permission denied\n", "root_slave"},
    {"bwrap: Failed to make / slave: Operation not permitted\n", "root_slave"},
    {"bwrap: Failed to mount tmpfs: Operation not permitted\n", "mount_tmpfs"},
    {"bwrap: setting up newroot bind: Operation not permitted\n", "newroot_bind"},
    {"bwrap: pivot_root: Operation not permitted\n", "pivot_root"},
    {"bwrap: Can't mount devpts on /newroot/dev/pts: Operation not permitted\n", "mount_devpts"},
    {"bwrap: Can't mount proc on /newroot/proc: Operation not permitted\n", "mount_proc"},
    {"bwrap: Can't mount proc on /newroot/proc: Permission denied\n", "mount_proc"},
    {"bwrap: Unknown option --disable-userns\n", "unknown_option"},
    {"bwrap: Unknown option --size\n", "unknown_option"},
    {"bwrap: creation of new user namespaces was not disabled as requested\n", "disable_userns"},
    {"bwrap: cannot open /proc/sys/user/max_user_namespaces: No such file or directory\n",
     "disable_userns"},
};

TEST(BwrapDiagnosis, EveryMessageFindsItsRow) {  // PROBE-4
  for (const auto& c : kCases) {
    for (const HostHints& h : {ubuntu(), plain(), docker(), podman()}) {
      Diagnosis d = diagnose_bwrap_message(c.message, h);
      EXPECT_EQ(d.row, c.row) << c.message;
      EXPECT_FALSE(d.step.empty()) << c.message;
      EXPECT_FALSE(d.cause.empty()) << c.message;
      EXPECT_FALSE(d.fix.empty()) << c.message;
      // Never PROBE-2's "no setting fixes this" for a known message.
      EXPECT_EQ(d.fix.find("no setting fixes"), std::string::npos) << c.message;
      EXPECT_EQ(d.cause.find('\n'), std::string::npos) << "one line of cause: " << c.message;
      EXPECT_EQ(d.fix.find('\n'), std::string::npos) << "one line of fix: " << c.message;
    }
  }
}

TEST(BwrapDiagnosis, EveryRowHasAMessageInTheTests) {  // PROBE-4
  std::set<std::string> covered;
  for (const auto& c : kCases) covered.insert(c.row);
  for (const auto& row : bwrap_message_table()) EXPECT_TRUE(covered.count(row.id)) << row.id;
}

TEST(BwrapDiagnosis, UbuntuNamesTheAppArmorProfileFirstThenTheSysctl) {  // PROBE-4
  for (const char* m : {"bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted",
                        "bwrap: loopback: Failed RTM_NEWLINK: Operation not permitted",
                        "bwrap: setting up uid map: Permission denied"}) {
    Diagnosis d = diagnose_bwrap_message(m, ubuntu());
    EXPECT_NE(d.cause.find("AppArmor"), std::string::npos) << d.cause;
    EXPECT_NE(d.cause.find("kernel.apparmor_restrict_unprivileged_userns = 1"), std::string::npos)
        << d.cause;
    size_t profile = d.fix.find("sudo cordon setup apparmor");
    size_t sysctl = d.fix.find("kernel.apparmor_restrict_unprivileged_userns=0");
    ASSERT_NE(profile, std::string::npos) << d.fix;
    ASSERT_NE(sysctl, std::string::npos) << d.fix;
    EXPECT_LT(profile, sysctl) << d.fix;
    EXPECT_NE(d.fix.find("/etc/apparmor.d/bwrap"), std::string::npos) << d.fix;
    EXPECT_NE(d.fix.find("/usr/bin/bwrap"), std::string::npos) << d.fix;
    EXPECT_EQ(d.fix.find("external"), std::string::npos) << "not a container: " << d.fix;
  }
  // Without the sysctl readable (an older kernel's view), the AppArmor fix is still the one.
  Diagnosis d = diagnose_bwrap_message("bwrap: setting up uid map: Permission denied", plain());
  EXPECT_NE(d.fix.find("sudo cordon setup apparmor"), std::string::npos) << d.fix;
}

TEST(BwrapDiagnosis, ContainersNameExternalModeFirstThenTheRuntimeOptions) {  // PROBE-4
  Diagnosis d =
      diagnose_bwrap_message("bwrap: Failed to make / slave: Permission denied", docker());
  EXPECT_EQ(d.step, "making / a slave mount (mount propagation)");
  EXPECT_NE(d.cause.find("container (/.dockerenv)"), std::string::npos) << d.cause;
  EXPECT_NE(d.cause.find(d.step), std::string::npos) << "names the step: " << d.cause;
  size_t external = d.fix.find("mode = \"external\"");
  size_t options = d.fix.find(
      "--security-opt seccomp=unconfined --security-opt "
      "apparmor=unconfined");
  ASSERT_NE(external, std::string::npos) << d.fix;
  ASSERT_NE(options, std::string::npos) << d.fix;
  EXPECT_LT(external, options);
  EXPECT_NE(d.fix.find("/home/u/.config/cordon/config.toml"), std::string::npos) << d.fix;
  EXPECT_EQ(d.fix.find("Podman"), std::string::npos) << "Docker only: " << d.fix;

  d = diagnose_bwrap_message("bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
                             podman());
  EXPECT_EQ(d.step, "mounting a fresh /proc");
  external = d.fix.find("mode = \"external\"");
  options = d.fix.find("--security-opt unmask=/proc/*");
  ASSERT_NE(external, std::string::npos) << d.fix;
  ASSERT_NE(options, std::string::npos) << d.fix;
  EXPECT_LT(external, options);

  d = diagnose_bwrap_message("bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
                             docker());
  EXPECT_NE(d.fix.find("--security-opt systempaths=unconfined"), std::string::npos) << d.fix;

  // A container without the AppArmor switch: a refused uid map is the container's doing.
  d = diagnose_bwrap_message("bwrap: setting up uid map: Permission denied", docker());
  EXPECT_LT(d.fix.find("mode = \"external\""), d.fix.find("--security-opt")) << d.fix;
  // An unknown runtime: both runtimes' options.
  HostHints k8s = plain();
  k8s.container = "/proc/1/cgroup names kubepods";
  d = diagnose_bwrap_message("bwrap: Creating new namespace failed: Operation not permitted", k8s);
  EXPECT_NE(d.fix.find("Docker"), std::string::npos) << d.fix;
  EXPECT_NE(d.fix.find("Podman"), std::string::npos) << d.fix;
  EXPECT_NE(d.cause.find("kubepods"), std::string::npos) << d.cause;
}

TEST(BwrapDiagnosis, UbuntuInAContainerStillSaysExternalFirst) {  // PROBE-4
  HostHints h = ubuntu();
  h.container = "/.dockerenv";
  h.container_kind = "docker";
  Diagnosis d =
      diagnose_bwrap_message("bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted", h);
  EXPECT_LT(d.fix.find("mode = \"external\""), d.fix.find("sudo cordon setup apparmor")) << d.fix;
}

TEST(BwrapDiagnosis, KernelsWithoutUserNamespacesNameTheSysctls) {  // PROBE-4
  HostHints h = plain();
  h.unprivileged_userns_clone = 0;
  Diagnosis d = diagnose_bwrap_message(
      "bwrap: No permissions to create a new namespace, likely because the kernel does not "
      "allow non-privileged user namespaces.",
      h);
  EXPECT_NE(d.cause.find("kernel.unprivileged_userns_clone = 0"), std::string::npos) << d.cause;
  EXPECT_NE(d.fix.find("sysctl -w kernel.unprivileged_userns_clone=1"), std::string::npos);
  h.unprivileged_userns_clone = -1;
  h.max_user_namespaces = 0;
  d = diagnose_bwrap_message("bwrap: No permissions to creating new namespace, likely ...", h);
  EXPECT_NE(d.fix.find("user.max_user_namespaces=15000"), std::string::npos) << d.fix;
  EXPECT_EQ(d.fix.find("unprivileged_userns_clone"), std::string::npos) << d.fix;
  // Neither known: both named.
  d = diagnose_bwrap_message("bwrap: No permissions to creating new namespace", plain());
  EXPECT_NE(d.fix.find("unprivileged_userns_clone=1"), std::string::npos) << d.fix;
  EXPECT_NE(d.fix.find("user.max_user_namespaces"), std::string::npos) << d.fix;
}

TEST(BwrapDiagnosis, UnknownOptionNamesTheOptionAndTheVersion) {  // PROBE-4
  HostHints h = plain();
  h.bwrap_version = BwrapVersion{0, 7, 0};
  Diagnosis d = diagnose_bwrap_message("bwrap: Unknown option --disable-userns\n", h);
  EXPECT_NE(d.cause.find("bwrap 0.7.0 does not know --disable-userns"), std::string::npos)
      << d.cause;
  EXPECT_NE(d.fix.find("0.8 or newer"), std::string::npos) << d.fix;
}

TEST(BwrapDiagnosis, AnUnknownMessageIsPROBE2sReport) {  // PROBE-2
  Diagnosis d = diagnose_bwrap_message("bwrap: something new: Invalid argument\n", ubuntu());
  EXPECT_EQ(d.row, "");
  EXPECT_EQ(d.cause,
            "the sandbox did not hold (bwrap_runs): bwrap: something new: Invalid argument");
  EXPECT_NE(d.fix.find("please report"), std::string::npos);
}

TEST(BwrapDiagnosis, AppArmorProfileIsTheOneSPECNames) {  // PROBE-4
  std::string p = apparmor_profile("/usr/bin/bwrap");
  EXPECT_NE(p.find("profile bwrap /usr/bin/bwrap flags=(unconfined) {\n  userns,\n"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("abi <abi/4.0>,"), std::string::npos) << p;
  EXPECT_EQ(p.back(), '\n');
}

TEST(BwrapVersion, ParsesWhatBwrapPrints) {  // PROBE-4
  EXPECT_EQ(parse_bwrap_version("bubblewrap 0.6.1\n"), (BwrapVersion{0, 6, 1}));
  EXPECT_EQ(parse_bwrap_version("bubblewrap 0.11.0"), (BwrapVersion{0, 11, 0}));
  EXPECT_EQ(parse_bwrap_version("bubblewrap 0.8"), (BwrapVersion{0, 8, 0}));
  EXPECT_EQ(parse_bwrap_version("bubblewrap 0.4.0-rc1"), (BwrapVersion{0, 4, 0}));
  EXPECT_EQ(parse_bwrap_version("bwrap 0.6.1"), std::nullopt);
  EXPECT_EQ(parse_bwrap_version("bubblewrap x.y"), std::nullopt);
  EXPECT_EQ(parse_bwrap_version("bubblewrap 1"), std::nullopt);
  EXPECT_EQ(parse_bwrap_version(""), std::nullopt);
}

TEST(BwrapVersion, OptionsFollowTheVersion) {  // PROBE-4
  auto f = bwrap_features(BwrapVersion{0, 6, 1});
  EXPECT_FALSE(f.disable_userns);
  EXPECT_FALSE(f.size);
  f = bwrap_features(BwrapVersion{0, 7, 0});
  EXPECT_FALSE(f.disable_userns);
  EXPECT_TRUE(f.size);
  f = bwrap_features(BwrapVersion{0, 8, 0});
  EXPECT_TRUE(f.disable_userns);
  EXPECT_TRUE(f.size);
  // Unknown: the newest, so an old bwrap's "Unknown option" is diagnosed, never silent.
  f = bwrap_features(std::nullopt);
  EXPECT_TRUE(f.disable_userns);
  EXPECT_TRUE(f.size);
}

TEST(BwrapVersion, RefusesBelowTheOldestSupported) {  // PROBE-4
  EXPECT_EQ(bwrap_too_old(BwrapVersion{0, 6, 0}, "/usr/bin/bwrap"), std::nullopt);
  EXPECT_EQ(bwrap_too_old(std::nullopt, "/usr/bin/bwrap"), std::nullopt);
  auto r = bwrap_too_old(BwrapVersion{0, 5, 0}, "/usr/bin/bwrap");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "bwrap 0.5.0 at /usr/bin/bwrap is older than cordon needs (0.6.0 or newer)");
}

// PROBE-4: the README's Troubleshooting section is the table's own words. Regenerate it with
// CORDON_UPDATE_GOLDEN=1.
TEST(BwrapDiagnosis, ReadmeTroubleshootingIsGeneratedFromTheTable) {
  const std::string path = test_golden_dir() + "/../../README.md";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string readme = ss.str();
  const std::string begin =
      "<!-- troubleshooting: generated from src/render/"
      "bwrap_diagnosis.cc; CORDON_UPDATE_GOLDEN=1 unit_tests rewrites it "
      "-->\n";
  const std::string end = "<!-- troubleshooting end -->";
  size_t b = readme.find(begin), e = readme.find(end);
  ASSERT_NE(b, std::string::npos) << "README.md lacks the marker: " << begin;
  ASSERT_NE(e, std::string::npos) << "README.md lacks the marker: " << end;
  ASSERT_LT(b, e);
  std::string generated = troubleshooting_markdown();
  std::string current = readme.substr(b + begin.size(), e - b - begin.size());
  if (std::getenv("CORDON_UPDATE_GOLDEN")) {
    readme.replace(b + begin.size(), e - b - begin.size(), generated);
    std::ofstream(path) << readme;
    return;
  }
  EXPECT_EQ(current, generated) << "README.md's Troubleshooting differs from the table";
  // Every row's messages are there.
  for (const auto& row : bwrap_message_table())
    for (const char* n : row.needles) EXPECT_NE(current.find(n), std::string::npos) << n;
}

}  // namespace
}  // namespace cordon
