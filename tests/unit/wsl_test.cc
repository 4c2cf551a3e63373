// Windows through WSL2 (WSL-1..3): detection from fake /proc/version and mount tables, the
// Users folders under every spelling, and the planner's rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/strings.h"
#include "fake_facts.h"
#include "plan/planner.h"
#include "plan/wsl_detect.h"

namespace cordon {
namespace {

using testing::FakeWorld;
using testing::file_info;

const char* kWslVersion =
    "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0, "
    "GNU ld (GNU Binutils) 2.37) #1 SMP Fri Mar 29 23:14:13 UTC 2024\n";
const char* kDebianVersion =
    "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) "
    "12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1\n";

// A WSL2 mount table as Ubuntu on WSL 2.x shows it: the root disk, WSL's own 9p mounts (not
// drives), and two Windows drives over 9p with aname=drvfs. `root` is the automount root.
std::string wsl2_mountinfo(const std::string& root = "/mnt") {
  return "62 1 8:32 / / rw,relatime - ext4 /dev/sdc rw,discard,errors=remount-ro\n"
         "63 62 0:56 / /mnt/wsl rw,relatime shared:1 - tmpfs none rw\n"
         "64 62 0:57 / /usr/lib/wsl/drivers ro,nosuid,nodev,noatime - 9p none ro,dirsync,"
         "aname=drivers;fmask=222;dmask=222,mmap,access=client,msize=65536,trans=fd,rfd=7,wfd=7\n"
         "66 62 0:59 / /usr/lib/wsl/lib rw,relatime - overlay none rw,lowerdir=/gpu_lib\n"
         "79 62 0:70 / " +
         root +
         "/c rw,noatime - 9p C:\\134 rw,dirsync,aname=drvfs;path=C:\\;"
         "uid=1000;gid=1000;symlinkroot=/mnt/,mmap,access=client,msize=65536,trans=fd,rfd=5,"
         "wfd=5\n"
         "80 62 0:71 / " +
         root +
         "/d rw,noatime - 9p D:\\134 rw,dirsync,aname=drvfs;path=D:\\;"
         "uid=1000;gid=1000;symlinkroot=/mnt/,mmap,access=client,msize=65536,trans=fd,rfd=6,"
         "wfd=6\n";
}

// A fake machine: folders that exist, and whether a drive folds case.
struct FakeDrives {
  std::map<std::string, std::vector<std::string>> listing;  // folder -> names on disk
  std::set<std::string> folding;                            // drives that fold case
  std::set<std::string> unlistable;
  mutable std::vector<std::string> asked;

  FolderProbe probe() const {
    FolderProbe p;
    p.list = [this](const std::string& d) -> std::optional<std::vector<std::string>> {
      if (unlistable.count(d)) return std::nullopt;
      auto it = listing.find(d);
      if (it == listing.end()) return std::vector<std::string>{};
      return it->second;
    };
    p.is_dir = [this](const std::string& path) {
      asked.push_back(path);
      std::string dir = path.substr(0, path.rfind('/')), name = path.substr(path.rfind('/') + 1);
      auto it = listing.find(dir);
      if (it == listing.end()) return false;
      for (const auto& n : it->second)
        if (n == name || (folding.count(dir) && to_lower(n) == to_lower(name))) return true;
      return false;
    };
    return p;
  }
};

TEST(WslDetect, KernelName) {  // WSL-1, WSL-3
  EXPECT_TRUE(is_wsl_kernel(kWslVersion));
  EXPECT_TRUE(is_wsl_kernel("Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)"));
  EXPECT_FALSE(is_wsl_kernel(kDebianVersion));
  EXPECT_FALSE(is_wsl_kernel(""));
}

TEST(WslDetect, MountinfoEscapesAreUndone) {  // WSL-3
  auto m = parse_mountinfo(
      "79 62 0:70 / /mnt/my\\040drive rw,noatime shared:5 master:2 - 9p C:\\134 rw,aname=drvfs;"
      "path=C:\\;uid=1000\n"
      "garbage line\n"
      "80 62 0:71 / /mnt/x rw - \n");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].mount_point, "/mnt/my drive");
  EXPECT_EQ(m[0].fstype, "9p");
  EXPECT_EQ(m[0].source, "C:\\");
  EXPECT_EQ(windows_drive_letter(m[0]), 'c');
}

TEST(WslDetect, Wsl2DrivesOver9pAreDrivesAndWslsOwn9pMountsAreNot) {  // WSL-1, WSL-3
  EXPECT_EQ(windows_drive_mounts(wsl2_mountinfo()), (std::vector<std::string>{"/mnt/c", "/mnt/d"}));
}

TEST(WslDetect, DrvfsMountsAreDrives) {  // WSL-1 (WSL1 and drvfs-named mounts)
  std::string t =
      "2 0 0:1 / / rw - lxfs rootfs rw\n"
      "5 2 0:4 / /mnt/c rw,noatime - drvfs C:\\134 rw,noacl\n"
      "6 2 0:5 / /mnt/e rw,noatime - drvfs E: rw,noacl\n"
      "7 2 0:6 / /mnt/share rw,noatime - drvfs \\134\\134server\\134share rw,noacl\n";
  EXPECT_EQ(windows_drive_mounts(t), (std::vector<std::string>{"/mnt/c", "/mnt/e"}));
}

TEST(WslDetect, AMovedAutomountRootIsFollowed) {  // WSL-1: the mount table decides
  EXPECT_EQ(windows_drive_mounts(wsl2_mountinfo("/windows")),
            (std::vector<std::string>{"/windows/c", "/windows/d"}));
  EXPECT_EQ(windows_drive_mounts(wsl2_mountinfo("/")), (std::vector<std::string>{"/c", "/d"}));
}

TEST(WslDetect, ALaterMountOverADriveHidesIt) {  // WSL-1
  std::string t = wsl2_mountinfo() + "90 79 0:80 / /mnt/c rw,relatime - tmpfs tmpfs rw\n";
  EXPECT_EQ(windows_drive_mounts(t), (std::vector<std::string>{"/mnt/d"}));
}

TEST(WslDetect, NonWslMachineWithA9pShareHasNoDrives) {  // WSL-1, WSL-3
  std::string t =
      "22 1 8:1 / / rw,relatime - ext4 /dev/vda1 rw\n"
      "40 22 0:45 / /mnt/c rw,relatime - 9p hostshare rw,sync,dirsync,access=client,"
      "trans=virtio\n"
      "41 22 0:46 / /mnt/d rw,relatime - 9p C:\\134 rw,access=client,trans=virtio\n";
  EXPECT_TRUE(windows_drive_mounts(t).empty());  // 9p without aname=drvfs is not a drive
  FakeDrives fs;
  fs.listing["/mnt/c"] = {"Users"};
  MachineFacts m;
  detect_wsl(kDebianVersion, t + wsl2_mountinfo(), fs.probe(), m);
  EXPECT_FALSE(m.wsl);
  EXPECT_TRUE(m.windows_drives.empty());
  EXPECT_TRUE(m.windows_users_dirs.empty());
  EXPECT_TRUE(fs.asked.empty());  // not WSL: no drive is even looked at
}

TEST(WslDetect, CaseSpellings) {  // WSL-1
  auto s = case_spellings("users");
  EXPECT_EQ(s.size(), 32u);
  for (const char* v : {"Users", "users", "USERS", "uSeRs"})
    EXPECT_NE(std::find(s.begin(), s.end(), v), s.end()) << v;
  EXPECT_EQ(std::set<std::string>(s.begin(), s.end()).size(), 32u);
  EXPECT_EQ(case_spellings("a1").size(), 2u);
}

TEST(WslDetect, AFoldingDriveHidesEverySpelling) {  // WSL-1
  FakeDrives fs;
  fs.listing["/mnt/c"] = {"Program Files", "Users", "Windows"};
  fs.listing["/mnt/d"] = {"data"};  // a data drive: no Users folder
  fs.folding = {"/mnt/c", "/mnt/d"};
  MachineFacts m;
  detect_wsl(kWslVersion, wsl2_mountinfo(), fs.probe(), m);
  EXPECT_TRUE(m.wsl);
  EXPECT_EQ(m.windows_drives, (std::vector<std::string>{"/mnt/c", "/mnt/d"}));
  ASSERT_EQ(m.windows_users_dirs.size(), 32u);
  for (const char* p : {"/mnt/c/Users", "/mnt/c/users", "/mnt/c/USERS", "/mnt/c/usErs"})
    EXPECT_NE(std::find(m.windows_users_dirs.begin(), m.windows_users_dirs.end(), p),
              m.windows_users_dirs.end())
        << p;
  for (const auto& u : m.windows_users_dirs) EXPECT_EQ(u.rfind("/mnt/c/", 0), 0u) << u;
}

TEST(WslDetect, ACaseSensitiveDriveHidesTheSpellingsOnDisk) {  // WSL-1
  FakeDrives fs;
  fs.listing["/mnt/c"] = {"Users", "users", "Windows"};  // two real folders
  MachineFacts m;
  detect_wsl(kWslVersion, wsl2_mountinfo(), fs.probe(), m);
  EXPECT_EQ(m.windows_users_dirs, (std::vector<std::string>{"/mnt/c/Users", "/mnt/c/users"}));
}

TEST(WslDetect, AUsersFileIsNotAFolder) {  // WSL-1: spellings that name an existing folder
  FakeDrives fs;
  fs.listing["/mnt/c"] = {"USERS.txt"};
  MachineFacts m;
  detect_wsl(kWslVersion, wsl2_mountinfo(), fs.probe(), m);
  EXPECT_TRUE(m.windows_users_dirs.empty());
}

TEST(WslDetect, AnUnlistableRootIsProbedSpellingBySpelling) {  // WSL-1, the stricter case
  FakeDrives fs;
  fs.listing["/mnt/c"] = {"Users"};
  fs.folding = {"/mnt/c"};
  fs.unlistable = {"/mnt/c"};
  MachineFacts m;
  detect_wsl(kWslVersion, wsl2_mountinfo(), fs.probe(), m);
  EXPECT_EQ(m.windows_users_dirs.size(), 32u);
}

Request cmd() {
  Request r;
  r.argv = {"true"};
  return r;
}

size_t index_of(const Plan& p, const std::string& dest) {
  for (size_t i = 0; i < p.mounts.size(); ++i)
    if (p.mounts[i].dest == dest) return i;
  return SIZE_MAX;
}

// A WSL machine whose C: drive folds case.
FakeWorld wsl_world() {
  FakeWorld w;
  FakeDrives fs;
  fs.listing["/mnt/c"] = {"Users", "Windows"};
  fs.folding = {"/mnt/c"};
  detect_wsl(kWslVersion, wsl2_mountinfo(), fs.probe(), w.facts.machine);
  return w;
}

TEST(WslRules, EveryUsersSpellingReadsAsAnEmptyFolder) {  // WSL-1
  FakeWorld w = wsl_world();
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  size_t hidden = 0;
  for (const auto& u : w.facts.machine.windows_users_dirs) {
    size_t i = index_of(p, u);
    ASSERT_NE(i, SIZE_MAX) << u;
    EXPECT_EQ(p.mounts[i].kind, MountKind::kRoBind);
    EXPECT_EQ(p.mounts[i].src, w.facts.empty_dir);
    EXPECT_GT(i, index_of(p, w.project));  // after the writable binds
    ++hidden;
  }
  EXPECT_EQ(hidden, 32u);
  size_t listed = 0;
  for (const auto& h : p.hidden)
    listed += h.why.find("a Windows drive's Users folder") != std::string::npos;
  EXPECT_EQ(listed, 32u);
  // The rest of the drive stays readable (and read-only, like everything outside the roots).
  EXPECT_EQ(index_of(p, "/mnt/c"), SIZE_MAX);
  EXPECT_LE(p.mount_count(), 256u);
}

TEST(WslRules, NotWslHidesNothing) {  // WSL-1
  FakeWorld w;
  w.facts.machine.windows_users_dirs = {"/mnt/c/Users"};  // wsl = false
  Plan p = make_plan(w.policy, w.facts, cmd());
  EXPECT_EQ(index_of(p, "/mnt/c/Users"), SIZE_MAX);
}

TEST(WslRules, AProjectInsideUsersMakesTheSandboxUnavailable) {  // WSL-2, MODE-4
  for (const char* proj : {"/mnt/c/Users/me/code/app", "/mnt/c/users/me/app", "/mnt/c/USERS/a"}) {
    FakeWorld w = wsl_world();
    w.facts.project = proj;
    w.facts.git.git_dir = w.facts.git.common_dir = std::string(proj) + "/.git";
    Plan p = make_plan(w.policy, w.facts, cmd());
    ASSERT_TRUE(p.refused()) << proj;
    EXPECT_EQ(p.refusal->reason, ErrorKind::kUnavailable);
    const std::string& m = p.refusal->message;
    EXPECT_NE(m.find("inside a Windows Users folder"), std::string::npos) << m;
    EXPECT_NE(m.find(proj), std::string::npos) << m;
    EXPECT_NE(m.find("move the project into the Linux file system"), std::string::npos) << m;
  }
}

TEST(WslRules, AGitFolderInsideUsersMakesTheSandboxUnavailable) {  // WSL-2
  FakeWorld w = wsl_world();
  w.facts.project = "/home/u/wt";  // a worktree whose repository lives under Users
  w.facts.git.git_dir = "/mnt/c/Users/me/repo/.git/worktrees/wt";
  w.facts.git.common_dir = "/mnt/c/Users/me/repo/.git";
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("git folder"), std::string::npos);
}

TEST(WslRules, AProjectElsewhereOnTheDriveKeepsTheSandbox) {  // WSL-2
  FakeWorld w = wsl_world();
  w.facts.project = "/mnt/c/code/app";
  w.facts.git.git_dir = w.facts.git.common_dir = "/mnt/c/code/app/.git";
  Plan p = make_plan(w.policy, w.facts, cmd());
  EXPECT_FALSE(p.refused()) << p.refusal->message;
  w.facts.project = "/mnt/c/UsersArchive/app";  // not the Users folder
  w.facts.git.git_dir = w.facts.git.common_dir = "/mnt/c/UsersArchive/app/.git";
  EXPECT_FALSE(make_plan(w.policy, w.facts, cmd()).refused());
}

TEST(WslRules, AnUnreadableMountTableIsTheStricterCase) {  // WSL-1, MODE-4
  FakeWorld w = wsl_world();
  w.facts.machine.wsl_error = "cannot read /proc/self/mountinfo (Permission denied)";
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_TRUE(p.refused());
  EXPECT_EQ(p.refusal->reason, ErrorKind::kUnavailable);
  EXPECT_NE(p.refusal->message.find("Permission denied"), std::string::npos);
}

TEST(WslRules, AWritablePathInsideUsersIsNamed) {  // WSL-1
  FakeWorld w = wsl_world();
  w.policy.writable = {"~/win"};
  PathInfo l = testing::link_info("/home/u/win", "/mnt/c/Users/me/shared", Kind::kDir);
  w.facts.writable = {l};
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_FALSE(p.refused());
  bool warned = false;
  for (const auto& m : p.warnings) warned |= m.find("/mnt/c/Users") != std::string::npos;
  EXPECT_TRUE(warned);
  // Hidden after the writable bind, so it cannot uncover the Users folder.
  EXPECT_GT(index_of(p, "/mnt/c/Users"), index_of(p, "/mnt/c/Users/me/shared"));
}

}  // namespace
}  // namespace cordon
