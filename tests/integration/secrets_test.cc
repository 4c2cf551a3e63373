// Secrets the attack pass of 2026-12-01 reached (issue 13): the environment, the machine's own
// secrets, cordon's own folders, credential folders as the project, cordon's own environment.
// Each test shows what a user sees in a real sandbox.
#include <unistd.h>

#include "harness.h"

namespace cordon::it {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Token-shaped values, assembled so that this file does not itself hold one.
std::string token(const std::string& prefix) {
  return prefix + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
}

TEST(Secrets, CredentialNamesAndValueShapesAreStrippedCertificateBundlesPass) {  // ENV-1
  REQUIRE_SANDBOX();
  World w;
  w.env["MYSQL_PWD"] = "pw-mysql-1";
  w.env["PASSPHRASE"] = "pw-passphrase-2";
  w.env["PRIVATE_KEY_PEM"] = "pw-pem-3";
  w.env["MY_APIKEY"] = "pw-apikey-4";
  w.env["SLACK_WEBHOOK_URL"] = "https://hooks.slack.com/services/T0/B0/pw-webhook-5";
  w.env["JDBC_URL"] = "jdbc:postgresql://db/app?user=app&password=pw-jdbc-6";
  w.env["HARMLESS_NAME_1"] = token("sk_live_");
  w.env["HARMLESS_NAME_2"] = token("ghp_");
  w.env["HARMLESS_NAME_3"] = token("github_pat_");
  w.env["HARMLESS_NAME_4"] = token("glpat-");
  w.env["HARMLESS_NAME_5"] = token("xoxb-");
  w.env["HARMLESS_NAME_6"] = "AKIA" + std::string("ABCDEFGHIJKLMNOP");
  w.env["HARMLESS_NAME_7"] = "AIza" + std::string(35, 'q');
  w.env["HARMLESS_NAME_8"] = "-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----";
  w.env["HARMLESS_NAME_9"] = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl";
  w.env["HARMLESS_NAME_10"] = "https://bob:pw-url-7@example.com/x";
  w.env["AWS_CA_BUNDLE"] = "/etc/ssl/certs/ca-certificates.crt";
  w.env["PIP_CA_BUNDLE"] = "/etc/ssl/certs/ca-certificates.crt";
  w.env["SSL_CERT_FILE"] = "/etc/ssl/certs/ca-certificates.crt";
  w.env["SSL_CERT_DIR"] = "/etc/ssl/certs";
  w.env["NODE_EXTRA_CA_CERTS"] = "/etc/ssl/certs/ca-certificates.crt";
  w.env["REQUESTS_CA_BUNDLE"] = "/etc/ssl/certs/ca-certificates.crt";
  w.env["CURL_CA_BUNDLE"] = "/etc/ssl/certs/ca-certificates.crt";
  for (const char* flag : {"", "--outside-sandbox"}) {
    std::vector<std::string> flags;
    if (*flag) flags.push_back(flag);
    Proc r = w.sh("env", flags);
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* v : {"pw-", "sk_live_", "ghp_", "github_pat_", "glpat-", "xoxb-", "AKIA",
                          "AIza", "PRIVATE KEY", "eyJhbGci"})
      EXPECT_FALSE(has(r.out, v)) << flag << " leaks " << v << "\n" << r.out;
    for (const char* n : {"AWS_CA_BUNDLE=", "PIP_CA_BUNDLE=", "SSL_CERT_FILE=", "SSL_CERT_DIR=",
                          "NODE_EXTRA_CA_CERTS=", "REQUESTS_CA_BUNDLE=", "CURL_CA_BUNDLE="})
      EXPECT_TRUE(has(r.out, n)) << flag << " strips " << n;
  }
}

// ENV-4 (issue 28): under a coding agent (Claude Code sets CLAUDECODE=1), its own key is not
// announced on the hook's commands, though still hidden; the notice follows the output.
TEST(Secrets, TheAgentsOwnKeyIsHiddenUnsaidAndTheNoticeFollowsTheOutput) {
  REQUIRE_SANDBOX();
  World w;
  w.env["CLAUDECODE"] = "1";
  w.env["ANTHROPIC_API_KEY"] = "sk-own";
  Proc only = w.sh("echo \"[$ANTHROPIC_API_KEY]\"; echo OUTPUT-LINE >&2");
  ASSERT_EQ(only.status, 0) << only.err;
  EXPECT_TRUE(has(only.out, "[]")) << only.out;  // hidden all the same
  EXPECT_FALSE(has(only.err, "not available to commands")) << only.err;
  World g;
  g.env["CLAUDECODE"] = "1";
  g.env["ANTHROPIC_API_KEY"] = "sk-own";
  g.env["GITHUB_TOKEN"] = "x";
  Proc r = g.sh("echo OUTPUT-LINE >&2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.err, "GITHUB_TOKEN")) << r.err;
  EXPECT_FALSE(has(r.err, "ANTHROPIC_API_KEY")) << r.err;
  EXPECT_LT(r.err.find("OUTPUT-LINE"), r.err.find("GITHUB_TOKEN")) << r.err;
}

TEST(Secrets, TheStrippedNamesNoticeComesOncePerProject) {  // ENV-4
  REQUIRE_SANDBOX();
  World w;
  w.env["GITHUB_TOKEN"] = "x";
  Proc first = w.sh("true");
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_TRUE(has(first.err, "not available to commands")) << first.err;
  EXPECT_TRUE(has(first.err, "GITHUB_TOKEN"));
  Proc second = w.sh("true");
  EXPECT_FALSE(has(second.err, "not available to commands")) << second.err;
  // A named session is the same project: not repeated either.
  Proc named = w.cordon({"run", "--session", "0123456789abcdef", "--", "true"});
  EXPECT_FALSE(has(named.err, "not available to commands")) << named.err;
  // A name not said before is said (with the others).
  w.env["NPM_TOKEN"] = "y";
  Proc third = w.sh("true");
  EXPECT_TRUE(has(third.err, "NPM_TOKEN")) << third.err;
  // Another project hears it on its own first command.
  World other;
  other.env["GITHUB_TOKEN"] = "x";
  EXPECT_TRUE(has(other.sh("true").err, "not available to commands"));
}

TEST(Secrets, TheMachinesOwnSecretsReadEmpty) {  // FS-4 (issue 13 item 7)
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.sh(
      "for f in /etc/shadow /etc/gshadow /etc/shadow- /etc/gshadow- /etc/ssh/ssh_host_*_key; do "
      "  [ -e \"$f\" ] || continue; printf '%s %s\\n' \"$f\" \"$(wc -c < \"$f\")\"; done; "
      "echo done");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "/etc/shadow 0")) << r.out;
  for (const auto& line : {std::string(" 1"), std::string(" 2"), std::string(" 3"),
                           std::string(" 4"), std::string(" 5"), std::string(" 6"),
                           std::string(" 7"), std::string(" 8"), std::string(" 9")})
    EXPECT_FALSE(has(r.out, line + "\n") || has(r.out, line + "0")) << r.out;
  // The public host keys stay readable.
  if (access("/etc/ssh", F_OK) == 0) {
    r = w.sh("cat /etc/ssh/ssh_host_*_key.pub 2>/dev/null | wc -c");
    EXPECT_EQ(r.status, 0);
  }
  // cordon policy lists them.
  Proc p = w.cordon({"policy"});
  EXPECT_TRUE(has(p.out, "/etc/shadow")) << p.out;
}

TEST(Secrets, CordonsStateAndCacheAreHiddenButTheOwnTmpWorks) {  // FS-3, FS-8, FS-13
  REQUIRE_SANDBOX();
  World w;
  std::string cache = w.home() + "/.cache/cordon";
  std::string state = w.home() + "/.local/state/cordon";
  w.write(cache + "/sandbox-tmp/00000000000000aa/their-file", "other session's secret\n");
  w.write(state + "/leftovers/00000000000000aa/1", "{\"command\":[\"mysql\",\"-pHUNTER2\"]}\n");
  Proc r = w.sh(
      "cat \"$HOME/.cache/cordon/sandbox-tmp/00000000000000aa/their-file\"; "
      "cat \"$HOME/.local/state/cordon/leftovers/00000000000000aa/1\"; "
      "ls -A \"$HOME/.cache/cordon\" \"$HOME/.local/state/cordon\"; "
      "grep -r HUNTER2 \"$HOME\" 2>/dev/null; "
      "echo mine > /tmp/own && cat /tmp/own");
  EXPECT_FALSE(has(r.out, "secret")) << r.out;
  EXPECT_FALSE(has(r.out, "HUNTER2")) << r.out;
  EXPECT_FALSE(has(r.out, "sandbox-tmp")) << r.out;
  EXPECT_FALSE(has(r.out, "leftovers")) << r.out;
  EXPECT_TRUE(has(r.out, "mine")) << r.out << r.err;
  // What the previous command of a named session left in /tmp, the next one sees (FS-3).
  Proc a = w.cordon(
      {"run", "--session", "00000000000000bb", "--", "/bin/sh", "-c", "echo kept > /tmp/k"});
  Proc b = w.cordon({"run", "--session", "00000000000000bb", "--", "/bin/cat", "/tmp/k"});
  EXPECT_EQ(b.out, "kept\n") << a.err << b.err;
}

TEST(Secrets, ACredentialFolderOrASystemFolderIsNeverTheProject) {  // FS-2, FS-4, FS-7
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.ssh/id_rsa", "PRIVATE KEY\n", 0600);
  w.write(w.home() + "/.aws/sso/cache/token.json", "{}\n");
  struct Case {
    std::string project, says;
  } cases[] = {
      {w.home() + "/.ssh", "hidden path"},
      {w.home() + "/.aws/sso", "hidden path"},
      {w.home(), "home folder"},
      {"/etc", "system folder"},
      {"/usr", "system folder"},
      {"/", "home folder"},  // `/` contains the home: that rule is named first
      {"/proc", "kernel"},
  };
  for (const auto& c : cases) {
    Proc r = w.cordon({"run", "--project", c.project, "--", "/bin/sh", "-c",
                       "cat id_rsa; echo planted > planted.txt"});
    EXPECT_EQ(r.status, 125) << c.project << ": " << r.out << r.err;
    EXPECT_TRUE(has(r.err, c.says)) << c.project << ": " << r.err;
    EXPECT_TRUE(has(r.err, "never a project")) << r.err;
    EXPECT_FALSE(has(r.out, "PRIVATE KEY"));
  }
  EXPECT_FALSE(w.exists(w.home() + "/.ssh/planted.txt"));
  EXPECT_EQ(w.read(w.home() + "/.ssh/id_rsa"), "PRIVATE KEY\n");
  // A harness's worktree inside ~/.claude is still a project (FS-7).
  w.write(w.home() + "/.claude/worktrees/a/file.txt", "x\n");
  Proc ok = w.cordon(
      {"run", "--project", w.home() + "/.claude/worktrees/a", "--", "/bin/cat", "file.txt"});
  EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST(Secrets, AnOutsideSandboxCommandCannotReadCordonsEnvironment) {  // ENV-1, NET-4
  REQUIRE_SANDBOX();
  World w;
  w.env["GITHUB_TOKEN"] = "pw-cordons-own-token";
  // $PPID is cordon itself: the command is its child.
  Proc r = w.sh(
      "cat /proc/$PPID/environ 2>&1 | tr '\\0' '\\n'; cat /proc/$PPID/cmdline | tr '\\0' ' '; "
      "echo; head -c 64 /proc/$PPID/mem 2>&1 | wc -c",
      {"--outside-sandbox"});
  EXPECT_TRUE(has(r.out, "cordon")) << r.out << r.err;  // it is cordon's /proc folder
  if (geteuid() == 0) {
    // root keeps CAP_SYS_PTRACE over its own processes: run as an unprivileged user too
    // (scripts/test.sh does).
    GTEST_SKIP() << "as root, /proc/<pid>/environ is readable whatever cordon does";
  }
  EXPECT_FALSE(has(r.out, "pw-cordons-own-token")) << r.out;
  EXPECT_TRUE(has(r.out, "Permission denied")) << r.out;
}

TEST(Secrets, TheGlobalGitConfigIsSeenWithoutItsCredentials) {  // FS-12 (issue 13 item 6)
  REQUIRE_SANDBOX();
  World w;
  std::string t1 = token("ghp_"), t2 = token("glpat-"), t3 = "hunter2-" + token("x");
  w.write(w.home() + "/.gitconfig",
          "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n"
          "[alias]\n\tlg = log --oneline\n"
          "[http]\n\textraHeader = Authorization: Bearer " +
              t1 +
              "\n"
              "[url \"https://x-access-token:" +
              t2 +
              "@github.com/\"]\n\tinsteadOf = https://github.com/\n"
              "[include]\n\tpath = .gitconfig.local\n");
  w.write(w.home() + "/.gitconfig.local", "[credential]\n\thelper = \"!f() { echo password=" + t3 +
                                              "; }; f\"\n"
                                              "[core]\n\tabbrev = 12\n");
  Proc r = w.sh(
      "cat ~/.gitconfig ~/.gitconfig.local; git config --global user.name; "
      "git config core.abbrev; git config --global alias.lg; "
      "git config --global --get-all http.extraheader; echo end");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const auto& t : {t1, t2, t3}) EXPECT_FALSE(has(r.out, t)) << r.out;
  EXPECT_TRUE(has(r.out, "Ada Lovelace\n12\nlog --oneline\nend")) << r.out;
  // git commit keeps the user's identity (the harness's GIT_AUTHOR_* would hide it).
  for (const char* v :
       {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"})
    w.env.erase(v);
  r = w.sh("echo x > f.txt && git add f.txt && git commit -qm one && git log -1 --format=%an");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "Ada Lovelace")) << r.out;
  // The user's own files are untouched; cordon policy names the keys, never the tokens.
  EXPECT_TRUE(has(w.read(w.home() + "/.gitconfig"), t1));
  Proc p = w.cordon({"policy"});
  EXPECT_TRUE(has(p.out, "~/.gitconfig: http.extraheader")) << p.out;
  EXPECT_TRUE(has(p.out, "url.<…>.insteadof")) << p.out;
  EXPECT_TRUE(has(p.out, "~/.gitconfig.local: credential.helper")) << p.out;
  for (const auto& t : {t1, t2, t3}) EXPECT_FALSE(has(p.out, t)) << p.out;
  // GIT_CONFIG_GLOBAL naming another file does not uncover ~/.gitconfig to `cat`.
  w.write(w.home() + "/other.gitconfig", "[user]\n\tname = Other\n");
  w.env["GIT_CONFIG_GLOBAL"] = w.home() + "/other.gitconfig";
  r = w.sh("cat ~/.gitconfig; git config user.name");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(has(r.out, t1)) << r.out;
  EXPECT_TRUE(has(r.out, "Other")) << r.out;
}

}  // namespace
}  // namespace cordon::it
