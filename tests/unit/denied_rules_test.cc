// CMD-4: the denied commands' rules, one per program (commands/denied_rules.cc's table): each
// entry's edge cases. DeniedRules.Rules (classify_test.cc) holds the first ones.
#include "commands/denied_rules.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cordon {
namespace {

// The word a rule refuses, "" when it lets the command be.
std::string denied(std::string_view program, const std::vector<std::string>& args) {
  auto rule = denied_by_rule(program, args, {"/home/u/proj"}, "/home/u");
  return rule ? rule->word : "";
}

TEST(DeniedRules, NoRule) {  // CMD-4
  EXPECT_EQ(denied("ls", {"-R", "/"}), "");
  EXPECT_EQ(denied("cat", {"/dev/sda"}), "");
}

TEST(DeniedRules, RemoveAndChange) {  // CMD-4
  EXPECT_EQ(denied("rm", {"--no-preserve-root", "x"}), "--no-preserve-root");
  EXPECT_EQ(denied("rm", {"--recursive", "/"}), "/");
  EXPECT_EQ(denied("rm", {"-R", "~"}), "~");
  EXPECT_EQ(denied("chmod", {"000", "/home/u"}), "/home/u");  // even without -R
  EXPECT_EQ(denied("chmod", {"-r", "000", "/"}), "/");        // chmod -r is not recursive
  EXPECT_EQ(denied("chgrp", {"-R", "staff", "/"}), "/");
  EXPECT_EQ(denied("chmod", {"-R", "755", "src"}), "");
}

TEST(DeniedRules, Kill) {  // CMD-4: a pid of -1 is every process
  EXPECT_EQ(denied("kill", {"-9", "-1"}), "-1");
  EXPECT_EQ(denied("kill", {"-n", "9", "-1"}), "-1");
  EXPECT_EQ(denied("kill", {"--", "-1"}), "-1");
  EXPECT_EQ(denied("kill", {"-1"}), "");  // signal 1, no pid
  EXPECT_EQ(denied("kill", {"-s", "-1", "1234"}), "");
  EXPECT_EQ(denied("kill", {"1234"}), "");
}

TEST(DeniedRules, PowerVerbs) {  // CMD-4: systemctl, loginctl, the system bus
  EXPECT_EQ(denied("systemctl", {"reboot"}), "reboot");
  EXPECT_EQ(denied("systemctl", {"start", "poweroff.target"}), "poweroff.target");
  EXPECT_EQ(denied("systemctl", {"isolate", "rescue.target"}), "isolate");
  EXPECT_EQ(denied("systemctl", {"status", "nginx"}), "");
  EXPECT_EQ(denied("loginctl", {"terminate-user", "u"}), "terminate-user");
  EXPECT_EQ(denied("loginctl", {"list-sessions"}), "");
  EXPECT_EQ(denied("busctl", {"call", "org.freedesktop.login1", "/", "x", "PowerOff"}),
            "org.freedesktop.login1");
  EXPECT_EQ(denied("gdbus", {"call", "--system", "--dest", "org.freedesktop.systemd1", "--method",
                             "org.freedesktop.systemd1.Manager.Reboot"}),
            "org.freedesktop.systemd1.Manager.Reboot");
  EXPECT_EQ(denied("dbus-send", {"--system", "/org/freedesktop/login1"}),
            "/org/freedesktop/login1");
  EXPECT_EQ(denied("busctl", {"introspect", "org.freedesktop.systemd1", "/"}), "");
  EXPECT_EQ(denied("busctl", {"call", "org.example", "/", "x", "Reboot"}), "");
}

TEST(DeniedRules, Move) {  // CMD-4: moving a protected folder away, or onto a device
  EXPECT_EQ(denied("mv", {"~", "/tmp/x"}), "~");
  EXPECT_EQ(denied("mv", {"x", "~"}), "");  // the destination
  EXPECT_EQ(denied("mv", {"-t", "/tmp/x", "/home/u"}), "/home/u");
  EXPECT_EQ(denied("mv", {"--target-directory=/tmp/x", "/"}), "/");
  EXPECT_EQ(denied("mv", {"-t/tmp/x", "/usr"}), "/usr");
  EXPECT_EQ(denied("mv", {"x", "/dev/sda"}), "/dev/sda");
  EXPECT_EQ(denied("mv", {"a", "b"}), "");
}

TEST(DeniedRules, Rsync) {  // CMD-4: --delete into a protected folder, and devices as cp
  EXPECT_EQ(denied("rsync", {"-a", "--delete", "src/", "/home/u"}), "/home/u");
  EXPECT_EQ(denied("rsync", {"-a", "--delete-after", "src/", "/"}), "/");
  EXPECT_EQ(denied("rsync", {"-a", "--delete", "/home/u/", "backup/"}), "");
  EXPECT_EQ(denied("rsync", {"--remove-source-files", "/home/u", "/backup/u"}), "/home/u");
  EXPECT_EQ(denied("rsync", {"img", "/dev/sda"}), "/dev/sda");
  EXPECT_EQ(denied("rsync", {"-a", "src/", "dst/"}), "");
}

TEST(DeniedRules, OntoDevices) {  // CMD-4: cp, tee, shred, install, pv
  EXPECT_EQ(denied("cp", {"img", "/dev/sda"}), "/dev/sda");
  EXPECT_EQ(denied("tee", {"/dev/nvme0n1"}), "/dev/nvme0n1");
  EXPECT_EQ(denied("shred", {"/dev/sdb"}), "/dev/sdb");
  EXPECT_EQ(denied("install", {"x", "/dev/vda"}), "/dev/vda");
  EXPECT_EQ(denied("pv", {"img", "/dev/mmcblk0"}), "/dev/mmcblk0");
  EXPECT_EQ(denied("cp", {"x", "/dev/null"}), "");
  EXPECT_EQ(denied("cp", {"-r", "/", "/tmp/x"}), "");  // copying reads it
}

TEST(DeniedRules, FindDelete) {  // CMD-4: find / -delete is rm -rf /
  EXPECT_EQ(denied("find", {"/", "-delete"}), "/");
  EXPECT_EQ(denied("find", {"/home/u", "-name", "x", "-delete"}), "/home/u");
  EXPECT_EQ(denied("find", {".", "-delete"}), "");
  EXPECT_EQ(denied("find", {"/", "-name", "x"}), "");
  EXPECT_EQ(denied("find", {"-delete"}), "");
}

}  // namespace
}  // namespace cordon
