// CMD-6: `cordon classify` through the real binary, with the host's symlink resolver.
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "harness.h"

namespace cordon::it {
namespace {

TEST(Classify, PrintsClassThenReason) {  // CMD-6: exit 0 whatever the class
  World w;
  Proc r = w.cordon({"classify", "--", "git", "status"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("read-only\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("git status"), std::string::npos) << r.out;

  r = w.cordon({"classify", "-c", "ls | sort -o out"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("needs-approval\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("-o"), std::string::npos) << r.out;

  r = w.cordon({"classify", "-c", "sh -c 'sudo reboot'"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("denied\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("a denied command"), std::string::npos) << r.out;  // CMD-4
  EXPECT_EQ(r.out.find("CMD-"), std::string::npos) << r.out;  // no requirement id for people

  // Options after the command belong to it.
  r = w.cordon({"classify", "--", "rm", "-rf", "/"});
  EXPECT_EQ(r.out.rfind("denied\n", 0), 0u) << r.out;
}

TEST(Classify, Json) {  // CMD-6
  World w;
  Proc r = w.cordon({"classify", "--json", "--", "cat", w.home() + "/.ssh/id_rsa"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["class"], "needs-approval");
  EXPECT_EQ(j["rule"], "sensitive-path");
  EXPECT_EQ(j["word"], w.home() + "/.ssh/id_rsa");
  EXPECT_TRUE(j["reason"].is_string());

  r = w.cordon({"classify", "--json", "--network", "--", "ls"});
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["class"], "needs-approval");
  EXPECT_EQ(j["rule"], "network");  // CMD-3

  // Bytes that are not UTF-8 still give valid JSON.
  r = w.cordon({"classify", "--json", "-c", "cat '\xff\xfe' > out"});
  ASSERT_EQ(r.status, 0);
  EXPECT_NO_THROW(nlohmann::json::parse(r.out).is_object()) << r.out;
}

// CMD-4: the deny rules judge what the shell would act on, against the real filesystem: a
// glob or braces that name the home folder, a link to it followed by `/`, a glob into /dev.
TEST(Classify, GlobsBracesAndLinksToTheHomeFolderAreDenied) {  // CMD-4
  World w;
  const std::string home = w.home();
  const std::string parent = home.substr(0, home.rfind('/'));
  const std::string name = home.substr(home.rfind('/') + 1);
  ASSERT_EQ(symlink(home.c_str(), w.abs("homelink").c_str()), 0);
  for (const std::string& line : std::vector<std::string>{
           "rm -rf " + home.substr(0, home.size() - 1) + "?", "rm -rf " + parent + "/*/",
           "rm -rf " + parent + "/{" + name + ",nothing}", "rm -rf homelink/",
           "chmod -R 777 homelink", "cat x > /dev/nul?"}) {
    Proc r = w.cordon({"classify", "-c", line});
    EXPECT_EQ(r.out.rfind("denied\n", 0), 0u) << line << ": " << r.out;
  }
  // The link itself, not what it leads to.
  Proc r = w.cordon({"classify", "-c", "rm -rf homelink"});
  EXPECT_EQ(r.out.rfind("needs-approval\n", 0), 0u) << r.out;
}

TEST(Classify, SymlinkToDeniedPath) {  // CMD-5: symlink targets are denied too
  World w;
  std::string secret = w.root() + "/secret";
  w.write(secret + "/key", "k");
  w.config("[commands]\ndenied_paths = [\"" + secret + "\"]\n");
  ASSERT_EQ(symlink(secret.c_str(), w.abs("innocent").c_str()), 0);
  Proc r = w.cordon({"classify", "--", "cat", "innocent/key"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("denied\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("symlink"), std::string::npos) << r.out;
  r = w.cordon({"classify", "--", "cat", "README"});
  EXPECT_EQ(r.out.rfind("read-only\n", 0), 0u) << r.out;
}

TEST(Classify, ConfigExtras) {  // CMD-2, CMD-4: [commands] read_only and denied
  World w;
  w.config("[commands]\nread_only = [\"just --list\"]\ndenied = [\"git push\"]\n");
  EXPECT_EQ(w.cordon({"classify", "--", "just", "--list"}).out.rfind("read-only\n", 0), 0u);
  EXPECT_EQ(w.cordon({"classify", "-c", "git -C . push"}).out.rfind("denied\n", 0), 0u);
}

TEST(Classify, UsageAndBrokenConfig) {  // CMD-6, CFG-2: exit 125 with a `cordon: ` message
  World w;
  Proc r = w.cordon({"classify"});
  EXPECT_EQ(r.status, 125);
  EXPECT_EQ(r.err.rfind("cordon: ", 0), 0u) << r.err;
  r = w.cordon({"classify", "-c", "ls", "--", "ls"});
  EXPECT_EQ(r.status, 125);
  w.config("[commands]\nread_only = [\"a b c d e\"]\n");
  r = w.cordon({"classify", "--", "ls"});
  EXPECT_EQ(r.status, 125);
  EXPECT_EQ(r.err.rfind("cordon: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("read_only"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}


// The first line of `cordon classify -c LINE`: read-only, needs-approval or denied.
std::string cls(const World& w, const std::string& line, const std::string& cwd = "") {
  Proc r = w.cordon({"classify", "-c", line}, cwd);
  return r.out.substr(0, r.out.find('\n'));
}

// CMD-2 (issue 27): `${X:=v}` assigns and `set -a` exports; the attack pass's line ran a program
// through git's fsmonitor. Shown for real first: git runs it.
TEST(Classify, AssigningExpansionsAsk) {
  World w;
  w.write("prog", "#!/bin/sh\ntouch " + w.abs("ran") + "\n", 0755);
  const std::string line =
      "set -a; : ${GIT_CONFIG_COUNT:=1} ${GIT_CONFIG_KEY_0:=core.fsmonitor} "
      "${GIT_CONFIG_VALUE_0:=" + w.abs("prog") + "}; git status";
  Proc real = w.host({"sh", "-c", line});
  EXPECT_TRUE(w.exists("ran")) << "the attack no longer works here: " << real.err;
  EXPECT_EQ(cls(w, line), "needs-approval");
  EXPECT_EQ(cls(w, ": ${CDPATH:=~/.config}; cd gcloud; cat credentials.db"), "needs-approval");
  EXPECT_EQ(cls(w, "export GIT_DIR=g; git status"), "needs-approval");
  EXPECT_EQ(cls(w, ": ${n:=1}; echo $n"), "read-only");
}

// CMD-2 (issue 27): a glob of a read-only command is expanded; a match that starts with `-`
// asks. Shown for real first: sort runs the "compress program" a file name gives it.
TEST(Classify, OptionShapedFileNamesAsk) {
  World w;
  // `sh` compresses sort's temporary files: it reads them as a script.
  w.write("attack/--compress-program=sh", "");
  w.write("attack/--buffer-size=1k", "");
  std::string lines;
  for (int i = 0; i < 200; ++i) lines += "touch " + w.abs("attack/ran") + "\n";
  w.write("attack/p.txt", lines);
  Proc real = w.host({"sh", "-c", "sort *k *h p.txt > /dev/null"}, w.abs("attack"));
  EXPECT_TRUE(w.exists("attack/ran")) << "the attack no longer works here: " << real.err;
  for (const char* line : {"sort *k *h p.txt", "cat *", "wc -l *", "grep x *", "ls *"})
    EXPECT_EQ(cls(w, line, w.abs("attack")), "needs-approval") << line;
  EXPECT_EQ(cls(w, "cd attack && sort *k *h p.txt"), "needs-approval");
  EXPECT_EQ(cls(w, "cat attack/*"), "read-only") << "a folder before the glob";
}

// CMD-2, CMD-3 (issue 27): a bare glob whose matches are known and clean is read-only; one
// that matches a secret asks.
TEST(Classify, BareGlobsAskOnlyWhenAMatchIsSensitive) {
  World w;
  w.write("a.txt", "a\n");
  w.write("src/b.txt", "b\n");
  for (const char* line : {"du -sh *", "wc -l *", "grep x *", "ls -la *", "head -3 *.txt"})
    EXPECT_EQ(cls(w, line), "read-only") << line;
  w.write("id_rsa", "PRIVATE\n");
  for (const char* line : {"wc -l *", "grep x *", "cat *"})
    EXPECT_EQ(cls(w, line), "needs-approval") << line;
}

// CMD-2, GIT-1 (issue 27): a git folder other than the project's own. Shown for real first:
// git runs the fsmonitor of the folder it is pointed at.
TEST(Classify, ForeignGitFoldersAsk) {
  World w;
  w.write("prog", "#!/bin/sh\ntouch " + w.abs("ran") + "\n", 0755);
  w.write("g/HEAD", "ref: refs/heads/main\n");
  w.write("g/config", "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = " + w.abs("prog") +
                          "\n");
  w.write("g/objects/.keep", "");
  w.write("g/refs/heads/.keep", "");
  w.host({"git", "--git-dir=g", "--work-tree=.", "status"});
  EXPECT_TRUE(w.exists("ran")) << "the attack no longer works here";
  for (const char* line : {"git --git-dir=g --work-tree=. status", "git -C g status",
                           "cd g && git log", "GIT_DIR=g git status",
                           "git --work-tree=/ status", "git -c core.fsmonitor=./prog status"})
    EXPECT_EQ(cls(w, line), "needs-approval") << line;
  EXPECT_EQ(cls(w, "git status"), "read-only");
  EXPECT_EQ(cls(w, "git --work-tree=. status"), "read-only") << "the project's own";
}

// CMD-3 (issue 27): without a sandbox (mode external) other processes' environments are in
// reach: `ps e` and /proc/*/environ ask there, and only there.
TEST(Classify, OtherProcessesEnvironmentsAskInExternalMode) {
  World w;
  for (const char* line : {"ps axeww", "grep -a KEY /proc/[0-9]*/environ", "cat /proc/1/environ"})
    EXPECT_EQ(cls(w, line), "read-only") << line;
  w.config("[sandbox]\nmode = \"external\"\n");
  for (const char* line : {"ps axeww", "ps e", "grep -a KEY /proc/[0-9]*/environ",
                           "cat /proc/1/environ", "grep -r KEY /proc"})
    EXPECT_EQ(cls(w, line), "needs-approval") << line;
  EXPECT_EQ(cls(w, "ps aux"), "read-only");
}

// CMD-4 (issue 27): what wiped the home folder under approve-all is denied, whatever the
// spelling; so are the power and session verbs.
TEST(Classify, HomeFolderDeletionsAndPowerVerbsAreDenied) {
  World w;
  for (const char* line :
       {"find ~/ -exec rm -rf {} +", "find ~ -delete", "echo ~ | xargs rm -rf",
        "rsync -a --delete /empty/ ~/", "mv ~ /tmp/x", "chmod 000 ~", "chmod -R 000 ~",
        "chown -R nobody ~", "cd ~ && rm -rf .", "systemctl isolate rescue.target",
        "systemctl poweroff", "loginctl poweroff", "shutdown now",
        "busctl call org.freedesktop.login1 /org/freedesktop/login1 "
        "org.freedesktop.login1.Manager PowerOff b false"})
    EXPECT_EQ(cls(w, line), "denied") << line;
}

// CMD-2 (issue 27): the findings that wrote files, ran or loaded code, with a "read-only"
// program.
TEST(Classify, ReadOnlyProgramsThatWriteOrRunAsk) {
  World w;
  for (const char* line :
       {"xz -t -z a.txt", "bzip2 -t -z a.txt", "zstd -t -z a.txt", "ss -D out", "pip list --log F",
        "npm ls --logs-dir=D", "rustc --print cfg=P", "nm --plugin ./x.so a.o",
        "objdump --plugin ./x.so -d a.o", "size --plugin ./x.so a.o",
        "diff3 --diff-program=./script a b c", "sort --comp=sh a", "sort -uo f a"})
    EXPECT_EQ(cls(w, line), "needs-approval") << line;
}

// CMD-2 (issue 27): the nags are read-only, until the project holds a file that makes the
// program run the project's code.
TEST(Classify, NagsAreReadOnly) {
  World w;
  for (const char* line :
       {"pnpm list", "yarn why lodash", "npm run", "npm outdated", "cargo tree", "go doc fmt",
        "python3 -m pip list", "kubectl get pods", "kubectl describe pod x", "kubectl logs x",
        "gh pr view 1", "gh pr list", "gh pr diff 1", "gh pr checks 1", "gh issue list",
        "curl -s http://127.0.0.1:8080/health", "wget -qO- http://localhost:3000/"})
    EXPECT_EQ(cls(w, line), "read-only") << line;
  w.write(".yarnrc.yml", "yarnPath: .yarn/releases/evil.cjs\n");
  EXPECT_EQ(cls(w, "yarn why lodash"), "needs-approval");
  w.write(".cargo/config.toml", "[build]\nrustc-wrapper = \"./evil\"\n");
  EXPECT_EQ(cls(w, "cargo tree"), "needs-approval");
  w.write("json.py", "import os\n");
  EXPECT_EQ(cls(w, "python3 -m pip list"), "needs-approval");
  w.write("src/.pnpmfile.cjs", "");
  EXPECT_EQ(cls(w, "pnpm list", w.abs("src")), "needs-approval");
}

}  // namespace
}  // namespace cordon::it
