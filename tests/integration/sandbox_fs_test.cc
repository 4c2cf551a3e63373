// What a command can read and write in a real sandbox (FS, ENV-5).
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

namespace cordon::it {
namespace {

TEST(SandboxFs, WritesOutsideTheWritableRootsFailAndLeaveTheFileUnchanged) {  // FS-1, FS-2
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/notes.txt", "original\n");
  Proc r = w.sh("echo changed > \"$HOME/notes.txt\"");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
  EXPECT_EQ(w.read(w.home() + "/notes.txt"), "original\n");
  // Reads work almost everywhere.
  r = w.sh("cat \"$HOME/notes.txt\" && head -c 5 /etc/passwd");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("original"), std::string::npos);
  // RES-2: the blocked-command note comes after the command's own output.
  r = w.sh("touch /usr/cordon-test-file");
  EXPECT_NE(r.status, 0);
  size_t own = r.err.find("Read-only file system"), note = r.err.find("cordon: note:");
  ASSERT_NE(note, std::string::npos) << r.err;
  EXPECT_LT(own, note);
  EXPECT_NE(r.err.find("--outside-sandbox"), std::string::npos);
}

TEST(SandboxFs, WritesInTheProjectWork) {  // FS-2
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.sh("mkdir -p build && echo built > build/out.txt && echo more >> README.md");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(w.read("build/out.txt"), "built\n");
  EXPECT_EQ(w.read("README.md"), "hello\nmore\n");
}

TEST(SandboxFs, RunsFromASubfolderOfTheProject) {
  REQUIRE_SANDBOX();
  World w;
  w.write("src/a.txt", "a\n");
  Proc r = w.cordon({"run", "--", "/bin/sh", "-c", "pwd; echo x > b.txt"}, w.project() + "/src");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, w.project() + "/src\n");
  EXPECT_TRUE(w.exists("src/b.txt"));
}

TEST(SandboxFs, HiddenFilesReadEmptyAndHiddenFoldersListEmpty) {  // FS-4
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.ssh/id_ed25519", "PRIVATE KEY\n", 0600);
  w.write(w.home() + "/.netrc", "machine x login y password z\n", 0600);
  w.write(w.home() + "/.config/gh/hosts.yml", "oauth_token: gho_x\n");
  Proc r = w.sh("cat \"$HOME/.netrc\"; echo \"[$(ls -A \"$HOME/.ssh\")]\"; "
                "cat \"$HOME/.ssh/id_ed25519\" 2>&1; ls -A \"$HOME/.config/gh\" | wc -l");
  EXPECT_EQ(r.out.find("password"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("PRIVATE"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("gho_"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[]"), std::string::npos) << r.out;
  // A hidden path is also read-only.
  r = w.sh("echo x > \"$HOME/.netrc\"");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(w.read(w.home() + "/.netrc"), "machine x login y password z\n");
  // The files are untouched on the host.
  EXPECT_EQ(w.read(w.home() + "/.ssh/id_ed25519"), "PRIVATE KEY\n");
}

TEST(SandboxFs, SymlinkedHiddenFolderIsHiddenWithItsTarget) {  // FS-5
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/dotfiles/aws/credentials", "aws_secret_access_key = abc\n");
  ASSERT_EQ(symlink((w.home() + "/dotfiles/aws").c_str(), (w.home() + "/.aws").c_str()), 0);
  Proc r = w.sh("cat \"$HOME/.aws/credentials\" \"$HOME/dotfiles/aws/credentials\" 2>/dev/null;"
                " echo \"[$(ls -A \"$HOME/dotfiles/aws\")]\"; echo \"[$(ls -A \"$HOME/.aws/\")]\"");
  EXPECT_EQ(r.out.find("abc"), std::string::npos) << r.out;
  EXPECT_EQ(r.out, "[]\n[]\n");
  EXPECT_EQ(w.read(w.home() + "/dotfiles/aws/credentials"), "aws_secret_access_key = abc\n");
}

TEST(SandboxFs, ExtraHiddenPathsFromConfigIncludingInsideTheProject) {  // FS-4, FS-7
  REQUIRE_SANDBOX();
  World w;
  w.write("secrets/prod.txt", "prod-password\n");
  w.write(w.root() + "/srv-keys/key", "k3y\n");
  w.config("[sandbox]\nhide = [\"" + w.project() + "/secrets\", \"" + w.root() + "/srv-keys\"]\n");
  Proc r = w.sh("cat secrets/prod.txt " + w.root() + "/srv-keys/key 2>&1; ls -A secrets | wc -l");
  EXPECT_EQ(r.out.find("prod-password"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("k3y"), std::string::npos) << r.out;
}

TEST(SandboxFs, EntryHoldingTheProjectStaysVisibleWithANotice) {  // FS-7
  REQUIRE_SANDBOX();
  World w;
  w.config("[sandbox]\nhide = [\"~\"]\n");
  Proc r = w.sh("cat README.md");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "hello\n");
  EXPECT_NE(r.err.find("stays visible"), std::string::npos) << r.err;
}

TEST(SandboxFs, MachineTmpIsInvisibleAndSessionTmpPersists) {  // FS-3
  REQUIRE_SANDBOX();
  World w;
  std::string marker = "/tmp/cordon-it-host-marker-" + std::to_string(getpid());
  w.write(marker, "host\n");
  Proc r = w.sh("ls -A /tmp | wc -l; test -e " + marker + " && echo visible || echo invisible");
  EXPECT_NE(r.out.find("invisible"), std::string::npos) << r.out;
  unlink(marker.c_str());
  // A named session keeps its /tmp between commands; another session does not see it.
  r = w.cordon({"run", "--session", "0000000000000001", "--", "/bin/sh", "-c",
                "echo kept > /tmp/state && echo $TMPDIR"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "/tmp\n");
  r = w.cordon({"run", "--session", "0000000000000001", "--", "/bin/cat", "/tmp/state"});
  EXPECT_EQ(r.out, "kept\n") << r.err;
  r = w.cordon({"run", "--session", "0000000000000002", "--", "/bin/sh", "-c",
                "cat /tmp/state 2>&1 || true"});
  EXPECT_EQ(r.out.find("kept"), std::string::npos);
  // CORDON_SESSION names the session too.
  w.env["CORDON_SESSION"] = "0000000000000001";
  r = w.cordon({"run", "--", "/bin/cat", "/tmp/state"});
  EXPECT_EQ(r.out, "kept\n") << r.err;
  w.env.erase("CORDON_SESSION");
  // An ephemeral command's /tmp is gone afterwards.
  w.sh("echo x > /tmp/eph");
  r = w.sh("ls -A /tmp | wc -l");
  EXPECT_EQ(r.out, "0\n");
}

TEST(SandboxFs, ProjectUnderMachineTmpStaysVisibleAndWritable) {  // FS-3
  REQUIRE_SANDBOX();
  World w;
  char tmpl[] = "/tmp/cordon-it-proj-XXXXXX";
  std::string proj = mkdtemp(tmpl);
  chmod(proj.c_str(), 0755);
  w.write(proj + "/in.txt", "inside\n");
  Proc r = w.cordon({"run", "--", "/bin/sh", "-c", "cat in.txt && echo out > out.txt && pwd"},
                    proj);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "inside\n" + proj + "\n");
  EXPECT_EQ(w.read(proj + "/out.txt"), "out\n");
  run_program({"/bin/rm", "-rf", proj}, w.env, "/");
}

TEST(SandboxFs, DevicesProcAndKernelSettings) {  // FS-9
  REQUIRE_SANDBOX();
  World w;
  // From a script file: the command policy cannot read it (CMD-4 would refuse the SysRq write
  // on the command line), so this checks the sandbox itself.
  w.write("fs9.sh",
          "ls /dev | tr '\\n' ' '; echo; "
          "echo hi > /dev/null && echo null-ok; "
          "head -c 4 /dev/urandom | wc -c; "
          "echo shm > /dev/shm/x && cat /dev/shm/x; "
          "echo core > /proc/sys/kernel/core_pattern 2>&1 || echo sysctl-refused; "
          "echo b > /proc/sysrq-trigger 2>&1 || echo sysrq-refused; "
          "ls /proc | grep -E '^[0-9]+$' | wc -l\n");
  Proc r = w.sh("sh fs9.sh");
  EXPECT_NE(r.out.find("null-ok"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("shm\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sysctl-refused"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" sda"), std::string::npos);
  // A fresh /proc: only the sandbox's own few processes.
  std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  EXPECT_LT(std::stoi(last), 10) << r.out;
  // A command that opens a pseudo-terminal gets its own.
  r = w.py("import os, pty\nm, s = pty.openpty()\nos.write(m, b'hi\\n')\nprint(os.read(s, 3))");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("hi"), std::string::npos);
  // /sys stays read-only.
  r = w.sh("echo 1 > /sys/kernel/profiling 2>&1 || echo sys-refused");
  EXPECT_NE(r.out.find("sys-refused"), std::string::npos) << r.out;
}

TEST(SandboxFs, PidOneEnvironmentHoldsNoCredentials) {  // ENV-1, ENV-5
  REQUIRE_SANDBOX();
  World w;
  w.env["OPENAI_API_KEY"] = "sk-live-123";
  w.env["GITHUB_TOKEN"] = "ghp_abc";
  w.env["DATABASE_URL"] = "postgres://app:hunter2@db:5432/app";
  w.env["PLAIN"] = "visible";
  Proc r = w.sh("env; echo ---; tr '\\0' '\\n' < /proc/1/environ");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("sk-live-123"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ghp_abc"), std::string::npos);
  EXPECT_EQ(r.out.find("hunter2"), std::string::npos);
  EXPECT_EQ(r.out.find("GITHUB_TOKEN"), std::string::npos);
  EXPECT_NE(r.out.find("PLAIN=visible"), std::string::npos);
  EXPECT_NE(r.out.find("CORDON_SANDBOX=1"), std::string::npos);
  EXPECT_NE(r.out.find("TMPDIR=/tmp"), std::string::npos);
  // ENV-4: the names (never the values) are listed.
  EXPECT_NE(r.err.find("OPENAI_API_KEY"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("DATABASE_URL"), std::string::npos);
  EXPECT_EQ(r.err.find("hunter2"), std::string::npos);
}

TEST(SandboxFs, OutsideSandboxStillStripsCredentials) {  // NET-4, ENV-1
  REQUIRE_SANDBOX();
  World w;
  w.env["NPM_TOKEN"] = "npm_secret";
  Proc r = w.sh("env; echo x > \"$HOME/outside.txt\"", {"--outside-sandbox"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("npm_secret"), std::string::npos);
  EXPECT_EQ(r.out.find("CORDON_SANDBOX"), std::string::npos);
  EXPECT_TRUE(w.exists(w.home() + "/outside.txt"));
}

TEST(SandboxFs, LongProjectPathIsRefusedForItsLength) {  // FS-11
  REQUIRE_SANDBOX();
  World w;
  std::string p = w.root();
  for (int i = 0; i < 9; ++i) {
    p += "/" + std::string(120, 'd');
    mkdir(p.c_str(), 0755);
  }
  Proc r = w.cordon({"run", "--project", p, "--", "/bin/true"}, p);
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("bytes long"), std::string::npos) << r.err;
}

TEST(SandboxFs, UnsearchableProjectRootIsRefused) {  // FS-10
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.cordon({"run", "--project", w.project(), "--", "/bin/true"}, w.home());
  ASSERT_EQ(r.status, 0) << r.err;
  chmod(w.project().c_str(), 0600);
  r = w.cordon({"run", "--project", w.project(), "--", "/bin/true"}, w.home());
  chmod(w.project().c_str(), 0755);
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("cannot be searched"), std::string::npos) << r.err;
}

// CFG-3: a writable entry is made only where it really leads: through a link into a hidden
// path it creates nothing there; an ordinary one is made.
TEST(SandboxFs, WritableThroughALinkIntoAHiddenPathCreatesNothing) {  // CFG-3
  REQUIRE_SANDBOX();
  World w;
  mkdir((w.home() + "/.ssh").c_str(), 0700);
  ASSERT_EQ(symlink((w.home() + "/.ssh").c_str(), (w.home() + "/wdir").c_str()), 0);
  w.config("[sandbox]\nwritable = [\"~/wdir/sub\", \"~/made/here\"]\n");
  w.sh("true");
  EXPECT_FALSE(w.exists(w.home() + "/.ssh/sub"));
  EXPECT_TRUE(w.exists(w.home() + "/made/here"));
}

}  // namespace
}  // namespace cordon::it

namespace cordon::it {
namespace {

TEST(SandboxFs, RefusedWriteInTheHomeNamesThePathAndTheWritableLine) {  // RES-3
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.sometool/state", "kept\n");
  Proc r = w.sh("echo changed > \"$HOME/.sometool/state\"");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("The refused path: ~/.sometool/state."), std::string::npos) << r.err;
  size_t line = r.err.find(
      "`writable = [\"~/.sometool\"]` under [sandbox] in "
      "~/.config/cordon/config.toml");
  EXPECT_NE(line, std::string::npos) << r.err;
  EXPECT_LT(line, r.err.find("--outside-sandbox")) << r.err;
  EXPECT_EQ(w.read(w.home() + "/.sometool/state"), "kept\n");
  // Node's spelling (EROFS, lower-case text) gets the same note.
  r = w.cordon({"run", "--", "node", "-e",
                "require('fs').writeFileSync(process.env.HOME + '/.sometool/state', 'x')"});
  if (r.err.find("node: command not found") == std::string::npos) {
    EXPECT_NE(r.err.find("EROFS"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("`writable = [\"~/.sometool\"]`"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace cordon::it
