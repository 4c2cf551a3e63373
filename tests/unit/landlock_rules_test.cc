// LL-1, FS-1, FS-2, FS-4: the Landlock backend's path rules.
#include "plan/landlock_rules.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "plan/plan.h"

namespace cordon {
namespace {

bool has(const LandlockRules& r, const std::string& path, LandlockAccess a) {
  return std::find_if(r.grants.begin(), r.grants.end(), [&](const LandlockGrant& g) {
           return g.path == path && g.access == a;
         }) != r.grants.end();
}

bool names(const LandlockRules& r, const std::string& path) {
  return std::any_of(r.grants.begin(), r.grants.end(),
                     [&](const LandlockGrant& g) { return g.path.rfind(path, 0) == 0; });
}

LandlockInput home_with_ssh() {
  LandlockInput in;
  in.hidden = {"/home/u/.ssh"};
  in.listings["/"] = {"bin", "etc", "home", "usr"};
  in.listings["/home"] = {"other", "u"};
  in.listings["/home/u"] = {".bashrc", ".ssh", "p"};
  return in;
}

// LL-1, FS-4: a hidden ~/.ssh gives grants for every other entry of /, /home, /home/u.
TEST(LandlockRules, HiddenSshGrantsEverySiblingDownFromTheRoot) {
  LandlockRules r = landlock_rules(home_with_ssh());
  for (const char* p : {"/bin", "/etc", "/usr", "/home/other", "/home/u/.bashrc", "/home/u/p"})
    EXPECT_TRUE(has(r, p, LandlockAccess::kRead)) << p;
  EXPECT_FALSE(names(r, "/home/u/.ssh"));
  // The parents can be listed, not read whole.
  for (const char* p : {"/", "/home", "/home/u"}) {
    EXPECT_TRUE(has(r, p, LandlockAccess::kList)) << p;
    EXPECT_FALSE(has(r, p, LandlockAccess::kRead)) << p;
  }
  EXPECT_TRUE(r.unlisted.empty());
}

// FS-1: with nothing hidden, the whole filesystem is one read grant.
TEST(LandlockRules, NothingHiddenIsOneGrantOnTheRoot) {
  LandlockRules r = landlock_rules({});
  ASSERT_EQ(r.grants.size(), 1u);
  EXPECT_EQ(r.grants[0], (LandlockGrant{"/", LandlockAccess::kRead, false}));
}

// LL-1: the folders to list are the parents of each hidden path.
TEST(LandlockRules, FoldersToListAreTheParentsOfHiddenPaths) {
  EXPECT_EQ(landlock_folders_to_list({"/home/u/.ssh", "/home/u/.config/gh"}),
            (std::vector<std::string>{"/", "/home", "/home/u", "/home/u/.config"}));
}

// FS-2: writable roots are granted whole; a siblings' link is opened without following it.
TEST(LandlockRules, WritableRootsAndSiblingsNotFollowed) {
  LandlockInput in = home_with_ssh();
  in.writable = {"/home/u/p", "/tmp/cordon-s"};
  LandlockRules r = landlock_rules(in);
  EXPECT_TRUE(has(r, "/home/u/p", LandlockAccess::kReadWrite));
  EXPECT_TRUE(has(r, "/tmp/cordon-s", LandlockAccess::kReadWrite));
  for (const auto& g : r.grants)
    if (g.path == "/home/u/.bashrc") {
      EXPECT_TRUE(g.no_follow);
    }
}

// FS-2, FS-4: a hidden path inside a writable root is left out of the write grant too.
TEST(LandlockRules, HiddenInsideWritableRootIsCarvedOut) {
  LandlockInput in = home_with_ssh();
  in.hidden.push_back("/home/u/p/.secrets");
  in.writable = {"/home/u/p"};
  in.listings["/home/u/p"] = {".secrets", "src"};
  LandlockRules r = landlock_rules(in);
  EXPECT_TRUE(has(r, "/home/u/p/src", LandlockAccess::kReadWrite));
  EXPECT_FALSE(has(r, "/home/u/p", LandlockAccess::kReadWrite));
  EXPECT_FALSE(names(r, "/home/u/p/.secrets"));
}

// FS-3, FS-13: a writable root the planner put inside a hidden folder (the session's temp
// folder in cordon's hidden cache) is granted, and nothing else of that folder.
TEST(LandlockRules, WritableRootInsideHiddenFolderIsGranted) {
  LandlockInput in = home_with_ssh();
  in.hidden.push_back("/home/u/.cache/cordon");
  in.listings["/home/u"].push_back(".cache");
  in.listings["/home/u/.cache"] = {"cordon", "pip"};
  in.writable = {"/home/u/.cache/cordon/sandbox-tmp/s1"};
  LandlockRules r = landlock_rules(in);
  EXPECT_TRUE(has(r, "/home/u/.cache/cordon/sandbox-tmp/s1", LandlockAccess::kReadWrite));
  EXPECT_TRUE(has(r, "/home/u/.cache/pip", LandlockAccess::kRead));
  for (const auto& g : r.grants)
    EXPECT_TRUE(g.path == "/home/u/.cache/cordon/sandbox-tmp/s1" ||
                g.path.rfind("/home/u/.cache/cordon", 0) != 0)
        << g.path;
}

// A folder that could not be listed grants nothing below it (the stricter case).
TEST(LandlockRules, UnlistedGrantsNothing) {
  LandlockInput in = home_with_ssh();
  in.listings.erase("/home");
  LandlockRules r = landlock_rules(in);
  EXPECT_FALSE(names(r, "/home/u"));
  EXPECT_FALSE(names(r, "/home/other"));
  EXPECT_EQ(r.unlisted, (std::vector<std::string>{"/home"}));
}

// FS-9: the machine's terminals and shared memory are hidden from this backend, and no
// terminal device is granted for writing.
TEST(LandlockRules, MachineTerminalsAndSharedMemoryAreHidden) {
  LandlockInput in;
  in.hidden = landlock_machine_private();
  in.devices = landlock_default_devices();
  in.listings["/"] = {"dev", "usr"};
  in.listings["/dev"] = {"mqueue", "null", "pts", "shm", "tty"};
  LandlockRules r = landlock_rules(in);
  EXPECT_TRUE(has(r, "/dev/null", LandlockAccess::kRead));
  EXPECT_TRUE(has(r, "/dev/null", LandlockAccess::kReadWrite));
  for (const char* p : {"/dev/pts", "/dev/shm", "/dev/mqueue"}) EXPECT_FALSE(names(r, p)) << p;
}

// Devices written by name are granted alone, never when hidden.
TEST(LandlockRules, DevicesAreGrantedOneByOne) {
  LandlockInput in;
  in.devices = {"/dev/null"};
  LandlockRules r = landlock_rules(in);
  EXPECT_TRUE(has(r, "/dev/null", LandlockAccess::kReadWrite));
}

// FS-4: the plan's hidden entries as absolute paths; kept-visible ones left out.
TEST(LandlockRules, HiddenPathsOfAPlan) {
  Plan p;
  p.home = "/home/u";
  p.hidden = {{"~/.ssh", ".ssh", "ssh keys", true, ""},
              {"/etc/secret", "/etc/secret", "listed", true, ""},
              {"~/.aws", ".aws", "aws", false, "it holds the project"}};
  EXPECT_EQ(hidden_paths_of(p), (std::vector<std::string>{"/home/u/.ssh", "/etc/secret"}));
  // NET-3: what bubblewrap would cover with an empty file or a copy is hidden whole.
  p.mounts = {{MountKind::kRoBind, "/c/empty", "/home/u/p/.env", "credential"},
              {MountKind::kRoBind, "/home/u/p", "/home/u/p", "project"},
              {MountKind::kBind, "/c/tmp", "/tmp", "private tmp"}};
  EXPECT_EQ(hidden_paths_of(p),
            (std::vector<std::string>{"/home/u/.ssh", "/etc/secret", "/home/u/p/.env"}));
}

}  // namespace
}  // namespace cordon
