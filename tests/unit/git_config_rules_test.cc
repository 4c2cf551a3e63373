// FS-12: which global git config keys are credentials, and the copy commands see.
#include "plan/git_config_rules.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

using namespace std::string_literals;

// Token-shaped values, assembled so that this file does not itself hold one.
std::string ghp() { return "ghp_" + std::string("A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"); }

TEST(GitConfigRules, WhichKeysAreCredentials) {  // FS-12
  struct Case {
    std::string key, value, why;
  } cases[] = {
      // removed
      {"http.extraheader", "Authorization: Bearer abc", "an HTTP header (Authorization)"},
      {"http.https://git.corp.example/.extraheader",
       "AUTHORIZATION: basic eA==", "an HTTP header (Authorization)"},
      {"url.https://x-access-token:" + ghp() + "@github.com/.insteadof", "https://github.com/",
       "a URL with a user or token"},
      {"url.https://" + ghp() + "@github.com/.insteadof", "https://github.com/",
       "a URL with a user or token"},
      {"url.https://github.com/.pushinsteadof", "https://me:hunter2@github.com/",
       "a URL with a user or token"},
      {"credential.helper", "!f() { echo username=me; echo password=hunter2; }; f",
       "a credential helper with a secret"},
      {"credential.https://ci.example.com.helper", "!echo \"password=$(cat /x)\"",
       "a credential helper with a secret"},
      {"credential.https://me:pw@example.com.username", "me", "a URL with a user or token"},
      {"github.token", ghp(), "GitHub personal token"},
      // kept
      {"user.name", "Ada Lovelace", ""},
      {"user.email", "ada@example.com", ""},
      {"core.editor", "vim", ""},
      {"alias.lg", "log --graph --oneline", ""},
      {"credential.helper", "store", ""},
      {"credential.helper", "!gh auth git-credential", ""},
      {"credential.https://github.com.username", "ada", ""},
      {"url.git@github.com:.insteadof", "https://github.com/", ""},
      {"url.ssh://git@github.com/.insteadof", "https://github.com/", ""},
      {"include.path", "~/.gitconfig.local", ""},
      {"includeif.gitdir:~/work/.path", "work.inc", ""},
      {"http.proxy", "http://proxy.example:3128", ""},
  };
  for (const auto& c : cases) {
    std::string why = git_config_credential(GitConfigEntry{c.key, c.value, true});
    if (c.why.empty())
      EXPECT_EQ(why, "") << c.key;
    else
      EXPECT_NE(why.find(c.why), std::string::npos) << c.key << " -> " << why;
  }
}

TEST(GitConfigRules, NamingARemovedKeyNeverPrintsItsToken) {  // FS-12, CFG-6
  GitConfigEntry e{"url.https://x-access-token:" + ghp() + "@github.com/.insteadof",
                   "https://github.com/", true};
  EXPECT_EQ(shown_git_config_key(e), "url.<…>.insteadof");
  EXPECT_EQ(shown_git_config_key({"http.https://a.example/.extraheader", "x", true}),
            "http.https://a.example/.extraheader");
}

TEST(GitConfigRules, TheCopyKeepsTheAllowlistedKeysInGitSyntax) {  // FS-12, SEC-1
  std::string z =
      "user.name\nAda \"the\" Countess\\\0user.email\nada@example.com\0core.filemode\0"
      "http.extraheader\nAuthorization: Bearer zzz\0sendemail.smtppass\nhunter2\0"
      "includeif.gitdir:~/Work/.path\n~/work.inc\0alias.two\nline1\nline2\0"s;
  auto entries = parse_git_config_list(z);
  ASSERT_EQ(entries.size(), 7u);
  EXPECT_FALSE(entries[2].has_value);
  EXPECT_EQ(entries[6].value, "line1\nline2");
  SanitizedGitConfig s = sanitize_git_config(entries);
  ASSERT_EQ(s.removed.size(), 2u);
  EXPECT_EQ(s.removed[0], "http.extraheader (an HTTP header (Authorization))");
  EXPECT_EQ(s.removed[1], "sendemail.smtppass (not on the list of keys known to hold no secret)");
  EXPECT_TRUE(s.credential);
  EXPECT_EQ(s.text.find("zzz"), std::string::npos);
  EXPECT_EQ(s.text.find("hunter2"), std::string::npos);
  EXPECT_NE(s.text.find("[user]\n\tname = \"Ada \\\"the\\\" Countess\\\\\"\n"
                        "\temail = \"ada@example.com\"\n"),
            std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("[core]\n\tfilemode\n"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("[includeif \"gitdir:~/Work/\"]\n\tpath = \"~/work.inc\"\n"),
            std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("\ttwo = \"line1\\nline2\"\n"), std::string::npos) << s.text;
  // Only keys not known to be safe: removed, but no credential among them (macOS keeps such
  // a file readable, FS-12).
  SanitizedGitConfig t = sanitize_git_config({{"core.pager", "less", true}});
  EXPECT_EQ(t.removed.size(), 1u);
  EXPECT_FALSE(t.credential);
}

}  // namespace
}  // namespace cordon
