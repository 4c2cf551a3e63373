// LL-1, GIT-1, GIT-9, PROT-7: under a backend that cannot make git's auto-run files read-only,
// which paths are guarded, bytes and all, and what aftercare does with a change.
#include <gtest/gtest.h>

#include "plan/content_guard.h"

namespace cordon {
namespace {

const std::string kProject = "/home/u/proj";
const std::string kGit = kProject + "/.git";

Facts facts_with_git() {
  Facts f;
  f.project = kProject;
  f.git.git_dir = kGit;
  f.git.common_dir = kGit;
  return f;
}

Plan landlock_plan() {
  Plan p;
  p.locks_git_files = false;
  p.mounts = {
      {MountKind::kRoBind, kGit + "/hooks/pre-push", kGit + "/hooks/pre-push", "git: hook target"},
      {MountKind::kRoBind, kGit + "/hooks", kGit + "/hooks", "git: hooks folder"},
      {MountKind::kRoBind, kGit + "/config", kGit + "/config", "git: repository config"},
      {MountKind::kRoBind, kProject + "/.envrc", kProject + "/.envrc", "protected: .envrc"},
      {MountKind::kRoBind, kProject + "/gone", kProject + "/gone",
       "protected: unreadable folder"},
      {MountKind::kRoBind, "/empty", "/home/u/.ssh", "hidden: ~/.ssh"},
      {MountKind::kBind, kGit, kGit, "pinned: cannot be renamed, removed or replaced"},
      {MountKind::kRoBind, "/etc/gitconfig", "/etc/gitconfig", "git: system config"},
  };
  return p;
}

TEST(ContentGuard, TargetsAreTheReadOnlyBindsLandlockCannotMake) {  // LL-1, GIT-1, PROT-2
  auto t = guard_targets(landlock_plan(), facts_with_git());
  ASSERT_EQ(t.size(), 4u);
  // Parents first, each beneath the deepest root that holds it.
  EXPECT_EQ(t[0], (GuardTarget{kGit, "hooks", ".git/hooks", {}}));
  EXPECT_EQ(t[1], (GuardTarget{kGit, "config", ".git/config", {}}));
  EXPECT_EQ(t[2], (GuardTarget{kProject, ".envrc", ".envrc", {}}));
  EXPECT_EQ(t[3], (GuardTarget{kGit, "hooks/pre-push", ".git/hooks/pre-push", {}}));
}

// PROT-1: a read-only .claude keeps .claude/worktrees writable (a later writable bind): under
// Landlock it is not judged either. A pin made before the read-only bind is no carve-out.
TEST(ContentGuard, AWritableBindMadeLaterInsideIsLeftOut) {  // LL-1, PROT-1
  Plan p;
  p.locks_git_files = false;
  const std::string claude = kProject + "/.claude";
  p.mounts = {
      {MountKind::kBind, claude, claude, "pinned: cannot be renamed, removed or replaced"},
      {MountKind::kRoBind, claude, claude, "protected: .claude whole"},
      {MountKind::kBind, claude + "/worktrees", claude + "/worktrees",
       "writable: .claude/worktrees"},
  };
  auto t = guard_targets(p, facts_with_git());
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0], (GuardTarget{kProject, ".claude", ".claude", {".claude/worktrees"}}));
}

TEST(ContentGuard, BubblewrapKeepsThemReadOnlyAndGuardsNothing) {  // LL-1, GIT-1
  Plan p = landlock_plan();
  p.locks_git_files = true;
  EXPECT_TRUE(guard_targets(p, facts_with_git()).empty());
  p.locks_git_files = false;
  p.runner = Runner::kUnconfined;
  EXPECT_TRUE(guard_targets(p, facts_with_git()).empty());
}

GuardedEntry file(const std::string& rel, const std::string& bytes, uint64_t ino,
                  bool in_folder = false) {
  GuardedEntry e;
  e.root = kGit;
  e.rel = rel;
  e.shown = ".git/" + rel;
  e.kind = Kind::kFile;
  e.dev = 1;
  e.ino = ino;
  e.size = bytes.size();
  e.mode = 0644;
  e.has_content = true;
  e.content = bytes;
  e.in_folder = in_folder;
  return e;
}

GuardedEntry folder(const std::string& rel, uint64_t ino) {
  GuardedEntry e;
  e.root = kGit;
  e.rel = rel;
  e.shown = ".git/" + rel;
  e.kind = Kind::kDir;
  e.dev = 1;
  e.ino = ino;
  e.mode = 0755;
  e.listed = true;
  return e;
}

GuardedEntry missing(GuardedEntry e) {
  e.kind = Kind::kMissing;
  e.dev = e.ino = e.size = 0;
  e.mode = 0;
  e.has_content = false;
  e.content.clear();
  e.listed = false;
  return e;
}

using Do = GuardStep::Do;

TEST(ContentGuard, NothingChangedNothingDone) {  // LL-1
  std::vector<GuardedEntry> b = {file("config", "[core]\n", 10), folder("hooks", 11),
                                 file("hooks/pre-push", "#!/bin/sh\n", 12, true)};
  EXPECT_TRUE(compare_guarded(b, b).empty());
}

TEST(ContentGuard, AppendedConfigIsMovedAsideAndPutBack) {  // LL-1, GIT-1, PROT-7
  std::vector<GuardedEntry> b = {file("config", "[core]\n", 10)};
  std::vector<GuardedEntry> a = {file("config", "[core]\n\tfsmonitor = x\n", 10)};
  auto s = compare_guarded(b, a);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].what, Do::kMoveAside);
  EXPECT_EQ(s[0].rel, "config");
  EXPECT_FALSE(s[0].to_project_root);
  EXPECT_EQ(s[1].what, Do::kRestore);
  EXPECT_EQ(s[1].index, 0u);
}

TEST(ContentGuard, SameBytesOtherIdentityOrModeIsAChange) {  // LL-1, GIT-9
  std::vector<GuardedEntry> b = {file("config", "[core]\n", 10)};
  auto a = b;
  a[0].ino = 99;  // a hard link or copy put in its place
  EXPECT_EQ(compare_guarded(b, a).size(), 2u);
  a = b;
  a[0].mode = 0755;
  EXPECT_EQ(compare_guarded(b, a).size(), 2u);
  a = b;
  a[0].kind = Kind::kSymlink;  // a link put in its place: moved aside as the link
  a[0].link_target = "/home/u/.gitconfig";
  auto s = compare_guarded(b, a);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].what, Do::kMoveAside);
}

TEST(ContentGuard, RemovedFileIsPutBackWithoutAMove) {  // LL-1, PROT-7
  std::vector<GuardedEntry> b = {file("config", "[core]\n", 10)};
  std::vector<GuardedEntry> a = {missing(b[0])};
  auto s = compare_guarded(b, a);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].what, Do::kRestore);
  EXPECT_FALSE(s[0].quiet);
}

TEST(ContentGuard, NewHookInAListedFolderIsMovedAside) {  // LL-1, GIT-1, PROT-7
  std::vector<GuardedEntry> b = {folder("hooks", 11)};
  auto a = b;
  a.push_back(file("hooks/pre-commit", "#!/bin/sh\necho pwned\n", 13, true));
  auto s = compare_guarded(b, a);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].what, Do::kMoveAside);
  EXPECT_EQ(s[0].rel, "hooks/pre-commit");
  EXPECT_TRUE(s[0].to_project_root);
  // A folder not listed whole (past the limits): a new name in it is not judged here.
  b[0].listed = false;
  a[0].listed = false;
  EXPECT_TRUE(compare_guarded(b, a).empty());
}

TEST(ContentGuard, ReplacedFolderIsPutBackWithWhatWasInIt) {  // LL-1, GIT-9
  std::vector<GuardedEntry> b = {folder("hooks", 11),
                                 file("hooks/pre-push", "#!/bin/sh\n", 12, true)};
  std::vector<GuardedEntry> a = {folder("hooks", 20),
                                 file("hooks/pre-push", "#!/bin/sh\necho x\n", 21, true),
                                 file("hooks/pre-commit", "#!/bin/sh\n", 22, true)};
  auto s = compare_guarded(b, a);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].what, Do::kMoveAside);  // the new folder, with all in it
  EXPECT_EQ(s[0].rel, "hooks");
  EXPECT_EQ(s[1].what, Do::kRestore);
  EXPECT_EQ(s[1].rel, "hooks");
  EXPECT_EQ(s[2].what, Do::kRestore);
  EXPECT_EQ(s[2].rel, "hooks/pre-push");
  EXPECT_TRUE(s[2].quiet);
}

TEST(ContentGuard, APathMissingBeforeAndThereAfterIsMovedAside) {  // LL-1, PROT-6
  auto gone = missing(file("hooks/pre-push", "", 12, true));
  auto s = compare_guarded({gone}, {file("hooks/pre-push", "#!/bin/sh\n", 30, true)});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].what, Do::kMoveAside);
  EXPECT_TRUE(s[0].to_project_root);
}

TEST(ContentGuard, TooLargeOrUnreadableIsOnlySaid) {  // LL-1
  auto big = file("config", "", 10);
  big.has_content = false;
  big.size = kGuardFileBytes + 1;
  auto grown = big;
  grown.size += 1;
  auto s = compare_guarded({big}, {grown});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].what, Do::kNote);
  EXPECT_NE(s[0].note.find("no copy"), std::string::npos);
  auto unreadable = file("config", "x", 10);
  unreadable.unreadable = true;
  EXPECT_TRUE(compare_guarded({file("config", "y", 10)}, {unreadable}).empty());
}

}  // namespace
}  // namespace cordon
