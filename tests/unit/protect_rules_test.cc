// PROT-1..9, GIT-1, GIT-2, GIT-5, FS-10, BUD-2: the planner's rules for protected paths.
#include "plan/protect_rules.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "fake_facts.h"
#include "plan/planner.h"
#include "plan/protected_list.h"

namespace cordon {
namespace {

using testing::FakeWorld;
using testing::file_info;
using testing::link_info;

Request cmd() {
  Request r;
  r.argv = {"true"};
  return r;
}

const MountOp* find_dest(const Plan& p, const std::string& dest) {
  for (const auto& m : p.mounts)
    if (m.dest == dest) return &m;
  return nullptr;
}

std::string state_of(const Plan& p, const std::string& path) {
  for (const auto& d : p.protect)
    if (d.path == path) return d.state;
  return "";
}

ProtectedFact prot(const FakeWorld& w, const std::string& rel, Kind kind, bool folder = false) {
  ProtectedFact f;
  f.rel = rel;
  f.folder = folder;
  f.why = "default list";
  f.info = kind == Kind::kMissing ? PathInfo{} : file_info(w.project + "/" + rel, kind);
  f.info.path = w.project + "/" + rel;
  return f;
}

TEST(ProtectRules, DefaultListHasTheSpecEntries) {  // PROT-1, PROT-9
  Policy p;
  p.protect = {"scripts/deploy.sh", "tools/"};
  auto entries = protected_entries(p);
  auto has = [&](const std::string& rel, bool folder, bool anywhere) {
    for (const auto& e : entries)
      if (e.rel == rel && e.folder == folder && e.anywhere == anywhere) return true;
    return false;
  };
  EXPECT_TRUE(has(".envrc", false, false));
  EXPECT_TRUE(has(".vscode", true, false));
  EXPECT_TRUE(has(".github/workflows", true, false));
  EXPECT_TRUE(has(".cargo/config.toml", false, false));
  EXPECT_TRUE(has(".cordon", true, false));
  EXPECT_TRUE(has("Makefile", false, true));
  EXPECT_TRUE(has("scripts/deploy.sh", false, false));
  EXPECT_TRUE(has("tools", true, false));
  EXPECT_TRUE(is_protected_path(entries, ".vscode/tasks.json"));
  EXPECT_TRUE(is_protected_path(entries, "sub/dir/Makefile"));  // `**/` for the file tools
  EXPECT_FALSE(is_protected_path(entries, ".claude/worktrees/x/file"));
  EXPECT_FALSE(is_protected_path(entries, ".env"));  // credentials, not protected (FILE-4)
}

TEST(ProtectRules, UntrackedFileIsReadOnlyTrackedFileWritable) {  // PROT-2, PROT-4
  FakeWorld w;
  w.facts.protected_paths.push_back(prot(w, ".envrc", Kind::kFile));
  ProtectedFact md = prot(w, "CLAUDE.md", Kind::kFile);
  md.tracked = {"CLAUDE.md"};
  w.facts.protected_paths.push_back(md);
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_FALSE(p.refused());
  const MountOp* envrc = find_dest(p, w.project + "/.envrc");
  ASSERT_NE(envrc, nullptr);
  EXPECT_EQ(envrc->kind, MountKind::kRoBind);
  EXPECT_EQ(envrc->src, w.project + "/.envrc");
  EXPECT_EQ(find_dest(p, w.project + "/CLAUDE.md"), nullptr);
  EXPECT_EQ(state_of(p, "CLAUDE.md"), "writable (tracked)");
  EXPECT_EQ(state_of(p, ".envrc"), "read-only (untracked)");
}

TEST(ProtectRules, MissingPathsGetNoMountPoint) {  // PROT-10
  FakeWorld w;
  w.facts.protected_paths.push_back(prot(w, ".envrc", Kind::kMissing));
  w.facts.protected_paths.push_back(prot(w, ".vscode", Kind::kMissing, true));
  Plan p = make_plan(w.policy, w.facts, cmd());
  EXPECT_EQ(find_dest(p, w.project + "/.envrc"), nullptr);
  EXPECT_EQ(find_dest(p, w.project + "/.vscode"), nullptr);
  EXPECT_EQ(state_of(p, ".envrc"), "watched (absent)");
}

TEST(ProtectRules, FolderWithNothingTrackedIsReadOnlyWhole) {  // PROT-5
  FakeWorld w;
  ProtectedFact idea = prot(w, ".idea", Kind::kDir, true);
  idea.children = {{".idea/workspace.xml", Kind::kFile, ""}};
  idea.entry_count = 1;
  w.facts.protected_paths.push_back(idea);
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_NE(find_dest(p, w.project + "/.idea"), nullptr);
  EXPECT_EQ(find_dest(p, w.project + "/.idea/workspace.xml"), nullptr);
  EXPECT_EQ(state_of(p, ".idea"), "read-only whole");
}

TEST(ProtectRules, FolderWithTrackedFilesIsJudgedFileByFile) {  // PROT-5
  FakeWorld w;
  ProtectedFact vs = prot(w, ".vscode", Kind::kDir, true);
  vs.children = {{".vscode/settings.json", Kind::kFile, ""},
                 {".vscode/launch.json", Kind::kFile, ""},
                 {".vscode/local", Kind::kDir, ""},
                 {".vscode/local/a.json", Kind::kFile, ""},
                 {".vscode/shared", Kind::kDir, ""},
                 {".vscode/shared/t.json", Kind::kFile, ""},
                 {".vscode/shared/u.json", Kind::kFile, ""},
                 {".vscode/link", Kind::kSymlink, "settings.json"}};
  vs.entry_count = vs.children.size();
  vs.tracked = {".vscode/settings.json", ".vscode/shared/t.json"};
  w.facts.protected_paths.push_back(vs);
  Plan p = make_plan(w.policy, w.facts, cmd());
  EXPECT_EQ(state_of(p, ".vscode"), "file by file");
  // GIT-9, PROT-2: the folder itself is pinned (a writable bind onto itself), not read-only.
  ASSERT_NE(find_dest(p, w.project + "/.vscode"), nullptr);
  EXPECT_EQ(find_dest(p, w.project + "/.vscode")->kind, MountKind::kBind);
  EXPECT_EQ(find_dest(p, w.project + "/.vscode/settings.json"), nullptr);  // tracked: writable
  EXPECT_NE(find_dest(p, w.project + "/.vscode/launch.json"), nullptr);    // untracked: read-only
  EXPECT_NE(find_dest(p, w.project + "/.vscode/local"), nullptr);          // nothing tracked: whole
  EXPECT_EQ(find_dest(p, w.project + "/.vscode/local/a.json"), nullptr);   // covered by its folder
  EXPECT_EQ(find_dest(p, w.project + "/.vscode/shared"), nullptr);         // holds a tracked file
  EXPECT_EQ(find_dest(p, w.project + "/.vscode/shared/t.json"), nullptr);
  EXPECT_NE(find_dest(p, w.project + "/.vscode/shared/u.json"), nullptr);
  EXPECT_EQ(find_dest(p, w.project + "/.vscode/link"), nullptr);  // watched, a mount would follow
}

TEST(ProtectRules, FolderPastAThousandEntriesIsReadOnlyWhole) {  // PROT-5
  FakeWorld w;
  ProtectedFact vs = prot(w, ".vscode", Kind::kDir, true);
  for (int i = 0; i < 1001; ++i)
    vs.children.push_back({".vscode/f" + std::to_string(i), Kind::kFile, ""});
  vs.entry_count = 1001;
  vs.tracked = {".vscode/f0"};
  w.facts.protected_paths.push_back(vs);
  Plan p = make_plan(w.policy, w.facts, cmd());
  EXPECT_EQ(state_of(p, ".vscode"), "read-only whole");
  EXPECT_NE(find_dest(p, w.project + "/.vscode"), nullptr);
}

TEST(ProtectRules, OverTheMountBudgetFileByFileBecomesWhole) {  // BUD-2, PERF-5
  FakeWorld w;
  ProtectedFact vs = prot(w, ".vscode", Kind::kDir, true);
  for (int i = 0; i < 400; ++i)
    vs.children.push_back({".vscode/f" + std::to_string(i), Kind::kFile, ""});
  vs.entry_count = 400;
  vs.tracked = {".vscode/f0"};
  w.facts.protected_paths.push_back(vs);
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  EXPECT_TRUE(p.coarsened);
  EXPECT_LE(p.mount_count(), 256u);
  EXPECT_EQ(state_of(p, ".vscode"), "read-only whole");
  bool noticed = false;
  for (const auto& n : p.notices)
    noticed |= n.find("read-only whole for this session") != std::string::npos;
  EXPECT_TRUE(noticed);
}

TEST(ProtectRules, ClaudeWorktreesStayWritable) {  // PROT-1
  FakeWorld w;
  ProtectedFact c = prot(w, ".claude", Kind::kDir, true);
  c.children = {{".claude/settings.json", Kind::kFile, ""}, {".claude/worktrees", Kind::kDir, ""},
                {".claude/worktrees/wt1", Kind::kDir, ""}};
  c.entry_count = 3;
  w.facts.protected_paths.push_back(c);
  Plan p = make_plan(w.policy, w.facts, cmd());
  size_t whole = SIZE_MAX, wt = SIZE_MAX;
  for (size_t i = 0; i < p.mounts.size(); ++i) {
    if (p.mounts[i].dest == w.project + "/.claude") whole = i;
    if (p.mounts[i].dest == w.project + "/.claude/worktrees") wt = i;
  }
  ASSERT_NE(whole, SIZE_MAX);
  ASSERT_NE(wt, SIZE_MAX);
  EXPECT_LT(whole, wt);
  EXPECT_EQ(p.mounts[wt].kind, MountKind::kBind);
}

TEST(ProtectRules, ProtectedSymlinkProtectsItsTarget) {  // PROT-2, PROT-6
  FakeWorld w;
  ProtectedFact f = prot(w, "AGENTS.md", Kind::kSymlink);
  f.info = link_info(w.project + "/AGENTS.md", "docs/agents.md", Kind::kFile);
  f.info.real = w.project + "/docs/agents.md";
  w.facts.protected_paths.push_back(f);
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_FALSE(p.refused());
  EXPECT_NE(find_dest(p, w.project + "/docs/agents.md"), nullptr);
  EXPECT_EQ(state_of(p, "AGENTS.md"), "symlink watched");
}

TEST(ProtectRules, ProtectedLinkToTheProjectOrAboveRefuses) {  // PROT-8
  for (const char* target : {"/home/u/proj", "/home/u", "/"}) {
    FakeWorld w;
    ProtectedFact f = prot(w, ".claude", Kind::kSymlink, true);
    f.info = link_info(w.project + "/.claude", target, Kind::kDir);
    w.facts.protected_paths.push_back(f);
    Plan p = make_plan(w.policy, w.facts, cmd());
    ASSERT_TRUE(p.refused()) << target;
    EXPECT_NE(p.refusal->message.find(".claude"), std::string::npos);
  }
  FakeWorld ok;
  ProtectedFact f = prot(ok, ".claude", Kind::kSymlink, true);
  f.info = link_info(ok.project + "/.claude", "/home/u/shared-claude", Kind::kDir);
  ok.facts.protected_paths.push_back(f);
  EXPECT_FALSE(make_plan(ok.policy, ok.facts, cmd()).refused());
}

TEST(ProtectRules, FailedMoveRefusesUntilTheUserMovesIt) {  // PROT-7
  FakeWorld w;
  w.facts.pending_quarantine = {w.project + "/.envrc"};
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find(w.project + "/.envrc"), std::string::npos);
  // An outside-sandbox command still runs.
  Request out = cmd();
  out.outside_sandbox = true;
  EXPECT_FALSE(make_plan(w.policy, w.facts, out).refused());
}

TEST(ProtectRules, GitAutoRunFilesAreLockedEvenInsideWritablePaths) {  // GIT-1
  FakeWorld w;
  w.policy.writable = {"~/.config"};
  w.facts.writable = {file_info("/home/u/.config", Kind::kDir)};
  auto lock = [&](const std::string& path, Kind k, const char* why, bool folder) {
    w.facts.git.locks.push_back(GitLockFact{file_info(path, k), why, folder});
  };
  lock(w.project + "/.git/hooks", Kind::kDir, "hooks folder", true);
  lock(w.project + "/.git/config", Kind::kFile, "repository config", false);
  lock("/home/u/.config/git/config", Kind::kFile, "global git config", false);
  lock("/home/u/.gitconfig", Kind::kFile, "global git config", false);
  lock("/etc/gitconfig", Kind::kFile, "system git config", false);
  Plan p = make_plan(w.policy, w.facts, cmd());
  EXPECT_NE(find_dest(p, w.project + "/.git/hooks"), nullptr);
  EXPECT_NE(find_dest(p, w.project + "/.git/config"), nullptr);
  EXPECT_NE(find_dest(p, "/home/u/.config/git/config"), nullptr);  // inside a writable path
  EXPECT_EQ(find_dest(p, "/home/u/.gitconfig"), nullptr);          // read-only already
  EXPECT_EQ(find_dest(p, "/etc/gitconfig"), nullptr);
  EXPECT_EQ(state_of(p, "/home/u/.gitconfig"), "locked");
  // The rest of .git stays writable (git add, git commit): pinned, not read-only (GIT-9).
  ASSERT_NE(find_dest(p, w.project + "/.git"), nullptr);
  EXPECT_EQ(find_dest(p, w.project + "/.git")->kind, MountKind::kBind);
}

size_t index_of(const Plan& p, const std::string& dest) {
  for (size_t i = 0; i < p.mounts.size(); ++i)
    if (p.mounts[i].dest == dest) return i;
  return SIZE_MAX;
}

TEST(ProtectRules, GitFolderAndProtectedFoldersArePinnedBeforeTheirLocks) {  // GIT-9, PROT-2
  FakeWorld w;
  w.facts.git.dot_git_kind = Kind::kDir;
  w.facts.git.locks.push_back(
      GitLockFact{file_info(w.project + "/.git/config", Kind::kFile), "repository config", false});
  ProtectedFact wf = prot(w, ".github/workflows", Kind::kDir, true);
  wf.children = {{".github/workflows/ci.yml", Kind::kFile, ""},
                 {".github/workflows/local.yml", Kind::kFile, ""}};
  wf.entry_count = 2;
  wf.tracked = {".github/workflows/ci.yml"};
  w.facts.protected_paths.push_back(wf);
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  for (const char* rel : {"/.git", "/.github", "/.github/workflows"}) {
    const MountOp* m = find_dest(p, w.project + rel);
    ASSERT_NE(m, nullptr) << rel;
    EXPECT_EQ(m->kind, MountKind::kBind) << rel;
    EXPECT_EQ(m->src, m->dest);
  }
  // A later bind would cover the read-only binds inside: the pins come first.
  EXPECT_LT(index_of(p, w.project + "/.git"), index_of(p, w.project + "/.git/config"));
  EXPECT_LT(index_of(p, w.project + "/.github"), index_of(p, w.project + "/.github/workflows"));
  EXPECT_LT(index_of(p, w.project + "/.github/workflows"),
            index_of(p, w.project + "/.github/workflows/local.yml"));
  EXPECT_EQ(state_of(p, ".git"), "pinned");
}

TEST(ProtectRules, PinsSkipTrackedFilesLinksAndMissingEntries) {  // GIT-9, PROT-4, PROT-10
  FakeWorld w;
  ProtectedFact cargo = prot(w, ".cargo/config.toml", Kind::kFile);
  cargo.tracked = {".cargo/config.toml"};
  w.facts.protected_paths.push_back(cargo);
  ProtectedFact husky = prot(w, ".husky", Kind::kMissing, true);
  w.facts.protected_paths.push_back(husky);
  ProtectedFact via = prot(w, ".idea", Kind::kDir, true);
  via.via_link = ".idea";
  w.facts.protected_paths.push_back(via);
  auto pins = pinned_paths(w.facts);
  // Only the git folder of the fake repository: a tracked file's folder is left alone (git
  // replaces tracked files), nothing is created for a missing entry, nothing behind a link.
  EXPECT_EQ(pins, std::vector<std::string>{w.project + "/.git"});
}

TEST(ProtectRules, UntrackedProtectedFilePinsItsFolders) {  // GIT-9, PROT-2
  FakeWorld w;
  ProtectedFact cargo = prot(w, ".cargo/config.toml", Kind::kFile);
  w.facts.protected_paths.push_back(cargo);
  auto pins = pinned_paths(w.facts);
  EXPECT_NE(std::find(pins.begin(), pins.end(), w.project + "/.cargo"), pins.end());
  EXPECT_EQ(std::find(pins.begin(), pins.end(), w.project + "/.cargo/config.toml"), pins.end());
}

TEST(ProtectRules, GitFolderOutsideTheProjectIsWritableWithItsFilesLocked) {  // GIT-2
  FakeWorld w;
  w.facts.git.git_dir = "/home/u/main/.git/worktrees/proj";
  w.facts.git.common_dir = "/home/u/main/.git";
  w.facts.git.locks.push_back(
      GitLockFact{file_info("/home/u/main/.git/hooks", Kind::kDir), "hooks folder", true});
  Plan p = make_plan(w.policy, w.facts, cmd());
  const MountOp* common = find_dest(p, "/home/u/main/.git");
  ASSERT_NE(common, nullptr);
  EXPECT_EQ(common->kind, MountKind::kBind);
  // Inside the common folder: writable through it, and pinned so that it cannot be renamed
  // away from its locked files (GIT-9).
  const MountOp* admin = find_dest(p, "/home/u/main/.git/worktrees/proj");
  ASSERT_NE(admin, nullptr);
  EXPECT_EQ(admin->kind, MountKind::kBind);
  EXPECT_EQ(admin->why.rfind("pinned:", 0), 0u);
  const MountOp* hooks = find_dest(p, "/home/u/main/.git/hooks");
  ASSERT_NE(hooks, nullptr);
  EXPECT_EQ(hooks->kind, MountKind::kRoBind);
}

// GIT-2: the project is a linked worktree whose path is longer than the main repository's
// `.git` path (`git worktree add .claude/worktrees/agent-1`, then cordon run there): the common
// folder is pinned and named by its own path. This once threw std::out_of_range (rc 134).
TEST(ProtectRules, LinkedWorktreeLongerThanTheCommonFolderPlans) {  // GIT-2, GIT-9
  FakeWorld w;
  w.facts.project = "/r/.claude/worktrees/agent-1-with-a-long-name";
  w.facts.git.dot_git = w.facts.project + "/.git";
  w.facts.git.dot_git_kind = Kind::kFile;
  w.facts.git.git_dir = "/r/.git/worktrees/agent-1-with-a-long-name";
  w.facts.git.common_dir = "/r/.git";
  w.facts.git.locks.push_back(
      GitLockFact{file_info("/r/.git/hooks", Kind::kDir), "hooks folder", true});
  w.facts.git.locks.push_back(GitLockFact{
      file_info("/r/.git/worktrees/agent-1-with-a-long-name/config", Kind::kFile),
      "worktree config", false});
  Plan p;
  ASSERT_NO_THROW(p = make_plan(w.policy, w.facts, cmd()));
  EXPECT_NE(find_dest(p, "/r/.git/worktrees/agent-1-with-a-long-name"), nullptr);
  for (const auto& d : p.protect) EXPECT_FALSE(d.path.empty());
}

TEST(ProtectRules, ManyModulesOrWorktreesAreLockedWhole) {  // GIT-5
  FakeWorld w;
  w.facts.git.modules_entries = 513;
  w.facts.git.worktrees_entries = 512;
  w.facts.git.locks.push_back(GitLockFact{
      file_info(w.project + "/.git/modules/a/config", Kind::kFile), "submodule config", false});
  Plan p = make_plan(w.policy, w.facts, cmd());
  EXPECT_NE(find_dest(p, w.project + "/.git/modules"), nullptr);
  EXPECT_EQ(find_dest(p, w.project + "/.git/modules/a/config"), nullptr);
  EXPECT_EQ(find_dest(p, w.project + "/.git/worktrees"), nullptr);
}

TEST(ProtectRules, UnreadableFoldersAreReadOnlyWhole) {  // FS-10
  FakeWorld w;
  ProtectedFact vs = prot(w, ".vscode", Kind::kDir, true);
  vs.tracked = {".vscode/settings.json"};
  vs.unreadable = true;
  vs.unreadable_dirs = {".vscode"};
  w.facts.protected_paths.push_back(vs);
  w.facts.unreadable_dirs = {"build/cache"};
  Plan p = make_plan(w.policy, w.facts, cmd());
  EXPECT_NE(find_dest(p, w.project + "/.vscode"), nullptr);
  EXPECT_NE(find_dest(p, w.project + "/build/cache"), nullptr);
  EXPECT_EQ(state_of(p, ".vscode"), "read-only whole (unreadable)");
}

}  // namespace
}  // namespace cordon
