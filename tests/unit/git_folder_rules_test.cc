// GIT-3, GIT-4, GIT-8: a git folder a command created or changed is kept only when known
// clean. Each finding of the third attack pass is a case here (the integration tests in
// tests/integration/git_folder_test.cc run the same attacks end to end).
#include "plan/git_folder_rules.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

GitConfigFact config(std::vector<GitConfigEntry> entries) {
  GitConfigFact c;
  c.kind = Kind::kFile;
  c.listed = true;
  c.entries = std::move(entries);
  return c;
}

// What `git clone https://…` writes, hooks from git's templates.
GitFolderFacts clean_clone() {
  GitFolderFacts f;
  f.kind = Kind::kDir;
  f.config = config({{"core.repositoryformatversion", "0"},
                     {"core.filemode", "true"},
                     {"core.bare", "false"},
                     {"core.logallrefupdates", "true"},
                     {"remote.origin.url", "https://example.invalid/r.git"},
                     {"remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"},
                     {"branch.main.remote", "origin"},
                     {"branch.main.merge", "refs/heads/main"}});
  f.hooks_kind = Kind::kDir;
  f.hooks = {{"pre-commit.sample", Kind::kFile}, {"pre-push.sample", Kind::kFile}};
  return f;
}

TEST(GitFolderRules, ACleanCloneOrInitIsKept) {  // GIT-8
  EXPECT_EQ(git_folder_unclean(clean_clone(), GitFolderRole::kNested), "");
  GitFolderFacts init;
  init.kind = Kind::kDir;
  init.config = config({{"core.repositoryformatversion", "0"}, {"core.bare", "false"}});
  EXPECT_EQ(git_folder_unclean(init, GitFolderRole::kNested), "");
}

TEST(GitFolderRules, EveryAllowlistRowIsAcceptedWithAPlainValue) {  // GIT-8
  for (const auto& k : allowed_git_folder_keys()) {
    std::string key = k.pattern;
    if (auto star = key.find('*'); star != std::string::npos) key.replace(star, 1, "x.y");
    std::string value = k.value == GitFolderValue::kUrl ? "https://h/r" : "true";
    EXPECT_EQ(git_key_unclean({key, value}, GitFolderRole::kNested), "") << key;
    EXPECT_FALSE(std::string(k.why).empty()) << key;
  }
}

TEST(GitFolderRules, KeysThatRunProgramsAreNotOnTheList) {  // GIT-8: finding 5 and variants
  for (const char* key :
       {"core.fsmonitor", "core.hookspath", "core.sshcommand", "core.pager", "core.editor",
        "core.askpass", "core.gitproxy", "core.alternaterefscommand", "credential.helper",
        "gpg.program", "gpg.ssh.program", "diff.x.textconv", "diff.x.command", "filter.x.clean",
        "filter.x.smudge", "filter.x.process", "merge.x.driver", "interactive.difffilter",
        "sendemail.smtpserver", "sendemail.tocmd", "protocol.ext.allow", "include.path",
        "includeif.gitdir:/.path", "alias.st", "remote.origin.uploadpack",
        "remote.origin.receivepack", "remote.origin.vcs", "submodule.x.update", "uploadpack.packobjectshook",
        "sequence.editor", "pager.log", "core.worktree", "http.proxy", "url.x.insteadof"})
    EXPECT_NE(git_key_unclean({key, "./evil"}, GitFolderRole::kNested), "") << key;
  // Case as git prints a subsection does not matter for the section and name.
  EXPECT_NE(git_key_unclean({"CORE.FsMonitor", "./x"}, GitFolderRole::kNested), "");
  // A bare boolean key where the value must be a boolean is fine; anything else is not.
  EXPECT_EQ(git_key_unclean({"core.bare", "", false}, GitFolderRole::kNested), "");
  EXPECT_NE(git_key_unclean({"core.bare", "./x"}, GitFolderRole::kNested), "");
  EXPECT_NE(git_key_unclean({"branch.main.rebase", "interactive"}, GitFolderRole::kNested), "");
  EXPECT_EQ(git_key_unclean({"branch.main.rebase", "merges"}, GitFolderRole::kNested), "");
}

TEST(GitFolderRules, RemoteUrlsArePlainTransportsOnly) {  // GIT-8: ext::, fd::, helpers
  for (const char* url : {"https://github.com/o/r", "http://127.0.0.1:8080/r.git",
                          "ssh://git@host/r", "git://host/r", "file:///srv/r.git",
                          "git@github.com:o/r.git", "/srv/repos/r.git", "../r", "git+ssh://h/r"})
    EXPECT_TRUE(plain_git_url(url)) << url;
  for (const char* url : {"ext::sh -c touch% /tmp/pwned", "fd::3", "testgit::/x",
                          "persistent-https://h/r", "-oProxyCommand=x", "https://h/r\nx", ""})
    EXPECT_FALSE(plain_git_url(url)) << url;
  GitFolderFacts f = clean_clone();
  f.config.entries.push_back({"remote.evil.url", "ext::sh -c evil"});
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kNested), "");
}

TEST(GitFolderRules, IncludesAreUnclean) {  // GIT-8
  GitFolderFacts f = clean_clone();
  f.config.entries.push_back({"include.path", "../x"});
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kNested).find("include.path"),
            std::string::npos);
}

TEST(GitFolderRules, HooksOnlySampleRegularFiles) {  // GIT-8: finding 1, GIT-4: finding 7
  GitFolderFacts f = clean_clone();
  f.hooks.push_back({"pre-commit", Kind::kFile});
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kSubmodule).find("pre-commit"),
            std::string::npos);
  f = clean_clone();
  f.hooks.push_back({"x.sample", Kind::kSymlink});
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kNested), "");
  f = clean_clone();
  f.hooks_kind = Kind::kSymlink;  // finding 4: a hooks folder made a link
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kNested), "");
  f = clean_clone();
  f.hooks_listed = false;
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kNested), "");
  EXPECT_EQ(git_hooks_unclean(Kind::kMissing, true, {}), "");
  EXPECT_NE(git_hooks_unclean(Kind::kDir, true, {{"post-checkout", Kind::kFile}}), "");
}

TEST(GitFolderRules, ConfigThatIsNotARegularFileIsUnclean) {  // GIT-8: finding 4, FIFO
  for (Kind k : {Kind::kSymlink, Kind::kOther, Kind::kDir}) {
    GitFolderFacts f = clean_clone();
    f.config.kind = k;
    EXPECT_NE(git_folder_unclean(f, GitFolderRole::kNested), "");
  }
  GitFolderFacts f = clean_clone();
  f.config.listed = false;  // git refused its syntax, or it could not be read
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kNested), "");
  GitFolderFacts link;
  link.kind = Kind::kSymlink;  // a `.git` that is a link to somewhere else
  EXPECT_NE(git_folder_unclean(link, GitFolderRole::kNested), "");
}

TEST(GitFolderRules, ConfigWorktreeIsJudgedByTheSameList) {  // GIT-4: finding 7
  GitFolderFacts f = clean_clone();
  f.config.entries.push_back({"extensions.worktreeconfig", "true"});
  f.config_worktree = config({{"core.fsmonitor", "./evil"}});
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kNested).find("config.worktree"),
            std::string::npos);
  f.config_worktree = config({{"core.sparsecheckout", "true"}});
  EXPECT_EQ(git_folder_unclean(f, GitFolderRole::kNested), "");
}

TEST(GitFolderRules, CommondirOnlyInAWorktreeAndLeadingHome) {  // GIT-3: finding 6
  GitFolderFacts f = clean_clone();
  f.commondir_kind = Kind::kFile;
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kNested), "");
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kSubmodule), "");
  GitFolderFacts wt;
  wt.kind = Kind::kDir;
  wt.commondir_kind = Kind::kFile;
  wt.gitdir_kind = Kind::kFile;
  EXPECT_NE(git_folder_unclean(wt, GitFolderRole::kWorktree), "");  // leads elsewhere
  wt.commondir_leads_home = true;
  EXPECT_EQ(git_folder_unclean(wt, GitFolderRole::kWorktree), "");
  wt.commondir_kind = Kind::kMissing;  // finding 1: a worktree folder without commondir
  EXPECT_NE(git_folder_unclean(wt, GitFolderRole::kWorktree), "");
  GitFolderFacts sub = clean_clone();
  sub.gitdir_kind = Kind::kFile;
  EXPECT_NE(git_folder_unclean(sub, GitFolderRole::kSubmodule), "");
}

TEST(GitFolderRules, SubmoduleFolderMayNameItsCheckout) {  // GIT-8
  GitFolderFacts f = clean_clone();
  f.config.entries.push_back({"core.worktree", "../../../lib/sub"});
  EXPECT_EQ(git_folder_unclean(f, GitFolderRole::kSubmodule), "");
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kNested), "");
  f.config.entries.push_back({"submodule.x.update", "!sh evil"});
  EXPECT_NE(git_folder_unclean(f, GitFolderRole::kSubmodule), "");
}

TEST(GitFolderRules, DotGitFileIsExactlyOneGitdirLine) {  // GIT-8: finding 2
  std::string to;
  EXPECT_EQ(git_file_unclean("gitdir: ../.git/modules/x\n", &to), "");
  EXPECT_EQ(to, "../.git/modules/x");
  EXPECT_EQ(git_file_unclean("gitdir: /abs/path", &to), "");
  EXPECT_NE(git_file_unclean("gitdir: ../.git/modules/x\n/../../evil\n", &to), "");
  EXPECT_NE(git_file_unclean("gitdir: a\rb", &to), "");
  EXPECT_NE(git_file_unclean(std::string("gitdir: a\0b", 11), &to), "");
  EXPECT_NE(git_file_unclean("gitdir:\n", &to), "");
  EXPECT_NE(git_file_unclean("gitdir:x", &to), "");
  EXPECT_NE(git_file_unclean("\xEF\xBB\xBFgitdir: x", &to), "");
  EXPECT_NE(git_file_unclean("", &to), "");
}

}  // namespace
}  // namespace cordon
