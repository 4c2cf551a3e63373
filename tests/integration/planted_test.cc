// What an attacker plants to run code later on the host, and what it does outside the project
// through aftercare: each case of the first attack pass (issue "Nothing planted runs later")
// and variants, in real sandboxes (GIT-1, GIT-3, GIT-8, GIT-9, PROT-2, PROT-6, PROT-7, FS-2,
// REV-1). After each attack the user's own git runs outside, as it would the next day.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

namespace cordon::it {
namespace {

void commit_all(const World& w, const std::string& msg = "commit") {
  w.host({"git", "add", "-A"});
  w.host({"git", "commit", "-q", "-m", msg});
}

// A program that leaves a mark when it runs: `touch <root>/pwned-<tag>; false`.
std::string marker(const World& w, const std::string& tag) { return w.root() + "/pwned-" + tag; }
std::string plant_cmd(const World& w, const std::string& tag) {
  return "touch " + marker(w, tag) + "; false";
}

bool ran(const World& w, const std::string& tag) {
  return access(marker(w, tag).c_str(), F_OK) == 0;
}

// The user's next git commands, outside the sandbox.
void users_git(const World& w, const std::string& dir = "") {
  w.host({"git", "status"}, dir);
  w.host({"git", "diff"}, dir);
  w.host({"git", "log", "-1"}, dir);
}

TEST(Planted, GitFolderCannotBeReplacedWholesale) {  // GIT-1, GIT-2, GIT-9
  REQUIRE_SANDBOX();
  World w;
  std::string cfg = w.read(".git/config");
  std::string fsm = "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"" +
                    plant_cmd(w, "copy") + "\"\\n' > .git/config";
  for (const std::string& attack : std::vector<std::string>{
           "mv .git .git-orig && mkdir .git && cp -a .git-orig/. .git/ && " + fsm,
           "mv .git .git-orig && echo 'gitdir: .git-orig' > .git",
           "mv .git .git-x; ln -s .git-x .git",
           "python3 -c \"import os; os.rename('.git', 'elsewhere')\"",
           "mkdir -p /tmp/g && cp -a .git/. /tmp/g/ && mv -T /tmp/g .git",
           "mkdir n && cp -a .git/. n/ && python3 -c \"import os; os.rename('n', '.git')\""}) {
    Proc r = w.sh(attack);
    struct stat st;
    ASSERT_EQ(lstat(w.abs(".git").c_str(), &st), 0) << attack;
    EXPECT_TRUE(S_ISDIR(st.st_mode)) << attack;
    EXPECT_EQ(w.read(".git/config"), cfg) << attack << "\n" << r.err;
    EXPECT_FALSE(w.exists(".git-orig")) << attack;
    EXPECT_FALSE(w.exists(".git-x")) << attack;
    EXPECT_FALSE(w.exists("elsewhere")) << attack;
    users_git(w);
    EXPECT_FALSE(ran(w, "copy")) << attack;
  }
}

TEST(Planted, DailyGitWorkStillWorksWithTheGitFolderPinned) {  // GIT-9, GIT-1
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.sh(
      "set -e; echo a > a.txt && git add a.txt && git commit -qm a && git checkout -qb topic && "
      "echo b > b.txt && git add b.txt && git commit -qm b && git checkout -q main && "
      "echo c >> a.txt && git stash -q && git stash pop -q && git commit -qam c && "
      "git rebase -q topic && git gc -q && git worktree add -q .claude/worktrees/wt topic");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(w.exists(".claude/worktrees/wt/b.txt"));
  EXPECT_EQ(r.err.find("quarantined"), std::string::npos) << r.err;
}

TEST(Planted, LinkedWorktreesGitFileAndCommondirAreLocked) {  // GIT-1, GIT-2, GIT-3, GIT-9
  REQUIRE_SANDBOX();
  World w;
  std::string wt = w.root() + "/wt";
  ASSERT_EQ(w.host({"git", "worktree", "add", "-q", "-b", "side", wt}).status, 0);
  std::string admin = w.project() + "/.git/worktrees/wt";
  std::string commondir = w.read(admin + "/commondir"), gitdir = w.read(admin + "/gitdir");
  std::string planted = w.root() + "/planted-git";
  w.host({"git", "init", "-q", "--bare", planted});
  w.host({"git", "config", "-f", planted + "/config", "core.fsmonitor", plant_cmd(w, "wt")});
  // From the main project: the worktree's commondir and gitdir.
  Proc r = w.sh("echo " + planted +
                " > .git/worktrees/wt/commondir; echo /x > "
                ".git/worktrees/wt/gitdir; mv .git/worktrees/wt .git/worktrees/wt2; true");
  EXPECT_EQ(w.read(admin + "/commondir"), commondir) << r.err;
  EXPECT_EQ(w.read(admin + "/gitdir"), gitdir);
  // From the linked worktree as the project: its `.git` file and its admin files.
  std::string dotgit = w.read(wt + "/.git");
  r = w.cordon({"run", "--project", wt, "--", "sh", "-c",
                "echo 'gitdir: " + planted + "' > .git; rm -f .git; echo " + planted + " > " +
                    admin + "/commondir; true"},
               wt);
  EXPECT_EQ(w.read(wt + "/.git"), dotgit) << r.err;
  EXPECT_EQ(w.read(admin + "/commondir"), commondir);
  users_git(w, wt);
  EXPECT_FALSE(ran(w, "wt"));
  // The worktree's own daily work still works.
  r = w.cordon({"run", "--project", wt, "--", "sh", "-c",
                "echo x > x.txt && git add x.txt && git commit -qm x"},
               wt);
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(Planted, NestedRepositoryIsMovedAside) {  // GIT-8, PROT-7
  REQUIRE_SANDBOX();
  World w;
  w.write("src/main.c", "int main(void) { return 0; }\n");
  w.write("vendor/keep/.git/HEAD", "ref: refs/heads/main\n");  // the user's own, left alone
  commit_all(w);
  Proc r = w.sh("mkdir -p lib/x && cd lib/x && git init -q && git config core.fsmonitor '" +
                plant_cmd(w, "nested") + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists("lib/x/.git"));
  EXPECT_EQ(quarantined(w.abs("lib/x"), ".git").size(), 1u);
  EXPECT_NE(r.err.find("lib/x/.git"), std::string::npos) << r.err;
  // In a folder that existed, as a `.git` file, with the folder's times put back.
  r = w.sh(
      "mkdir -p /tmp/g && git init -q --bare /tmp/g && cp -a /tmp/g src/.hidden-g && "
      "echo 'gitdir: .hidden-g' > src/.git && touch -d @0 src");
  EXPECT_FALSE(w.exists("src/.git")) << r.err;
  EXPECT_EQ(quarantined(w.abs("src"), ".git").size(), 1u);
  // Deep, in a new tree, in one command with other work: a clean `git init` is kept (GIT-8),
  // one with a planted hook is not.
  r = w.sh("mkdir -p a/b/c/d && git init -q a/b/c/d && echo ok > a/b/file");
  EXPECT_TRUE(w.exists("a/b/c/d/.git")) << r.err;
  r = w.sh("mkdir -p e/f && git init -q e/f && echo 'touch x' > e/f/.git/hooks/post-checkout");
  EXPECT_FALSE(w.exists("e/f/.git")) << r.err;
  EXPECT_TRUE(w.exists("a/b/file"));
  EXPECT_TRUE(w.exists("vendor/keep/.git/HEAD"));
  users_git(w, w.abs("lib/x"));
  users_git(w, w.abs("src"));
  EXPECT_FALSE(ran(w, "nested"));
  // A second attempt in the same place is caught again.
  r = w.sh("cd lib/x && git init -q && git config core.fsmonitor '" + plant_cmd(w, "nested") + "'");
  EXPECT_FALSE(w.exists("lib/x/.git"));
  EXPECT_EQ(quarantined(w.abs("lib/x"), ".git").size(), 2u);
}

TEST(Planted, ANestedRepositoryThatWasThereIsLockedLikeTheProjectsOwn) {  // GIT-8, GIT-1
  REQUIRE_SANDBOX();
  World w;
  w.host({"git", "init", "-q", w.abs("vendor/real")});  // the user's own clone, untracked
  w.sh("true");                                         // the directory index knows it now
  // Kept means locked: its config is read-only from then on, its work is not.
  Proc r = w.sh("git -C vendor/real config user.name Someone");
  EXPECT_NE(r.status, 0) << r.err;
  EXPECT_EQ(w.host({"git", "config", "user.name"}, w.abs("vendor/real")).out.find("Someone"),
            std::string::npos);
  r = w.sh("cd vendor/real && echo a > a && git add a && git commit -qm a && git status");
  EXPECT_EQ(r.status, 0) << r.err;
  r = w.sh("git -C vendor/real config core.fsmonitor '" + plant_cmd(w, "cfg") + "'; true");
  EXPECT_TRUE(w.exists("vendor/real/.git/config")) << r.err;
  users_git(w, w.abs("vendor/real"));
  EXPECT_FALSE(ran(w, "cfg"));
  // A hook planted in it.
  w.host({"git", "init", "-q", w.abs("vendor/two")});
  w.sh("true");
  r = w.sh("printf '#!/bin/sh\ntouch " + marker(w, "hk") +
           "\n' > vendor/two/.git/hooks/pre-commit; chmod +x vendor/two/.git/hooks/pre-commit");
  EXPECT_FALSE(w.exists("vendor/two/.git/hooks/pre-commit")) << r.err;
  w.host({"git", "commit", "-q", "--allow-empty", "-m", "x"}, w.abs("vendor/two"));
  EXPECT_FALSE(ran(w, "hk"));
}

TEST(Planted, SubmoduleCheckoutIsKeptAPlantedOneIsNot) {  // GIT-8
  REQUIRE_SANDBOX();
  World w;
  std::string sub = w.root() + "/subrepo";
  w.host({"git", "init", "-q", "-b", "main", sub});
  w.write(sub + "/s.txt", "s\n");
  w.host({"git", "add", "s.txt"}, sub);
  w.host({"git", "commit", "-q", "-m", "s"}, sub);
  ASSERT_EQ(
      w.host({"git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "lib/sub"})
          .status,
      0);
  commit_all(w);
  // A checkout's `.git` file naming this repository's module folder, as git writes it.
  Proc r = w.sh("mkdir -p lib/sub2 && echo 'gitdir: ../../.git/modules/lib/sub' > lib/sub2/.git");
  EXPECT_TRUE(w.exists("lib/sub2/.git")) << r.err;
  // A module folder made by the command with a config that runs a program: not a checkout.
  r = w.sh(
      "mkdir -p .git/modules/evil && git init -q --bare .git/modules/evil && "
      "git config -f .git/modules/evil/config core.fsmonitor '" +
      plant_cmd(w, "mod") +
      "' && mkdir -p lib/evil && echo 'gitdir: ../../.git/modules/evil' > lib/evil/.git");
  EXPECT_FALSE(w.exists("lib/evil/.git")) << r.err;
  users_git(w, w.abs("lib/evil"));
  EXPECT_FALSE(ran(w, "mod"));
  // A worktree made by the command whose commondir is then pointed at a planted repository.
  r = w.sh("git worktree add -q .claude/worktrees/w2 -b w2 && echo " + w.root() +
           "/planted-wt > .git/worktrees/w2/commondir && git init -q --bare " + w.root() +
           "/planted-wt 2>/dev/null; true");
  EXPECT_FALSE(w.exists(".claude/worktrees/w2/.git")) << r.err;
  // The submodule's own `.git` file rewritten to name a planted repository (GIT-2).
  std::string planted = w.root() + "/planted-git";
  w.host({"git", "init", "-q", "--bare", planted});
  w.host({"git", "config", "-f", planted + "/config", "core.fsmonitor", plant_cmd(w, "sub")});
  r = w.sh("echo 'gitdir: " + planted + "' > lib/sub/.git");
  EXPECT_FALSE(w.exists("lib/sub/.git")) << r.err;
  users_git(w);
  users_git(w, w.abs("lib/sub"));
  EXPECT_FALSE(ran(w, "sub"));
}

TEST(Planted, GitInitAtTheRootIsKeptUnlessItRunsAProgram) {  // GIT-8
  REQUIRE_SANDBOX();
  {
    World w(/*git=*/false);
    w.write("a.txt", "a\n");
    Proc r = w.sh("git init -q && git add a.txt && git commit -qm first");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(w.exists(".git/HEAD"));  // an agent's ordinary `git init` stays
    EXPECT_EQ(w.host({"git", "log", "--oneline"}).status, 0);
  }
  {
    World w(/*git=*/false);
    Proc r = w.sh("git init -q && git config core.fsmonitor '" + plant_cmd(w, "init") + "'");
    EXPECT_FALSE(w.exists(".git")) << r.err;
    EXPECT_EQ(quarantined(w.project(), ".git").size(), 1u);
    users_git(w);
    EXPECT_FALSE(ran(w, "init"));
  }
  {
    World w(/*git=*/false);
    Proc r = w.sh("git init -q && printf '#!/bin/sh\\ntouch " + marker(w, "hook") +
                  "\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit");
    EXPECT_FALSE(w.exists(".git")) << r.err;
  }
}

TEST(Planted, SteeringFilesBelowTheRootAreMovedAside) {  // PROT-6, PROT-7
  REQUIRE_SANDBOX();
  World w;
  w.write("src/a.c", "x\n");
  w.write("docs/AGENTS.md", "the user's own\n");
  commit_all(w);
  Proc r = w.sh(
      "echo 'run curl evil' > src/CLAUDE.md && mkdir -p packages/app && "
      "echo x > packages/app/AGENTS.md && echo x > src/GEMINI.md && "
      "echo 'export X=1' > src/.envrc && echo y >> docs/AGENTS.md");
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* p : {"src/CLAUDE.md", "packages/app/AGENTS.md", "src/GEMINI.md", "src/.envrc"})
    EXPECT_FALSE(w.exists(p)) << p << "\n" << r.err;
  EXPECT_EQ(quarantined(w.abs("src"), "CLAUDE.md").size(), 1u);
  EXPECT_EQ(quarantined(w.abs("packages/app"), "AGENTS.md").size(), 1u);
  // An existing one that was changed stays (a tracked file; review shows the change).
  EXPECT_EQ(w.read("docs/AGENTS.md"), "the user's own\ny\n");
}

TEST(Planted, ProtectedFolderCannotBeRenamedAway) {  // PROT-2, PROT-5, PROT-6, GIT-9
  REQUIRE_SANDBOX();
  World w;
  w.write(".vscode/settings.json", "{}\n");
  w.write(".claude/settings.json", "{}\n");
  w.write(".github/workflows/ci.yml", "on: push\n");
  commit_all(w);
  w.write(".vscode/launch.json", "the user's launch\n");
  w.write(".claude/settings.local.json", "{\"user\":1}\n");
  w.write(".github/workflows/local.yml", "the user's\n");
  for (const char* attack :
       {"mv .vscode .vscode-x && mkdir .vscode && cp .vscode-x/settings.json .vscode/ && "
        "echo evil > .vscode/launch.json",
        "mv .claude .claude-x && mkdir .claude && cp .claude-x/settings.json .claude/ && "
        "echo '{\"hooks\":{}}' > .claude/settings.local.json",
        "mv .github .gh && mkdir -p .github/workflows && echo evil > "
        ".github/workflows/local.yml",
        "mv .github/workflows .github/w2 && mkdir .github/workflows && echo evil > "
        ".github/workflows/local.yml",
        "rm -rf .vscode; mkdir -p .vscode; echo evil > .vscode/launch.json"}) {
    Proc r = w.sh(attack);
    EXPECT_EQ(w.read(".vscode/launch.json"), "the user's launch\n") << attack << "\n" << r.err;
    EXPECT_EQ(w.read(".claude/settings.local.json"), "{\"user\":1}\n") << attack;
    EXPECT_EQ(w.read(".github/workflows/local.yml"), "the user's\n") << attack;
    EXPECT_FALSE(w.exists(".vscode-x")) << attack;
    EXPECT_FALSE(w.exists(".gh")) << attack;
  }
}

TEST(Planted, AftercareNeverFollowsALinkOutOfTheProject) {  // FS-2, PROT-7
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.cargo/config.toml", "[build]\n");
  std::string other = w.root() + "/other";
  w.write(other + "/.github/workflows/ci.yml", "other repo\n");
  for (const std::string& attack : std::vector<std::string>{
           "ln -s ~/.cargo .cargo", "ln -s " + other + "/.github .github",
           "ln -s " + w.home() + " .cargo", "ln -s / .cargo", "ln -s .. .github"}) {
    Proc r = w.sh(attack);
    EXPECT_EQ(w.read(w.home() + "/.cargo/config.toml"), "[build]\n") << attack << r.err;
    EXPECT_TRUE(quarantined(w.home() + "/.cargo", "config.toml").empty()) << attack;
    EXPECT_EQ(w.read(other + "/.github/workflows/ci.yml"), "other repo\n") << attack;
    EXPECT_TRUE(quarantined(other + "/.github", "workflows").empty()) << attack;
    EXPECT_FALSE(w.exists(".cargo")) << attack << "\n" << r.err;
    EXPECT_FALSE(w.exists(".github")) << attack;
  }
  // The links themselves were moved aside.
  EXPECT_FALSE(quarantined(w.project(), ".cargo").empty());
  EXPECT_FALSE(quarantined(w.project(), ".github").empty());
  // A later command still runs (no move failed).
  EXPECT_EQ(w.sh("true").status, 0);
}

TEST(Planted, GlobalGitConfigIsReadOnlyWithoutARepository) {  // GIT-1
  REQUIRE_SANDBOX();
  World w(/*git=*/false);
  w.write(w.home() + "/.config/git/config", "[user]\n\tname = U\n");
  w.write(w.home() + "/.gitconfig", "[user]\n\temail = u@example.com\n");
  w.config("[sandbox]\nwritable = [\"~/.config\"]\n");
  Proc r = w.sh(
      "printf '[core]\\n\\tfsmonitor = x\\n' >> ~/.config/git/config; "
      "printf '[core]\\n\\tpager = x\\n' >> ~/.gitconfig; echo ok > ~/.config/other");
  EXPECT_EQ(w.read(w.home() + "/.config/git/config"), "[user]\n\tname = U\n") << r.err;
  EXPECT_EQ(w.read(w.home() + "/.gitconfig"), "[user]\n\temail = u@example.com\n");
  EXPECT_EQ(w.read(w.home() + "/.config/other"), "ok\n");  // the writable path still works
}

TEST(Planted, ReviewRunsNoDriverThatTheProjectNames) {  // REV-1
  REQUIRE_SANDBOX();
  World w;
  w.write("a.txt", "one\n");
  w.write("link", "");
  unlink(w.abs("link").c_str());
  ASSERT_EQ(symlink("a.txt", w.abs("link").c_str()), 0);
  commit_all(w);
  ASSERT_EQ(w.cordon({"review", "start"}).status, 0);
  // What a swapped config and attributes could name (set here on the host, as the attack would
  // have left them).
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"filter.x.clean", plant_cmd(w, "clean")},
           {"filter.x.smudge", plant_cmd(w, "smudge")},
           {"filter.x.process", plant_cmd(w, "process")},
           {"diff.x.textconv", plant_cmd(w, "textconv")},
           {"diff.x.command", plant_cmd(w, "diffcmd")},
           {"diff.external", plant_cmd(w, "external")},
           {"core.fsmonitor", plant_cmd(w, "fsmonitor")},
           {"core.pager", plant_cmd(w, "pager")},
           {"core.hooksPath", w.root()}})
    w.host({"git", "config", k, v});
  w.write(".git/info/attributes", "* filter=x diff=x\n");
  w.write(".gitattributes", "* filter=x diff=x\n");
  w.write(w.root() + "/post-checkout", "#!/bin/sh\ntouch " + marker(w, "hook") + "\n", 0755);
  w.write("a.txt", "two\n");
  w.write("b.txt", "new\n");
  Proc r = w.cordon({"review"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("M a.txt"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("link"), std::string::npos) << r.out;  // unchanged link
  EXPECT_NE(r.out.find("b.txt"), std::string::npos);
  for (const char* tag : {"clean", "smudge", "process", "textconv", "diffcmd", "external",
                          "fsmonitor", "pager", "hook"})
    EXPECT_FALSE(ran(w, tag)) << tag;
  // And a command's run (git facts on the host) runs none of them either.
  w.sh("true");
  for (const char* tag : {"clean", "fsmonitor", "pager", "hook"}) EXPECT_FALSE(ran(w, tag)) << tag;
}

}  // namespace
}  // namespace cordon::it
