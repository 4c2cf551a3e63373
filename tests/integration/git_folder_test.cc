// GIT-2, GIT-3, GIT-4, GIT-8, GIT-9: git folders a command creates or changes are judged the way
// git reads them and kept only when known clean (issue 27 §1). Each finding of the third attack
// pass, and variants, planted by a sandboxed command; then the user's own git runs OUTSIDE
// cordon, as it would the next day, and the planted program must not have run (its marker file
// is absent) while the note names what made the folder unclean. A clean clone is kept and
// usable. Run as root and as the unprivileged user.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "harness.h"

namespace cordon::it {
namespace {

size_t quarantined(const std::string& dir, const std::string& prefix) {
  size_t n = 0;
  DIR* d = opendir(dir.c_str());
  if (!d) return n;
  while (dirent* e = readdir(d))
    n += std::string(e->d_name).rfind(prefix + ".cordon-quarantined-", 0) == 0;
  closedir(d);
  return n;
}

std::string marker(const World& w, const std::string& tag) { return w.root() + "/pwned-" + tag; }
// A program that leaves a mark when it runs.
std::string prog(const World& w, const std::string& tag) {
  return "touch " + marker(w, tag) + "; false";
}
bool ran(const World& w, const std::string& tag) {
  return access(marker(w, tag).c_str(), F_OK) == 0;
}
// A hook script that leaves a mark.
std::string hook_script(const World& w, const std::string& tag) {
  return "printf '#!/bin/sh\\ntouch " + marker(w, tag) + "\\n'";
}

// The user's next git commands in `dir`, outside the sandbox.
void users_git(const World& w, const std::string& dir) {
  w.host({"git", "status"}, dir);
  w.host({"git", "diff"}, dir);
  w.host({"git", "-c", "protocol.ext.allow=always", "fetch", "-q"}, dir);
  w.host({"git", "commit", "-q", "--allow-empty", "-m", "user"}, dir);
}

TEST(GitFolder, CloneIntoTheProjectAndCommitInIt) {  // GIT-8, GIT-1, GIT-9
  REQUIRE_SANDBOX();
  World w;
  std::string up = w.root() + "/upstream";
  w.host({"git", "init", "-q", "-b", "main", up});
  w.write(up + "/u.txt", "u\n");
  w.host({"git", "add", "u.txt"}, up);
  w.host({"git", "commit", "-q", "-m", "u"}, up);
  Proc r = w.sh("git clone -q " + up + " vendor/lib && cd vendor/lib && echo x > x.txt && "
                "git add x.txt && git commit -qm x");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(w.exists("vendor/lib/.git/config")) << r.err;
  EXPECT_EQ(quarantined(w.abs("vendor/lib"), ".git"), 0u) << r.err;
  // Kept, and usable in the next commands: a commit in the clone works.
  r = w.sh("cd vendor/lib && echo y > y.txt && git add y.txt && git commit -qm y && git log -1");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(w.exists("vendor/lib/.git/config"));
  // A clean `git init` below the root is kept too.
  r = w.sh("git init -q tools/scratch && cd tools/scratch && git commit -q --allow-empty -m s");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(w.exists("tools/scratch/.git/HEAD"));
  // Kept means locked: its config and hooks are read-only from the next command on.
  r = w.sh("git -C vendor/lib config core.fsmonitor '" + prog(w, "kept") + "'; " + hook_script(w, "kepthook") +
           " > vendor/lib/.git/hooks/pre-commit; chmod +x vendor/lib/.git/hooks/pre-commit; true");
  EXPECT_TRUE(w.exists("vendor/lib/.git/config")) << r.err;  // locked, not moved aside
  EXPECT_EQ(quarantined(w.abs("vendor/lib"), ".git"), 0u) << r.err;
  users_git(w, w.abs("vendor/lib"));
  EXPECT_FALSE(ran(w, "kept")) << r.err;
  EXPECT_FALSE(ran(w, "kepthook")) << r.err;
}

TEST(GitFolder, KeysThatRunProgramsInANestedRepositoryAreMovedAside) {  // GIT-8
  REQUIRE_SANDBOX();
  World w;
  const std::vector<std::pair<std::string, std::string>> keys = {
      {"core.fsmonitor", prog(w, "k0")},
      {"core.sshCommand", prog(w, "k1")},
      {"credential.helper", "!" + prog(w, "k2")},
      {"gpg.program", prog(w, "k3")},
      {"diff.x.textconv", prog(w, "k4")},
      {"filter.x.clean", prog(w, "k5")},
      {"core.alternateRefsCommand", prog(w, "k6")},
      {"interactive.diffFilter", prog(w, "k7")},
      {"sendemail.smtpServer", prog(w, "k8")},
      {"submodule.x.update", "!" + prog(w, "k9")},
      {"protocol.ext.allow", "always"},
      {"remote.origin.url", "ext::sh -c touch% " + marker(w, "k11")},
      {"core.hooksPath", "/tmp"},
      {"include.path", "../evil.cfg"},
  };
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string dir = "n" + std::to_string(i);
    Proc r = w.sh("git init -q " + dir + " && git -C " + dir + " config '" + keys[i].first +
                  "' '" + keys[i].second + "'");
    EXPECT_FALSE(w.exists(dir + "/.git")) << keys[i].first << "\n" << r.err;
    EXPECT_EQ(quarantined(w.abs(dir), ".git"), 1u) << keys[i].first;
    EXPECT_NE(r.err.find(dir + "/.git"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not known clean"), std::string::npos) << r.err;
    users_git(w, w.abs(dir));
  }
  for (size_t i = 0; i < keys.size(); ++i)
    EXPECT_FALSE(ran(w, "k" + std::to_string(i))) << keys[i].first;
}

TEST(GitFolder, ConfigReadAsGitReadsIt) {  // GIT-8: BOM, FIFO, link
  REQUIRE_SANDBOX();
  World w;
  // A UTF-8 byte-order mark before [core] (git skips it).
  Proc r = w.sh("git init -q bom && printf '\\357\\273\\277[core]\\n\\tfsmonitor = \"" +
                prog(w, "bom") + "\"\\n' > bom/.git/config");
  EXPECT_FALSE(w.exists("bom/.git")) << r.err;
  EXPECT_NE(r.err.find("core.fsmonitor"), std::string::npos) << r.err;
  users_git(w, w.abs("bom"));
  EXPECT_FALSE(ran(w, "bom"));
  // The config made a link after git init.
  r = w.sh("git init -q lnk && printf '[core]\\n\\tfsmonitor = \"" + prog(w, "lnk") +
           "\"\\n' > evil.cfg && rm lnk/.git/config && ln -s ../../evil.cfg lnk/.git/config");
  EXPECT_FALSE(w.exists("lnk/.git")) << r.err;
  EXPECT_NE(r.err.find("link"), std::string::npos) << r.err;
  users_git(w, w.abs("lnk"));
  EXPECT_FALSE(ran(w, "lnk"));
  // A FIFO for a config: judged (moved aside), and cordon does not wait on it.
  auto t0 = std::chrono::steady_clock::now();
  r = w.sh("git init -q fifo && rm fifo/.git/config && mkfifo fifo/.git/config",
           {"--timeout", "20s"});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 15.0) << r.err;
  EXPECT_FALSE(w.exists("fifo/.git")) << r.err;
}

TEST(GitFolder, HooksOfAModuleFolderAndTwoLineGitFiles) {  // GIT-8: findings 1 and 2
  REQUIRE_SANDBOX();
  World w;
  // A `.git` file naming a module folder the command made, whose config is clean but whose
  // hooks are not.
  Proc r = w.sh("git init -q --bare .git/modules/x && " + hook_script(w, "modhook") +
                " > .git/modules/x/hooks/pre-commit && chmod +x .git/modules/x/hooks/pre-commit && "
                "mkdir -p lib/x && echo 'gitdir: ../../.git/modules/x' > lib/x/.git");
  EXPECT_FALSE(w.exists("lib/x/.git")) << r.err;
  EXPECT_NE(r.err.find("pre-commit"), std::string::npos) << r.err;
  users_git(w, w.abs("lib/x"));
  EXPECT_FALSE(ran(w, "modhook"));
  // Only the first line of a `.git` file was read; git reads it whole.
  r = w.sh("mkdir -p lib/y && printf 'gitdir: ../../.git/modules/x\\n/../../evil\\n' > lib/y/.git");
  EXPECT_FALSE(w.exists("lib/y/.git")) << r.err;
  EXPECT_NE(r.err.find("more than one line"), std::string::npos) << r.err;
  // A worktree admin folder without commondir.
  r = w.sh("git init -q --bare .git/worktrees/fake && mkdir -p wt && "
           "echo 'gitdir: ../.git/worktrees/fake' > wt/.git");
  EXPECT_FALSE(w.exists("wt/.git")) << r.err;
}

TEST(GitFolder, NewCommondirInASubmoduleOrANestedCloneIsMovedAside) {  // GIT-3: finding 6
  REQUIRE_SANDBOX();
  World w;
  std::string sub = w.root() + "/subrepo";
  w.host({"git", "init", "-q", "-b", "main", sub});
  w.host({"git", "commit", "-q", "--allow-empty", "-m", "s"}, sub);
  ASSERT_EQ(
      w.host({"git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "lib/sub"})
          .status,
      0);
  w.host({"git", "commit", "-q", "-m", "sub"});
  w.host({"git", "init", "-q", w.abs("vendor/real")});
  w.sh("true");  // the directory index knows vendor/real now
  Proc r = w.sh("git init -q --bare planted && git config -f planted/config core.fsmonitor '" +
                prog(w, "cd") + "' && echo ../../../planted > .git/modules/lib/sub/commondir && "
                "echo ../../planted > vendor/real/.git/commondir; true");
  EXPECT_FALSE(w.exists(".git/modules/lib/sub/commondir")) << r.err;
  EXPECT_FALSE(w.exists("vendor/real/.git/commondir")) << r.err;
  w.host({"git", "status"});
  users_git(w, w.abs("lib/sub"));
  users_git(w, w.abs("vendor/real"));
  EXPECT_FALSE(ran(w, "cd"));
}

TEST(GitFolder, ProjectsOwnMissingHooksOrConfigWorktreeAreJudged) {  // GIT-4: finding 7
  REQUIRE_SANDBOX();
  World w;
  w.host({"rm", "-rf", w.abs(".git/hooks")});
  w.host({"git", "config", "extensions.worktreeConfig", "true"});
  Proc r = w.sh("mkdir .git/hooks && " + hook_script(w, "ownhook") +
                " > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit");
  EXPECT_FALSE(w.exists(".git/hooks/pre-commit")) << r.err;
  EXPECT_NE(r.err.find("pre-commit"), std::string::npos) << r.err;
  r = w.sh("printf '[core]\\n\\tfsmonitor = \"" + prog(w, "wtcfg") + "\"\\n' > .git/config.worktree");
  EXPECT_FALSE(w.exists(".git/config.worktree")) << r.err;
  users_git(w, w.project());
  EXPECT_FALSE(ran(w, "ownhook"));
  EXPECT_FALSE(ran(w, "wtcfg"));
  // A clean one (git's sample hooks) is kept.
  r = w.sh("mkdir -p .git/hooks && echo '# sample' > .git/hooks/pre-commit.sample");
  EXPECT_TRUE(w.exists(".git/hooks/pre-commit.sample")) << r.err;
}

TEST(GitFolder, FifoForAGitFileDoesNotHoldCordon) {  // GIT-8, PROC-1
  REQUIRE_SANDBOX();
  World w;
  auto timed = [&](const std::string& script) {
    auto t0 = std::chrono::steady_clock::now();
    Proc r = w.sh(script, {"--timeout", "5s"});
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };
  Proc r = timed("rm -f .git/index && mkfifo .git/index");
  EXPECT_LT(r.ms, 12000) << r.err;
  r = timed("true");  // the next command does not wait on the FIFO index either
  EXPECT_LT(r.ms, 12000) << r.err;
  EXPECT_EQ(r.status, 0) << r.err;
  w.host({"rm", "-f", w.abs(".git/index")});
  World w2(/*git=*/false);
  auto t0 = std::chrono::steady_clock::now();
  r = w2.sh("mkdir .git && mkfifo .git/config && echo 'ref: refs/heads/main' > .git/HEAD",
            {"--timeout", "5s"});
  r = w2.sh("true", {"--timeout", "5s"});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 20.0) << r.err;
  EXPECT_FALSE(w2.exists(".git/config")) << r.err;  // the root `.git` was moved aside
}

TEST(GitFolder, ALinkedWorktreeLongerThanTheGitPathDoesNotAbortCordon) {  // GIT-2, GIT-8
  REQUIRE_SANDBOX();
  World w;
  const std::string rel = ".claude/worktrees/agent-1-with-a-name-longer-than-the-git-path";
  Proc r = w.sh("git worktree add -q " + rel + " -b agent-1");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(w.exists(rel + "/.git")) << r.err;  // git's own worktree: known clean, kept
  // cordon in the worktree (its common .git path is shorter than the project path) and in the
  // main project: every command runs (it aborted with std::out_of_range, rc 134).
  r = w.cordon({"run", "--project", w.abs(rel), "--", "sh", "-c",
                "echo x > x.txt && git add x.txt && git commit -qm x"},
               w.abs(rel));
  EXPECT_EQ(r.status, 0) << r.err;
  r = w.sh("git status --short");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(GitFolder, AFolderTheIndexCannotListIsNamedNotSkipped) {  // FS-10, GIT-8: finding 8
  REQUIRE_SANDBOX();
  if (geteuid() == 0) GTEST_SKIP() << "root lists every folder";
  World w;
  w.sh("mkdir -p a");  // a folder the directory index knows
  Proc r = w.sh("mkdir -p a/b && git init -q a/b && git -C a/b config core.fsmonitor '" +
                prog(w, "hidden") + "' && chmod 100 a");
  EXPECT_NE(r.err.find("impossible to list"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("chmod u+rwx a"), std::string::npos) << r.err;
  // A new folder made unlistable in the same command it was made in.
  r = w.sh("mkdir -p c/d && chmod 000 c");
  EXPECT_NE(r.err.find("impossible to list"), std::string::npos) << r.err;
  w.host({"chmod", "755", w.abs("a"), w.abs("c")});
}

}  // namespace
}  // namespace cordon::it
