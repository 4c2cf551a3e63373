// Issue 27 section 4: what the lists left out, each mechanism in a real sandbox — hidden paths
// (FS-4), home configs seen without their credentials (FS-4), the global git config by
// allowlist (FS-12), PROT-1 entries at the root and below it (PROT-1, PROT-6), credential files
// and private keys under any name with the network open (FILE-4, NET-3), and the token in the
// project's own remote URL.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "plan/config_copy_rules.h"
#include "plan/hidden_list.h"
#include "plan/protected_list.h"

namespace cordon::it {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Token-shaped values, assembled so that this file does not itself hold one.
std::string token(const std::string& prefix) {
  return prefix + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
}

std::string private_key() {
  return "-----BEGIN " +
         std::string("PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-key-body\n") +
         "-----END PRIVATE KEY-----\n";
}

void commit_all(const World& w) {
  w.host({"git", "add", "-A"});
  w.host({"git", "commit", "-q", "-m", "commit"});
}

// FS-4: every entry of the hidden list (the ones this issue added among them) reads as empty
// inside the sandbox, a folder as an empty folder.
TEST(Lists, EveryHiddenEntryReadsEmpty) {  // FS-4
  REQUIRE_SANDBOX();
  World w;
  std::string script;
  size_t i = 0;
  for (const auto& row : hidden_home_rows()) {
    std::string rel = row.rel;
    if (size_t star = rel.find('*'); star != std::string::npos)
      rel = rel.substr(0, star) + ".toml";  // a glob entry: one of its matches
    std::string secret = "pw-hidden-" + std::to_string(i++) + "\n";
    w.write(w.home() + "/" + rel + (row.folder ? "/held" : ""), secret);
    script += row.folder ? "ls -A ~/" + rel + "; " : "wc -c < ~/" + rel + "; cat ~/" + rel + "; ";
  }
  Proc r = w.sh(script + "echo end");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(has(r.out, "pw-hidden-")) << r.out;
  EXPECT_FALSE(has(r.out, "held")) << r.out;
  EXPECT_TRUE(has(r.out, "end")) << r.out;
  // A hidden file cannot be written either.
  r = w.sh("echo x > ~/.pgpass");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(w.read(w.home() + "/.pgpass"), "pw-hidden-"));
}

// FS-4: each config seen as a copy, holding a token in its own syntax, loses the token and
// keeps the rest.
TEST(Lists, EverySanitizedConfigLosesItsTokenAndKeepsTheRest) {  // FS-4
  REQUIRE_SANDBOX();
  World w;
  const std::string t = token("ghp_");
  std::string script;
  for (const auto& row : sanitized_home_rows()) {
    std::string secret, kept;
    switch (row.format) {
      case ConfigFormat::kShell:
        secret = "export SOME_TOKEN=" + t, kept = "export KEPT_SETTING=1";
        break;
      case ConfigFormat::kIni:
        secret = "//registry.example/:_authToken=" + t, kept = "kept-setting = 1";
        break;
      case ConfigFormat::kYaml:
        secret = "npmAuthToken: " + t, kept = "keptSetting: 1";
        break;
      case ConfigFormat::kToml:
        secret = "token = \"" + t + "\"", kept = "kept_setting = 1";
        break;
    }
    w.write(w.home() + "/" + row.rel, kept + "\n" + secret + "\n");
    script += "cat ~/" + std::string(row.rel) + "; ";
  }
  Proc r = w.sh(script + "echo end");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(has(r.out, t)) << r.out;
  for (const char* kept :
       {"export KEPT_SETTING=1", "kept-setting = 1", "keptSetting: 1", "kept_setting = 1"})
    EXPECT_TRUE(has(r.out, kept)) << kept << "\n" << r.out;
}

// FS-4: a shell's startup files, Cargo's, Yarn's and pip's configs are seen without the lines
// that hold a credential; everything else in them stays, and the user's files are untouched.
TEST(Lists, HomeConfigsAreSeenWithoutTheirCredentials) {  // FS-4
  REQUIRE_SANDBOX();
  World w;
  const std::string t1 = token("ghp_"), t2 = "cargo-" + token("x"), t3 = "npm-" + token("y");
  w.write(w.home() + "/.bashrc",
          "alias ll='ls -l'\nexport GITHUB_TOKEN=" + t1 + "\nexport MY_SETTING=kept\n");
  w.write(w.home() + "/.cargo/config.toml",
          "[registry]\ntoken = \"" + t2 + "\"\n[build]\njobs = 3\n");
  w.write(w.home() + "/.yarnrc.yml",
          "nodeLinker: node-modules\nnpmScopes:\n  corp:\n    npmAuthToken: " + t3 + "\n");
  w.write(w.home() + "/.config/pip/pip.conf",
          "[global]\nindex-url = https://ada:pw-pip-1@pypi.corp.example/simple\n");
  Proc r = w.sh(
      "cat ~/.bashrc ~/.cargo/config.toml ~/.yarnrc.yml ~/.config/pip/pip.conf; "
      "bash -ic 'echo \"[$MY_SETTING][$GITHUB_TOKEN]\"' 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const auto& secret : {t1, t2, t3, std::string("pw-pip-1")})
    EXPECT_FALSE(has(r.out, secret)) << r.out;
  for (const char* kept : {"alias ll='ls -l'", "jobs = 3", "nodeLinker: node-modules",
                           "index-url = https://pypi.corp.example/simple", "[kept][]"})
    EXPECT_TRUE(has(r.out, kept)) << kept << "\n" << r.out;
  EXPECT_TRUE(has(w.read(w.home() + "/.bashrc"), t1));  // the user's own file is unchanged
  // A config without a credential is seen as it is (no copy).
  w.write(w.home() + "/.zshrc", "export EDITOR=vim\n");
  r = w.sh("cat ~/.zshrc");
  EXPECT_EQ(r.out, "export EDITOR=vim\n");
  // cordon policy names what was removed, never the secret.
  Proc p = w.cordon({"policy"});
  EXPECT_TRUE(has(p.out, "~/.bashrc")) << p.out;
  EXPECT_TRUE(has(p.out, "GITHUB_TOKEN")) << p.out;
  EXPECT_FALSE(has(p.out, t1)) << p.out;
}

// FS-12 by allowlist: only the keys known to hold no secret reach commands.
TEST(Lists, TheGlobalGitConfigKeepsOnlyTheKeysKnownToHoldNoSecret) {  // FS-12, SEC-1
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.gitconfig",
          "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n"
          "[sendemail]\n\tsmtpPass = pw-smtp-1\n\tsmtpUser = ada\n"
          "[mytool]\n\tapikey = pw-unknown-2\n"
          "[http \"https://git.corp.example/\"]\n\tcookieFile = /home/ada/pw-cookie-3\n"
          "[credential]\n\thelper = store --file /home/ada/pw-store-4\n"
          "[url \"https://ada:pw-url-5@git.corp.example/\"]\n\tinsteadOf = https://corp/\n"
          "[core]\n\taskPass = /home/ada/bin/pw-askpass-6\n\tautocrlf = input\n"
          "[alias]\n\tst = status --short\n"
          "[gpg]\n\tprogram = /home/ada/bin/pw-gpg-7\n"
          "[commit]\n\tgpgSign = true\n"
          "[url \"git@github.com:\"]\n\tinsteadOf = https://github.com/\n");
  for (const char* v :
       {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"})
    w.env.erase(v);
  Proc r = w.sh("git config --global --list; cat ~/.gitconfig");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(has(r.out, "pw-")) << r.out;
  EXPECT_FALSE(has(r.out, "smtppass")) << r.out;
  for (const char* kept : {"user.name=Ada Lovelace", "core.autocrlf=input",
                           "alias.st=status --short", "url.git@github.com:.insteadof"})
    EXPECT_TRUE(has(r.out, kept)) << kept << "\n" << r.out;
  // git commit works: the identity is there, and signing (which cannot run inside: the keys
  // are hidden) is not asked for.
  r = w.sh("echo x > f.txt && git add f.txt && git commit -qm one && git log -1 --format=%an");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "Ada Lovelace")) << r.out;
  Proc p = w.cordon({"policy"});
  EXPECT_TRUE(has(p.out, "sendemail.smtppass")) << p.out;
  EXPECT_TRUE(has(p.out, "mytool.apikey")) << p.out;
  EXPECT_FALSE(has(p.out, "pw-")) << p.out;
}

// FS-12, PERF-1: git's reading of the global config is kept between commands, by content: a
// changed config is what the next command sees, sanitized again.
TEST(Lists, AChangedGlobalGitConfigIsSeenByTheNextCommand) {  // FS-12, PERF-1
  REQUIRE_SANDBOX();
  World w;
  for (const char* v :
       {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"})
    w.env.erase(v);
  w.write(w.home() + "/.gitconfig", "[user]\n\tname = Ada Lovelace\n");
  Proc r = w.sh("git config --global --list");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "user.name=Ada Lovelace")) << r.out;
  // Same size, same second: only the content tells them apart.
  w.write(w.home() + "/.gitconfig", "[user]\n\tname = Bea Lovelace\n[my]\n\tapikey = pw-x\n");
  r = w.sh("git config --global --list; cat ~/.gitconfig");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "user.name=Bea Lovelace")) << r.out;
  EXPECT_FALSE(has(r.out, "pw-x")) << r.out;
}

// PROT-6: PROT-1's entries created in any subfolder are moved aside after the command; the
// user's own are left alone; a package's files inside node_modules are not touched.
TEST(Lists, ProtectedEntriesPlantedBelowTheRootAreMovedAside) {  // PROT-6, PROT-7
  REQUIRE_SANDBOX();
  World w;
  w.write("sub/.vscode/settings.json", "the user's own\n");
  w.write("src/a.c", "x\n");
  commit_all(w);
  w.write("node_modules/pkg/index.js", "x\n");
  Proc r = w.sh(
      "echo '{\"tasks\":[]}' > sub/.vscode/tasks.json && "
      "mkdir -p pkg/.vscode && echo x > pkg/.vscode/launch.json && "
      "mkdir -p a/.claude && echo '{\"hooks\":{}}' > a/.claude/settings.json && "
      "mkdir -p .claude/worktrees/wt/.claude && echo x > "
      ".claude/worktrees/wt/.claude/settings.json && "
      "echo x > .claude/worktrees/wt/keep.c && "
      "echo '{}' > src/.mcp.json && echo 'script-shell=./x.sh' > src/.npmrc && "
      "mkdir -p crate/.cargo && echo '[build]' > crate/.cargo/config.toml && "
      "mkdir -p docs/.github/instructions && echo x > docs/.github/instructions/a.instructions.md "
      "&& "
      "echo ./evil/python > src/.python-version && echo x > src/bunfig.toml && "
      "mkdir -p node_modules/pkg/.vscode && echo x > node_modules/pkg/.vscode/settings.json");
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* p :
       {"sub/.vscode/tasks.json", "pkg/.vscode", "a/.claude", ".claude/worktrees/wt/.claude",
        "src/.mcp.json", "src/.npmrc", "crate/.cargo/config.toml", "docs/.github/instructions",
        "src/.python-version", "src/bunfig.toml"})
    EXPECT_FALSE(w.exists(p)) << p << "\n" << r.err;
  EXPECT_EQ(quarantined(w.abs("sub/.vscode"), "tasks.json").size(), 1u);
  EXPECT_EQ(quarantined(w.abs("pkg"), ".vscode").size(), 1u);
  EXPECT_EQ(quarantined(w.abs(".claude/worktrees/wt"), ".claude").size(), 1u);
  EXPECT_TRUE(has(r.err, "src/.npmrc")) << r.err;
  // The user's own file, a worktree's source and a package's own files stay.
  EXPECT_EQ(w.read("sub/.vscode/settings.json"), "the user's own\n");
  EXPECT_TRUE(w.exists(".claude/worktrees/wt/keep.c"));
  EXPECT_TRUE(w.exists("node_modules/pkg/.vscode/settings.json"));
  // The same plant made again by a second command is moved again; what was moved aside is
  // never moved a second time.
  r = w.sh("echo y > sub/.vscode/tasks.json");
  EXPECT_FALSE(w.exists("sub/.vscode/tasks.json"));
  EXPECT_EQ(quarantined(w.abs("sub/.vscode"), "tasks.json").size(), 2u);
  r = w.sh("true");
  for (const auto& q : quarantined(w.abs("sub/.vscode"), "tasks.json"))
    EXPECT_EQ(q.find(".cordon-quarantined-", q.find(".cordon-quarantined-") + 1), std::string::npos)
        << q;
}

// PROT-1 at the root: every entry (the ones this issue added among them: `.npmrc`, whose
// script-shell ran a planted shell on the user's `npm test`, `.yarnrc.yml`, `bunfig.toml`, ...)
// is moved aside when a command makes it, read-only when it is the user's and untracked,
// writable when tracked.
TEST(Lists, EveryRootEntryIsProtected) {  // PROT-1, PROT-2, PROT-4, PROT-6
  REQUIRE_SANDBOX();
  World w;
  struct Entry {
    std::string rel;
    bool folder;
  };
  std::vector<Entry> entries;
  for (const auto& row : protected_rows()) {
    std::string e = row.entry;
    if (e.rfind("**/", 0) == 0) continue;  // the file tools' (FILE-6), writable by design
    bool folder = e.back() == '/';
    if (folder) e.pop_back();
    entries.push_back({e, folder});
  }
  std::string make;
  for (const auto& e : entries)
    make += e.folder ? "mkdir -p " + e.rel + " && echo planted > " + e.rel + "/x; "
                     : "mkdir -p $(dirname " + e.rel + ") && echo planted > " + e.rel + "; ";
  Proc r = w.sh(make + "true");
  EXPECT_EQ(r.status, 0) << r.err;
  for (const auto& e : entries)
    EXPECT_FALSE(w.exists(e.folder ? e.rel + "/x" : e.rel)) << e.rel << "\n" << r.err;
  // The user's own, untracked, cannot be written; a tracked one can (PROT-4).
  for (const auto& e : entries) w.write(e.folder ? e.rel + "/own" : e.rel, "the user's\n");
  w.host({"git", "add", "-f", ".gitattributes", ".npmrc"});
  w.host({"git", "commit", "-q", "-m", "tracked"});
  std::string write;
  for (const auto& e : entries) {
    std::string f = e.folder ? e.rel + "/own" : e.rel;
    write += "echo 'script-shell=/tmp/x' >> " + f + " 2>/dev/null; ";
  }
  r = w.sh(write + "true");
  for (const auto& e : entries) {
    std::string f = e.folder ? e.rel + "/own" : e.rel;
    if (e.rel == ".gitattributes" || e.rel == ".npmrc")
      EXPECT_TRUE(has(w.read(f), "script-shell")) << f;
    else
      EXPECT_EQ(w.read(f), "the user's\n") << f;
  }
}

// FILE-4, NET-3: with the network open, credential files by name and private keys under any
// name read as empty; without it they stay (the network is how they would leave).
TEST(Lists, TheNetworkHidesCredentialFilesAndPrivateKeysUnderAnyName) {  // FILE-4, NET-3
  REQUIRE_SANDBOX();
  World w;
  const std::vector<std::string> named = {".pypirc",
                                          ".netrc",
                                          ".git-credentials",
                                          "credentials.json",
                                          "config/service-account-ci.json",
                                          "kubeconfig",
                                          "infra/prod.tfvars",
                                          ".dev.vars",
                                          "auth.json",
                                          "state/terraform.tfstate"};
  for (size_t i = 0; i < named.size(); ++i) w.write(named[i], "pw-named-" + std::to_string(i));
  w.write("notes.txt", "my notes\n" + private_key());
  w.write("config/prod.json",
          "{\"type\": \"service_account\", \"private_key\": \"" + private_key() + "\"}\n");
  w.write("docs/readme.md", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  w.write(".npmrc",
          "registry=https://registry.npmjs.org/\nlegacy-peer-deps=true\n"
          "//registry.npmjs.org/:_authToken=pw-npm-9\n");
  w.write("big.bin", std::string(64 * 1024, 'a') + private_key());  // past the bytes looked at
  std::string script = "cat notes.txt config/prod.json docs/readme.md .npmrc";
  for (const auto& n : named) script += " " + n;
  Proc r = w.sh(script, {"--network"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(has(r.out, "pw-")) << r.out;
  EXPECT_FALSE(has(r.out, "key-body")) << r.out;
  EXPECT_FALSE(has(r.out, "my notes")) << r.out;  // the whole file reads empty
  EXPECT_TRUE(has(r.out, "BEGIN CERTIFICATE")) << r.out;
  EXPECT_TRUE(has(r.out, "legacy-peer-deps=true")) << r.out;  // npm keeps its settings
  EXPECT_TRUE(has(r.out, "registry=https://registry.npmjs.org/")) << r.out;
  // Without the network the files are the project's own, as before.
  r = w.sh("cat notes.txt");
  EXPECT_TRUE(has(r.out, "key-body")) << r.out;
  // A file looked at once and found clean is looked at again when it changes, even with its
  // times put back (the scan remembers files by identity, ctime included).
  w.write("later.txt", "harmless\n");
  ASSERT_EQ(w.sh("true", {"--network"}).status, 0);
  r = w.sh("printf '%s' '" + private_key() + "' >> later.txt && touch -d 2000-01-01 later.txt");
  ASSERT_EQ(r.status, 0) << r.err;
  r = w.sh("cat later.txt", {"--network"});
  EXPECT_FALSE(has(r.out, "key-body")) << r.out;
  // The protected .npmrc (PROT-1) stays read-only as well while it is seen as a copy.
  r = w.sh("echo 'script-shell=./x' >> .npmrc", {"--network"});
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(has(w.read(".npmrc"), "script-shell"));
}

// NET-3, FS-12: a token in the project's own remote URL is never seen by commands.
TEST(Lists, ATokenInTheProjectsRemoteUrlIsNotSeen) {  // NET-3, FS-12
  REQUIRE_SANDBOX();
  World w;
  const std::string t = token("ghp_");
  w.host({"git", "remote", "add", "origin", "https://x-access-token:" + t + "@github.com/o/r.git"});
  for (const char* flag : {"", "--network"}) {
    std::vector<std::string> flags;
    if (*flag) flags.push_back(flag);
    Proc r = w.sh("git remote -v; cat .git/config; git status --short; echo end", flags);
    ASSERT_EQ(r.status, 0) << flag << r.err;
    EXPECT_FALSE(has(r.out, t)) << flag << r.out;
    EXPECT_TRUE(has(r.out, "origin\thttps://github.com/o/r.git")) << flag << r.out;
    EXPECT_TRUE(has(r.out, "end")) << r.out;
  }
  EXPECT_TRUE(has(w.read(".git/config"), t));  // the user's own config is unchanged
  Proc p = w.cordon({"policy"});
  EXPECT_TRUE(has(p.out, "remote.origin.url")) << p.out;
  EXPECT_FALSE(has(p.out, t)) << p.out;
}

}  // namespace
}  // namespace cordon::it
