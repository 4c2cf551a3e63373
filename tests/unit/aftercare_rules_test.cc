// PROT-6, PROT-7, GIT-3, GIT-4, GIT-6, GIT-7, FS-10: what aftercare moves aside and says.
#include <gtest/gtest.h>

#include "plan/aftercare_rules.h"

namespace cordon {
namespace {

const std::string kProject = "/home/u/proj";

SnapshotEntry entry(const std::string& rel, Kind k) {
  SnapshotEntry e;
  e.rel = rel;
  e.kind = k;
  return e;
}

ProtectedSnapshot snap(std::vector<SnapshotEntry> entries) {
  ProtectedSnapshot s;
  s.project = kProject;
  s.entries = std::move(entries);
  s.git_dir = kProject + "/.git";
  return s;
}

TEST(Aftercare, NothingChangedNothingMoved) {
  auto s = snap({entry(".envrc", Kind::kMissing), entry(".vscode", Kind::kDir)});
  auto r = compare_snapshots(s, s);
  EXPECT_TRUE(r.moves.empty());
  EXPECT_TRUE(r.notes.empty());
}

TEST(Aftercare, NewProtectedPathsAreMovedBesideThem) {  // PROT-6, PROT-7
  auto before = snap({entry(".envrc", Kind::kMissing), entry(".vscode", Kind::kMissing),
                      entry(".github/workflows", Kind::kMissing)});
  auto after = snap({entry(".envrc", Kind::kFile), entry(".vscode", Kind::kDir),
                     entry(".github/workflows", Kind::kDir)});
  auto r = compare_snapshots(before, after);
  ASSERT_EQ(r.moves.size(), 3u);
  EXPECT_EQ(r.moves[0].path, kProject + "/.envrc");
  EXPECT_EQ(r.moves[0].dest_dir, kProject);
  EXPECT_EQ(r.moves[1].path, kProject + "/.vscode");
  EXPECT_EQ(r.moves[2].path, kProject + "/.github/workflows");
  EXPECT_EQ(r.moves[2].dest_dir, kProject + "/.github");
}

TEST(Aftercare, NewFilesInAFileByFileFolderGoToTheProjectRoot) {  // PROT-5, PROT-7
  SnapshotEntry b = entry(".vscode", Kind::kDir);
  b.file_by_file = true;
  b.children = {{".vscode/settings.json", Kind::kFile, ""}};
  b.tracked_children = {".vscode/settings.json"};
  SnapshotEntry a = b;
  a.children = {{".vscode/settings.json", Kind::kFile, ""},
                {".vscode/tasks.json", Kind::kFile, ""},
                {".vscode/new", Kind::kDir, ""},
                {".vscode/new/deep.json", Kind::kFile, ""}};
  auto r = compare_snapshots(snap({b}), snap({a}));
  ASSERT_EQ(r.moves.size(), 2u);
  EXPECT_EQ(r.moves[0].path, kProject + "/.vscode/tasks.json");
  EXPECT_EQ(r.moves[0].dest_dir, kProject);
  EXPECT_EQ(r.moves[1].path, kProject + "/.vscode/new");  // the folder, not its contents
}

TEST(Aftercare, RepointedSymlinksAndReplacedKindsAreMoved) {  // PROT-6
  SnapshotEntry link = entry("CLAUDE.md", Kind::kSymlink);
  link.link_target = "docs/claude.md";
  SnapshotEntry tracked = entry("AGENTS.md", Kind::kFile);
  tracked.tracked = true;
  SnapshotEntry link_after = link;
  link_after.link_target = "/etc/passwd";
  SnapshotEntry tracked_after = entry("AGENTS.md", Kind::kSymlink);
  auto r = compare_snapshots(snap({link, tracked}), snap({link_after, tracked_after}));
  ASSERT_EQ(r.moves.size(), 2u);
  EXPECT_EQ(r.moves[0].path, kProject + "/CLAUDE.md");
  EXPECT_EQ(r.moves[1].path, kProject + "/AGENTS.md");
  // A tracked file edited in place is left alone (PROT-4).
  auto r2 = compare_snapshots(snap({tracked}), snap({tracked}));
  EXPECT_TRUE(r2.moves.empty());
}

TEST(Aftercare, NewClaudeHoldingOnlyWorktreesIsKept) {  // PROT-1
  SnapshotEntry a = entry(".claude", Kind::kDir);
  a.children = {{".claude/worktrees", Kind::kDir, ""}, {".claude/worktrees/x", Kind::kDir, ""}};
  auto r = compare_snapshots(snap({entry(".claude", Kind::kMissing)}), snap({a}));
  EXPECT_TRUE(r.moves.empty());
  a.children.push_back({".claude/settings.json", Kind::kFile, ""});
  r = compare_snapshots(snap({entry(".claude", Kind::kMissing)}), snap({a}));
  EXPECT_EQ(r.moves.size(), 1u);
}

TEST(Aftercare, NewCommondirIsMovedAside) {  // GIT-3
  auto before = snap({});
  auto after = snap({});
  after.commondir_exists = true;
  auto r = compare_snapshots(before, after);
  ASSERT_EQ(r.moves.size(), 1u);
  EXPECT_EQ(r.moves[0].path, kProject + "/.git/commondir");
  EXPECT_EQ(r.moves[0].dest_dir, kProject + "/.git");
}

TEST(Aftercare, NewGitFilesGetANote) {  // GIT-4
  auto before = snap({});
  before.git_candidates = {{"/home/u/.gitconfig", false}, {kProject + "/.git/config", true}};
  auto after = before;
  after.git_candidates[0].second = true;
  auto r = compare_snapshots(before, after);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("/home/u/.gitconfig"), std::string::npos);
  EXPECT_EQ(r.notes[0].find("GIT-4"), std::string::npos);  // no requirement ids for people
  EXPECT_TRUE(r.moves.empty());
  EXPECT_TRUE(r.created_git_files.empty());
}

TEST(Aftercare, NewGitFilesInsideTheProjectAreJudged) {  // GIT-4, GIT-8
  auto before = snap({});
  before.git_dir = before.common_dir = kProject + "/.git";
  before.git_candidates = {{kProject + "/.git/hooks", false},
                           {kProject + "/.git/config.worktree", false},
                           {kProject + "/.git/config", true}};
  auto after = before;
  after.git_candidates[0].second = after.git_candidates[1].second = true;
  auto r = compare_snapshots(before, after);
  EXPECT_TRUE(r.notes.empty());
  EXPECT_EQ(r.created_git_files,
            (std::vector<std::string>{kProject + "/.git/hooks", kProject + "/.git/config.worktree"}));
}

TEST(Aftercare, RepointedLinkOnTheWayToGitFilesGetsANote) {  // GIT-6
  auto before = snap({});
  before.git_links = {{kProject + "/.git", "/srv/repo.git"}};
  auto after = snap({});
  after.git_links = {{kProject + "/.git", "/tmp/evil.git"}};
  auto r = compare_snapshots(before, after);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("re-pointed"), std::string::npos);
  EXPECT_NE(r.notes[0].find("before your next git command"), std::string::npos);
  r = compare_snapshots(before, snap({}));
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("removed"), std::string::npos);
}

TEST(Aftercare, FolderMadeUnreadableGetsANote) {  // FS-10
  auto before = snap({});
  auto after = snap({});
  after.unreadable = {".vscode"};
  auto r = compare_snapshots(before, after);
  ASSERT_EQ(r.newly_unreadable, std::vector<std::string>{".vscode"});
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("before restoring"), std::string::npos);
}

TEST(Aftercare, QuarantineNameAndNote) {  // PROT-7
  EXPECT_EQ(quarantine_name(".envrc", "0123456789abcdef"),
            ".envrc.cordon-quarantined-0123456789abcdef");
  std::string n = quarantine_note(".envrc", ".envrc.cordon-quarantined-0123456789abcdef");
  EXPECT_NE(n.find(".envrc.cordon-quarantined-0123456789abcdef"), std::string::npos);
  EXPECT_NE(n.find("To keep it"), std::string::npos);
}

TEST(Aftercare, GitStoppedShort) {  // GIT-7
  std::string out =
      "error: unable to create file .vscode/settings.json: Read-only file system\n"
      "error: unable to unlink old '.idea/x.xml': Device or resource busy\n";
  auto n = git_stopped_short_note({"git", "checkout", "feature"}, 1, out);
  ASSERT_TRUE(n.has_value());
  EXPECT_NE(n->find("git checkout -- .vscode/settings.json .idea/x.xml"), std::string::npos) << *n;
  n = git_stopped_short_note({"git", "-C", ".", "merge", "main"}, 1, out);
  ASSERT_TRUE(n.has_value());
  EXPECT_NE(n->find("git status"), std::string::npos);
  n = git_stopped_short_note({"/bin/bash", "-c", "git fetch && git reset --hard origin/main"}, 1,
                             out);
  ASSERT_TRUE(n.has_value());
  EXPECT_NE(n->find("git status"), std::string::npos);
  EXPECT_FALSE(git_stopped_short_note({"git", "status"}, 1, out).has_value());
  EXPECT_FALSE(git_stopped_short_note({"git", "checkout", "x"}, 1, "error: pathspec 'x'").has_value());
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

SnapshotEntry ident_entry(const std::string& rel, Kind k, uint64_t ino) {
  SnapshotEntry e;
  e.rel = rel;
  e.kind = k;
  e.dev = 1;
  e.ino = ino;
  return e;
}

ProtectedSnapshot snap2(std::vector<SnapshotEntry> entries) {
  ProtectedSnapshot s;
  s.project = "/home/u/proj";
  s.entries = std::move(entries);
  s.git_dir = "/home/u/proj/.git";
  return s;
}

TEST(AftercareLinks, ALinkNowOnTheWayIsMovedAsTheLink) {  // FS-2, PROT-7
  auto before = snap2({ident_entry(".cargo/config.toml", Kind::kMissing, 0)});
  auto after = before;
  after.entries[0].via_link = ".cargo";
  after.entries[0].via_link_target = "/home/u/.cargo";
  auto r = compare_snapshots(before, after);
  ASSERT_EQ(r.moves.size(), 1u);
  EXPECT_EQ(r.moves[0].path, "/home/u/proj/.cargo");  // the link, never ~/.cargo/config.toml
  EXPECT_EQ(r.moves[0].root, "/home/u/proj");
  EXPECT_EQ(r.moves[0].dest_dir, "/home/u/proj");
}

TEST(AftercareLinks, ALinkTheUserAlreadyHadIsLeftAlone) {  // FS-2
  auto before = snap2({ident_entry(".github/workflows", Kind::kMissing, 0)});
  before.entries[0].via_link = ".github";
  before.entries[0].via_link_target = "../shared/.github";
  auto r = compare_snapshots(before, before);
  EXPECT_TRUE(r.moves.empty());
  // Re-pointed: moved.
  auto after = before;
  after.entries[0].via_link_target = "/other/repo/.github";
  r = compare_snapshots(before, after);
  ASSERT_EQ(r.moves.size(), 1u);
  EXPECT_EQ(r.moves[0].path, "/home/u/proj/.github");
}

TEST(AftercareIdentity, AProtectedFolderReplacedByACopyIsMovedAndTheOriginalPutBack) {
  // GIT-9, PROT-2: mv .vscode .vscode-x && mkdir .vscode && cp ... && echo evil > launch.json
  auto before = snap2({ident_entry(".vscode", Kind::kDir, 100)});
  before.entries[0].file_by_file = true;
  auto after = snap2({ident_entry(".vscode", Kind::kDir, 200)});
  auto r = compare_snapshots(before, after);
  ASSERT_EQ(r.moves.size(), 1u);
  EXPECT_EQ(r.moves[0].path, "/home/u/proj/.vscode");
  EXPECT_EQ(r.moves[0].dest_dir, "/home/u/proj");
  ASSERT_EQ(r.restores.size(), 1u);
  EXPECT_EQ(r.restores[0].rel, ".vscode");
  EXPECT_EQ(r.restores[0].ino, 100u);
}

TEST(AftercareIdentity, ATrackedProtectedFileMayBeReplaced) {  // PROT-4 (git checkout)
  auto before = snap2({ident_entry("CLAUDE.md", Kind::kFile, 100)});
  before.entries[0].tracked = true;
  auto after = snap2({ident_entry("CLAUDE.md", Kind::kFile, 200)});
  after.entries[0].tracked = true;
  auto r = compare_snapshots(before, after);
  EXPECT_TRUE(r.moves.empty());
  EXPECT_TRUE(r.restores.empty());
}

TEST(AftercareIdentity, TheGitFolderReplacedIsMovedAndPutBack) {  // GIT-9
  auto before = snap2({});
  before.identities = {IdentityEntry{"/home/u/proj", ".git", Kind::kDir, 1, 10, "git folder"},
                       IdentityEntry{"/home/u/proj", ".git/config", Kind::kFile, 1, 11, "cfg"}};
  auto after = before;
  after.identities[0].ino = 99;  // mv .git .git-orig && mkdir .git && cp -a ...
  after.identities[1].ino = 98;
  auto r = compare_snapshots(before, after);
  ASSERT_EQ(r.moves.size(), 2u);
  EXPECT_EQ(r.moves[0].path, "/home/u/proj/.git");
  ASSERT_EQ(r.restores.size(), 2u);
  EXPECT_EQ(r.restores[0].rel, ".git");
  // Unchanged: nothing.
  r = compare_snapshots(before, before);
  EXPECT_TRUE(r.moves.empty());
  EXPECT_TRUE(r.restores.empty());
}

TEST(AftercareIdentity, GitIdentitiesComeFromTheFacts) {  // GIT-9
  Facts f;
  f.project = "/home/u/proj";
  f.git.dot_git = "/home/u/proj/.git";
  f.git.dot_git_kind = Kind::kDir;
  f.git.dot_git_dev = 1;
  f.git.dot_git_ino = 10;
  f.git.git_dir = f.git.common_dir = "/home/u/proj/.git";
  PathInfo cfg;
  cfg.path = cfg.real = "/home/u/proj/.git/config";
  cfg.kind = cfg.real_kind = Kind::kFile;
  cfg.dev = 1;
  cfg.ino = 11;
  PathInfo global = cfg;
  global.path = global.real = "/home/u/.gitconfig";
  f.git.locks = {GitLockFact{cfg, "repository config", false},
                 GitLockFact{global, "global git config", false}};
  auto ids = git_identities(f);
  ASSERT_EQ(ids.size(), 2u);  // the global config lies outside: commands cannot replace it
  EXPECT_EQ(ids[0].rel, ".git");
  EXPECT_EQ(ids[1].rel, ".git/config");
  EXPECT_EQ(ids[1].root, "/home/u/proj");
}

}  // namespace
}  // namespace cordon
