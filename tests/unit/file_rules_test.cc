// The file tools' rules (FILE-1..6) on fake facts: no file is touched.
#include "file_rules/file_rules.h"

#include <gtest/gtest.h>

#include "file_rules/credential_rules.h"

namespace cordon {
namespace {

FileContext ctx() {
  FileContext c;
  c.project = "/p";
  c.cwd = "/p";
  c.home = "/h";
  c.session_tmp = "/h/.cache/cordon/sandbox-tmp/s1";
  c.writable_roots = {"/h/.cache"};
  c.read_only_roots = {"/h/.cache/cordon"};
  c.hidden = {
      {"/h/.ssh", "~/.ssh", "default list", false},
      {"/h/.cargo/credentials*", "~/.cargo/credentials*", "default list", true},
      {"/srv/keys", "/srv/keys", "[sandbox] hide", false},
  };
  c.protected_entries = protected_entries(Policy{});
  c.locked = {
      {"/p/.git/hooks", "hooks folder", true},
      {"/p/.git/config", "repository config", false},
      {"/h/.gitconfig", "global git config", false},
  };
  return c;
}

// A regular file of `size` bytes where the path leads, with no link on the way.
FileFacts regular(const std::string& real, uint64_t size = 10) {
  FileFacts f;
  f.kind = Kind::kFile;
  f.real = real;
  f.real_kind = Kind::kFile;
  f.size = size;
  f.dev = 1;
  f.ino = 2;
  return f;
}

FileFacts missing(const std::string& real) {
  FileFacts f;
  f.real = real;
  return f;
}

FileFacts of_kind(const std::string& real, Kind k) {
  FileFacts f = regular(real);
  f.kind = k;
  f.real_kind = k;
  return f;
}

// A link at the path, leading to `real` (of kind `k`).
FileFacts link_to(const std::string& real, Kind k = Kind::kFile) {
  FileFacts f = regular(real);
  f.kind = Kind::kSymlink;
  f.link_target = real;
  f.real_kind = k;
  return f;
}

FileDecision decide(const FileContext& c, FileTool tool, const std::string& path,
                    const FileFacts& facts, std::optional<Ask> approved = std::nullopt) {
  return decide_file_access(c, FileRequest{tool, path, approved}, resolve_file_path(c, path),
                            facts);
}

// ---- paths ----

TEST(FileRules, RelativePathsResolveAgainstCwdInsideTheProject) {
  FileContext c = ctx();
  EXPECT_EQ(resolve_file_path(c, "src/a.cc"), "/p/src/a.cc");
  c.cwd = "/p/src";
  EXPECT_EQ(resolve_file_path(c, "a.cc"), "/p/src/a.cc");
  EXPECT_EQ(resolve_file_path(c, "../README.md"), "/p/README.md");
  c.cwd = "/elsewhere";
  EXPECT_EQ(resolve_file_path(c, "a.cc"), "/p/a.cc");
  EXPECT_EQ(resolve_file_path(c, "/etc/hosts"), "/etc/hosts");
  EXPECT_EQ(resolve_file_path(c, "~/notes.txt"), "/h/notes.txt");
  EXPECT_EQ(resolve_file_path(c, "/p//src/./x/../a.cc"), "/p/src/a.cc");
}

TEST(FileRules, TmpMeansTheSessionsOwnTempFolder) {
  // FS-3: inside the sandbox /tmp is the session's folder; the file tools agree.
  FileContext c = ctx();
  EXPECT_EQ(resolve_file_path(c, "/tmp/notes.txt"), "/h/.cache/cordon/sandbox-tmp/s1/notes.txt");
  EXPECT_EQ(resolve_file_path(c, "/tmp"), "/h/.cache/cordon/sandbox-tmp/s1");
  EXPECT_EQ(resolve_file_path(c, "/tmpfoo/x"), "/tmpfoo/x");
  // A project under /tmp stays at its own path.
  c.project = "/tmp/proj";
  c.cwd = "/tmp/proj";
  EXPECT_EQ(resolve_file_path(c, "/tmp/proj/a"), "/tmp/proj/a");
  EXPECT_EQ(resolve_file_path(c, "a"), "/tmp/proj/a");
  EXPECT_EQ(resolve_file_path(c, "/tmp/other"), "/h/.cache/cordon/sandbox-tmp/s1/other");
  c.session_tmp.clear();
  EXPECT_EQ(resolve_file_path(c, "/tmp/other"), "/tmp/other");
}

TEST(FileRules, PlainReadInsideTheProjectIsAllowed) {
  FileDecision d = decide(ctx(), FileTool::kRead, "src/main.cc", regular("/p/src/main.cc"));
  EXPECT_EQ(d.verdict, Verdict::kAllow);
  EXPECT_EQ(d.target, "/p/src/main.cc");
  EXPECT_EQ(d.rel, "src/main.cc");
}

TEST(FileRules, ReadsOutsideTheProjectAreAllowed) {
  // FS-1: the whole filesystem is readable, except the hidden paths.
  FileDecision d = decide(ctx(), FileTool::kRead, "/etc/hosts", regular("/etc/hosts"));
  EXPECT_EQ(d.verdict, Verdict::kAllow);
  EXPECT_EQ(d.rel, "");
}

TEST(FileRules, EmptyPathAndNulAreInvalid) {
  FileDecision d = decide(ctx(), FileTool::kRead, "", regular("/p"));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_EQ(d.error.code, ErrorKind::kInvalid);
  d = decide(ctx(), FileTool::kRead, std::string("a\0b", 3), regular("/p/a"));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_EQ(d.error.code, ErrorKind::kInvalid);
}

TEST(FileRules, UnexaminablePathIsAnIoError) {
  FileFacts f;
  f.err = 13;  // EACCES
  FileDecision d = decide(ctx(), FileTool::kRead, "secret/x", f);
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_EQ(d.error.code, ErrorKind::kIo);
  EXPECT_NE(d.error.message.find("secret/x cannot be examined"), std::string::npos);
}

TEST(FileRules, MissingFileIsInvalidForReadAndEditButFineForWrite) {
  FileDecision d = decide(ctx(), FileTool::kRead, "nope.txt", missing("/p/nope.txt"));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_EQ(d.error.code, ErrorKind::kInvalid);
  EXPECT_EQ(d.error.message, "read_file: nope.txt does not exist");
  d = decide(ctx(), FileTool::kEdit, "nope.txt", missing("/p/nope.txt"));
  EXPECT_EQ(d.error.code, ErrorKind::kInvalid);
  d = decide(ctx(), FileTool::kWrite, "new/dir/nope.txt", missing("/p/new/dir/nope.txt"));
  EXPECT_EQ(d.verdict, Verdict::kAllow);
  EXPECT_EQ(d.target, "/p/new/dir/nope.txt");
}

// ---- FILE-1 ----

TEST(FileRules, NonRegularFilesAreRefused) {
  // FILE-1
  for (FileTool t : {FileTool::kRead, FileTool::kWrite, FileTool::kEdit}) {
    FileDecision d = decide(ctx(), t, "pipe", of_kind("/p/pipe", Kind::kOther));
    EXPECT_EQ(d.verdict, Verdict::kRefuse) << to_string(t);
    EXPECT_EQ(d.error.code, ErrorKind::kRefused);
    EXPECT_EQ(d.error.message,
              "refused: pipe is not a regular file; the file tools work only on regular files");
    d = decide(ctx(), t, "src", of_kind("/p/src", Kind::kDir));
    EXPECT_EQ(d.verdict, Verdict::kRefuse) << to_string(t);
    EXPECT_NE(d.error.message.find("not a regular file"), std::string::npos);
  }
}

TEST(FileRules, SearchTakesFoldersButNotFifos) {
  // FILE-1
  EXPECT_EQ(decide(ctx(), FileTool::kSearch, "src", of_kind("/p/src", Kind::kDir)).verdict,
            Verdict::kAllow);
  EXPECT_EQ(decide(ctx(), FileTool::kSearch, "a.cc", regular("/p/a.cc")).verdict, Verdict::kAllow);
  FileDecision d = decide(ctx(), FileTool::kSearch, "pipe", of_kind("/p/pipe", Kind::kOther));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_NE(d.error.message.find("neither a folder nor a regular file"), std::string::npos);
}

TEST(FileRules, ProcAndSysAreRefused) {
  // FILE-1: a /proc file looks like a regular file of size 0.
  FileDecision d =
      decide(ctx(), FileTool::kRead, "/proc/self/environ", regular("/proc/12/environ", 0));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_EQ(d.error.message,
            "refused: /proc/self/environ is in /proc or /sys; the file tools do not read there");
  d = decide(ctx(), FileTool::kWrite, "/sys/kernel/x", regular("/sys/kernel/x"));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_NE(d.error.message.find("in /proc or /sys"), std::string::npos);
  EXPECT_EQ(decide(ctx(), FileTool::kSearch, "/proc", of_kind("/proc", Kind::kDir)).verdict,
            Verdict::kRefuse);
  EXPECT_FALSE(in_proc_or_sys("/process/x"));
  EXPECT_FALSE(in_proc_or_sys("/system"));
}

TEST(FileRules, ProjectAtRootStillRefusesProc) {
  // FILE-1: with the project at /, "proc/self/environ" is a project path.
  FileContext c = ctx();
  c.project = "/";
  c.cwd = "/";
  FileDecision d = decide(c, FileTool::kRead, "proc/self/environ", regular("/proc/9/environ"));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_NE(d.error.message.find("is in /proc or /sys"), std::string::npos);
}

TEST(FileRules, KernelFilesystemElsewhereIsRefused) {
  // FILE-1: procfs mounted at another place is caught by the filesystem type.
  FileFacts f = regular("/p/mnt/self/environ");
  f.kernel_fs = true;
  FileDecision d = decide(ctx(), FileTool::kRead, "mnt/self/environ", f);
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_NE(d.error.message.find("is in /proc or /sys"), std::string::npos);
}

// ---- FILE-2 ----

TEST(FileRules, ReadAndEditRefuseFilesOver16MiB) {
  // FILE-2
  const uint64_t big = 17ull * 1024 * 1024;
  for (FileTool t : {FileTool::kRead, FileTool::kEdit}) {
    FileDecision d = decide(ctx(), t, "big.log", regular("/p/big.log", big));
    EXPECT_EQ(d.verdict, Verdict::kRefuse) << to_string(t);
    EXPECT_EQ(d.error.message,
              "refused: big.log is larger than 16 MiB; the file tools read files up to 16 MiB");
  }
  EXPECT_EQ(decide(ctx(), FileTool::kRead, "edge", regular("/p/edge", kFileToolMaxBytes)).verdict,
            Verdict::kAllow);
  EXPECT_EQ(
      decide(ctx(), FileTool::kRead, "edge", regular("/p/edge", kFileToolMaxBytes + 1)).verdict,
      Verdict::kRefuse);
}

TEST(FileRules, WriteReplacesFilesOfAnySize) {
  // FILE-2: write_file keeps nothing of the old file.
  FileDecision d = decide(ctx(), FileTool::kWrite, "big.log", regular("/p/big.log", 1ull << 40));
  EXPECT_EQ(d.verdict, Verdict::kAllow);
}

TEST(FileRules, SearchOfALargeFileIsNotRefused) {
  // FILE-2: search skips it and counts it instead.
  EXPECT_EQ(decide(ctx(), FileTool::kSearch, "big.log", regular("/p/big.log", 1ull << 30)).verdict,
            Verdict::kAllow);
}

// ---- FILE-3 ----

TEST(FileRules, SymlinkOutOfTheProjectIsRefusedNamingItsTarget) {
  // FILE-3
  for (FileTool t : {FileTool::kRead, FileTool::kWrite, FileTool::kEdit, FileTool::kSearch}) {
    FileDecision d = decide(ctx(), t, "notes", link_to("/etc/passwd"));
    EXPECT_EQ(d.verdict, Verdict::kRefuse) << to_string(t);
    EXPECT_EQ(d.error.code, ErrorKind::kRefused);
    EXPECT_EQ(d.error.message,
              "refused: notes is a symlink leading out of the project, to /etc/passwd; the file "
              "tools do not follow links out of the project");
  }
}

TEST(FileRules, LinkedFolderOutOfTheProjectIsRefusedToo) {
  // FILE-3: the link is a folder on the way.
  FileDecision d = decide(ctx(), FileTool::kRead, "vendor/lib.c", regular("/opt/vendor/lib.c"));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_EQ(d.error.message,
            "refused: vendor/lib.c leads out of the project through a symlink, to "
            "/opt/vendor/lib.c; the file tools do not follow links out of the project");
}

TEST(FileRules, SymlinkInsideTheProjectIsFollowed) {
  // FILE-3 only concerns links leading out.
  FileDecision d = decide(ctx(), FileTool::kRead, "current", link_to("/p/v2/main.cc"));
  EXPECT_EQ(d.verdict, Verdict::kAllow);
  EXPECT_EQ(d.target, "/p/v2/main.cc");
  EXPECT_EQ(d.rel, "v2/main.cc");
}

TEST(FileRules, DanglingLinkIsRefused) {
  FileFacts f = link_to("/p/gone.txt", Kind::kMissing);
  f.dangling = true;
  FileDecision d = decide(ctx(), FileTool::kWrite, "ln", f);
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_NE(d.error.message.find("which does not exist"), std::string::npos);
  // A dangling link out of the project names where it leads.
  f = link_to("/etc/gone", Kind::kMissing);
  f.dangling = true;
  d = decide(ctx(), FileTool::kWrite, "ln", f);
  EXPECT_NE(d.error.message.find("leading out of the project, to /etc/gone"), std::string::npos);
}

// ---- FILE-4 ----

TEST(FileRules, CredentialNames) {
  // FILE-4
  for (const char* n :
       {".env", ".env.local", ".env.production", "server.pem", "tls.key", "cert.p12", "cert.pfx"})
    EXPECT_TRUE(is_credential_name(n)) << n;
  for (const char* n : {".env.example", ".env.sample", ".env.template", "env", ".envrc", "keys.txt",
                        ".pem", "key", "monkey", "a.pem.txt", ".environment"})
    EXPECT_FALSE(is_credential_name(n)) << n;
}

TEST(FileRules, CredentialPaths) {
  // FILE-4: anything inside a `.secrets` folder.
  EXPECT_TRUE(is_credential_path("/p/.secrets/db.txt"));
  EXPECT_TRUE(is_credential_path(".secrets/a/b/c.json"));
  EXPECT_TRUE(is_credential_path("/p/.secrets"));
  EXPECT_TRUE(is_credential_path("/p/config/.env"));
  EXPECT_FALSE(is_credential_path("/p/secrets/db.txt"));
  EXPECT_FALSE(is_credential_path("/p/.secretsx/db.txt"));
  EXPECT_FALSE(is_credential_path("/p/.env.example"));
  EXPECT_TRUE(has_secrets_component("/p/.secrets/x"));
  EXPECT_TRUE(has_secrets_component("/p/.secrets"));
  EXPECT_FALSE(has_secrets_component("/p/x.secrets/y"));
}

TEST(FileRules, CredentialReadAsks) {
  // FILE-4
  for (const char* p : {".env", "config/.env.local", "certs/server.pem", "tls.key", "a.p12",
                        "b.pfx", ".secrets/token"}) {
    FileDecision d = decide(ctx(), FileTool::kRead, p, regular("/p/" + std::string(p)));
    EXPECT_EQ(d.verdict, Verdict::kAsk) << p;
    EXPECT_EQ(d.ask.kind, AskKind::kCredentialRead) << p;
    EXPECT_EQ(d.ask.path, "/p/" + std::string(p));
    EXPECT_NE(d.ask.reason.find("credential file"), std::string::npos);
    EXPECT_STREQ(to_string(d.ask.kind), "credential_read");
  }
}

TEST(FileRules, ExampleEnvFilesReadWithoutAsking) {
  // FILE-4
  for (const char* p : {".env.example", ".env.sample", ".env.template"})
    EXPECT_EQ(decide(ctx(), FileTool::kRead, p, regular("/p/" + std::string(p))).verdict,
              Verdict::kAllow)
        << p;
}

TEST(FileRules, CredentialReadUnderApproveAllDoesNotAsk) {
  // FILE-4: except under approve-all.
  FileContext c = ctx();
  c.approval_mode = ApprovalMode::kApproveAll;
  EXPECT_EQ(decide(c, FileTool::kRead, ".env", regular("/p/.env")).verdict, Verdict::kAllow);
  c.approval_mode = ApprovalMode::kAuto;
  EXPECT_EQ(decide(c, FileTool::kRead, ".env", regular("/p/.env")).verdict, Verdict::kAsk);
}

TEST(FileRules, LinkToACredentialAsks) {
  // FILE-4: judged by where the path leads as well as by its name.
  FileDecision d = decide(ctx(), FileTool::kRead, "settings", link_to("/p/.env"));
  EXPECT_EQ(d.verdict, Verdict::kAsk);
  EXPECT_EQ(d.ask.path, "/p/.env");
  EXPECT_NE(d.ask.reason.find("settings (/p/.env)"), std::string::npos);
}

TEST(FileRules, EditOfACredentialAsksButWriteDoesNot) {
  // FILE-4: whether an edit matches would tell what the file holds; a write tells nothing.
  FileDecision d = decide(ctx(), FileTool::kEdit, ".env", regular("/p/.env"));
  EXPECT_EQ(d.verdict, Verdict::kAsk);
  EXPECT_EQ(d.ask.kind, AskKind::kCredentialRead);
  EXPECT_EQ(decide(ctx(), FileTool::kWrite, ".env", regular("/p/.env")).verdict, Verdict::kAllow);
}

TEST(FileRules, SearchNeverAsks) {
  // FILE-4: search skips credential files instead (counted by the tool).
  EXPECT_EQ(decide(ctx(), FileTool::kSearch, ".env", regular("/p/.env")).verdict, Verdict::kAllow);
  EXPECT_EQ(
      decide(ctx(), FileTool::kSearch, ".secrets", of_kind("/p/.secrets", Kind::kDir)).verdict,
      Verdict::kAllow);
}

TEST(FileRules, ApprovalGrantsExactlyTheAskedKindAndPath) {
  // APR-1: the caller calls again with the Ask it got; nothing wider is granted.
  FileDecision first = decide(ctx(), FileTool::kRead, ".env", regular("/p/.env"));
  ASSERT_EQ(first.verdict, Verdict::kAsk);
  EXPECT_EQ(decide(ctx(), FileTool::kRead, ".env", regular("/p/.env"), first.ask).verdict,
            Verdict::kAllow);
  // The same grant does not cover another credential file...
  EXPECT_EQ(decide(ctx(), FileTool::kRead, "b.pem", regular("/p/b.pem"), first.ask).verdict,
            Verdict::kAsk);
  // ...nor the same path when the path now leads elsewhere...
  EXPECT_EQ(decide(ctx(), FileTool::kRead, ".env", link_to("/p/other/.env"), first.ask).verdict,
            Verdict::kAsk);
  // ...nor another kind of ask on the same path.
  Ask wrong = first.ask;
  wrong.kind = AskKind::kWriteOutside;
  EXPECT_EQ(decide(ctx(), FileTool::kRead, ".env", regular("/p/.env"), wrong).verdict,
            Verdict::kAsk);
  // A grant never lifts a refusal.
  EXPECT_EQ(
      decide(ctx(), FileTool::kRead, ".env", regular("/p/.env", 1ull << 30), first.ask).verdict,
      Verdict::kRefuse);
}

// ---- FILE-5 ----

TEST(FileRules, WritesOutsideTheProjectAsk) {
  // FILE-5
  for (FileTool t : {FileTool::kWrite, FileTool::kEdit}) {
    FileDecision d = decide(ctx(), t, "/etc/motd", regular("/etc/motd"));
    EXPECT_EQ(d.verdict, Verdict::kAsk) << to_string(t);
    EXPECT_EQ(d.ask.kind, AskKind::kWriteOutside);
    EXPECT_EQ(d.ask.path, "/etc/motd");
    EXPECT_NE(d.ask.reason.find("outside the project"), std::string::npos);
  }
  FileDecision d = decide(ctx(), FileTool::kWrite, "~/notes.txt", missing("/h/notes.txt"));
  EXPECT_EQ(d.verdict, Verdict::kAsk);
  EXPECT_EQ(d.ask.kind, AskKind::kWriteOutside);
}

TEST(FileRules, WritesInWritableRootsAndTheSessionTempDoNotAsk) {
  // FILE-5, FS-2, FS-3
  EXPECT_EQ(decide(ctx(), FileTool::kWrite, "~/.cache/pip/x", missing("/h/.cache/pip/x")).verdict,
            Verdict::kAllow);
  EXPECT_EQ(decide(ctx(), FileTool::kWrite, "/tmp/scratch.txt",
                   missing("/h/.cache/cordon/sandbox-tmp/s1/scratch.txt"))
                .verdict,
            Verdict::kAllow);
}

TEST(FileRules, CordonsOwnFoldersInsideAWritableRootAsk) {
  // FILE-5 with FS-8: cordon's own folders stay read-only inside a writable root.
  FileDecision d = decide(ctx(), FileTool::kWrite, "~/.cache/cordon/probe.json",
                          regular("/h/.cache/cordon/probe.json"));
  EXPECT_EQ(d.verdict, Verdict::kAsk);
  EXPECT_EQ(d.ask.kind, AskKind::kWriteOutside);
  EXPECT_FALSE(in_writable_place(ctx(), "/h/.cache/cordon/x"));
  EXPECT_TRUE(in_writable_place(ctx(), "/h/.cache/cordon/sandbox-tmp/s1/x"));
  EXPECT_TRUE(in_writable_place(ctx(), "/h/.cache/pip"));
  EXPECT_FALSE(in_writable_place(ctx(), "/h/.cacheX"));
}

TEST(FileRules, WritesToHiddenPathsAreRefused) {
  // FILE-5
  for (FileTool t : {FileTool::kWrite, FileTool::kEdit}) {
    FileDecision d = decide(ctx(), t, "~/.ssh/authorized_keys", regular("/h/.ssh/authorized_keys"));
    EXPECT_EQ(d.verdict, Verdict::kRefuse) << to_string(t);
    EXPECT_EQ(d.error.message,
              "refused: ~/.ssh/authorized_keys is hidden from sandboxed commands (~/.ssh, default "
              "list); the file tools do not read or write hidden paths");
  }
  // A glob entry (FS-4: ~/.cargo/credentials*).
  FileDecision d = decide(ctx(), FileTool::kWrite, "~/.cargo/credentials.toml",
                          missing("/h/.cargo/credentials.toml"));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_EQ(
      decide(ctx(), FileTool::kWrite, "~/.cargo/config.toml", regular("/h/.cargo/config.toml"))
          .verdict,
      Verdict::kAsk);
}

TEST(FileRules, HiddenPathsAreNotReadEither) {
  // FS-4: the sandbox shows them empty; the file tools, running on the host, refuse them.
  FileDecision d = decide(ctx(), FileTool::kRead, "/srv/keys/a", regular("/srv/keys/a"));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  // A path that leads into a hidden one through a link is refused as well (FS-5).
  d = decide(ctx(), FileTool::kRead, "/opt/k", link_to("/h/.ssh/id_ed25519"));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  EXPECT_NE(d.error.message.find("hidden from sandboxed commands"), std::string::npos);
  EXPECT_EQ(decide(ctx(), FileTool::kSearch, "~/.ssh", of_kind("/h/.ssh", Kind::kDir)).verdict,
            Verdict::kRefuse);
}

TEST(FileRules, HiddenMatchHandlesGlobsAndBoundaries) {
  FileContext c = ctx();
  EXPECT_NE(hidden_match(c, "/h/.ssh"), nullptr);
  EXPECT_NE(hidden_match(c, "/h/.ssh/config"), nullptr);
  EXPECT_EQ(hidden_match(c, "/h/.sshx"), nullptr);
  EXPECT_NE(hidden_match(c, "/h/.cargo/credentials"), nullptr);
  EXPECT_NE(hidden_match(c, "/h/.cargo/credentials.toml/x"), nullptr);
  EXPECT_EQ(hidden_match(c, "/h/.cargo"), nullptr);
  EXPECT_EQ(hidden_match(c, "/h/.cargo/registry"), nullptr);
}

// ---- FILE-6 ----

TEST(FileRules, WritesToProtectedPathsAsk) {
  // FILE-6, PROT-1
  for (const char* p : {".envrc", ".vscode/settings.json", "CLAUDE.md", ".github/workflows/ci.yml",
                        ".claude/settings.json", ".cargo/config.toml", ".gitmodules"}) {
    for (FileTool t : {FileTool::kWrite, FileTool::kEdit}) {
      FileDecision d = decide(ctx(), t, p, regular("/p/" + std::string(p)));
      EXPECT_EQ(d.verdict, Verdict::kAsk) << p;
      EXPECT_EQ(d.ask.kind, AskKind::kProtectedWrite) << p;
      EXPECT_STREQ(to_string(d.ask.kind), "protected_write");
    }
  }
}

TEST(FileRules, DoubleStarEntriesAskForTheFileTools) {
  // FILE-6: `**/` entries apply to the file tools at any depth.
  for (const char* p : {"Makefile", "sub/dir/Makefile", "crates/x/build.rs", "tests/conftest.py",
                        "web/package.json"}) {
    FileDecision d = decide(ctx(), FileTool::kEdit, p, regular("/p/" + std::string(p)));
    EXPECT_EQ(d.verdict, Verdict::kAsk) << p;
    EXPECT_EQ(d.ask.kind, AskKind::kProtectedWrite) << p;
  }
  EXPECT_EQ(decide(ctx(), FileTool::kEdit, "Makefile.am", regular("/p/Makefile.am")).verdict,
            Verdict::kAllow);
}

TEST(FileRules, ClaudeWorktreesStayWritable) {
  // PROT-1's exception.
  EXPECT_EQ(decide(ctx(), FileTool::kWrite, ".claude/worktrees/w1/src/a.cc",
                   missing("/p/.claude/worktrees/w1/src/a.cc"))
                .verdict,
            Verdict::kAllow);
}

TEST(FileRules, ReadingProtectedFilesDoesNotAsk) {
  EXPECT_EQ(decide(ctx(), FileTool::kRead, ".envrc", regular("/p/.envrc")).verdict,
            Verdict::kAllow);
  EXPECT_EQ(decide(ctx(), FileTool::kRead, ".git/config", regular("/p/.git/config")).verdict,
            Verdict::kAllow);
}

TEST(FileRules, LinkToAProtectedFileAsks) {
  // FILE-6: judged by where the write lands, not by the name used.
  FileDecision d = decide(ctx(), FileTool::kWrite, "notes.txt", link_to("/p/.envrc"));
  EXPECT_EQ(d.verdict, Verdict::kAsk);
  EXPECT_EQ(d.ask.kind, AskKind::kProtectedWrite);
  EXPECT_EQ(d.ask.path, "/p/.envrc");
}

TEST(FileRules, LockedGitFilesAsk) {
  // FILE-6: the locked git files (GIT-1, GIT-2), whole folders included.
  FileDecision d =
      decide(ctx(), FileTool::kWrite, ".git/hooks/pre-commit", missing("/p/.git/hooks/pre-commit"));
  EXPECT_EQ(d.verdict, Verdict::kAsk);
  EXPECT_EQ(d.ask.kind, AskKind::kProtectedWrite);
  EXPECT_NE(d.ask.reason.find("hooks folder"), std::string::npos);
  d = decide(ctx(), FileTool::kEdit, ".git/config", regular("/p/.git/config"));
  EXPECT_EQ(d.verdict, Verdict::kAsk);
  EXPECT_NE(d.ask.reason.find("repository config"), std::string::npos);
  // A link in the project that leads into the hooks folder is judged by where it lands.
  d = decide(ctx(), FileTool::kWrite, "hooks/pre-push", missing("/p/.git/hooks/pre-push"));
  EXPECT_EQ(d.verdict, Verdict::kAsk);
  EXPECT_EQ(d.ask.kind, AskKind::kProtectedWrite);
  EXPECT_EQ(d.ask.path, "/p/.git/hooks/pre-push");
  // Other git files are not locked.
  EXPECT_EQ(
      decide(ctx(), FileTool::kWrite, ".git/info/exclude", regular("/p/.git/info/exclude")).verdict,
      Verdict::kAllow);
  EXPECT_EQ(locked_match(ctx(), "/p/.git/configx"), nullptr);
  EXPECT_NE(locked_match(ctx(), "/p/.git/hooks/x/y"), nullptr);
}

TEST(FileRules, OneAskNamesEveryReasonWithTheStrongestKind) {
  // FILE-5 and FILE-6 at once: the global git config is outside the project and locked.
  FileDecision d = decide(ctx(), FileTool::kEdit, "~/.gitconfig", regular("/h/.gitconfig"));
  ASSERT_EQ(d.verdict, Verdict::kAsk);
  EXPECT_EQ(d.ask.kind, AskKind::kProtectedWrite);
  EXPECT_NE(d.ask.reason.find("outside the project"), std::string::npos);
  EXPECT_NE(d.ask.reason.find("global git config"), std::string::npos);
  // Its grant allows the edit.
  EXPECT_EQ(decide(ctx(), FileTool::kEdit, "~/.gitconfig", regular("/h/.gitconfig"), d.ask).verdict,
            Verdict::kAllow);
}

TEST(FileRules, RefusalsComeBeforeAsks) {
  // Nobody is asked about a write that would be refused anyway.
  FileDecision d = decide(ctx(), FileTool::kWrite, ".vscode", of_kind("/p/.vscode", Kind::kDir));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
  d = decide(ctx(), FileTool::kRead, ".env", of_kind("/p/.env", Kind::kOther));
  EXPECT_EQ(d.verdict, Verdict::kRefuse);
}

// ---- the context ----

TEST(FileRules, ContextFromPolicyAndFacts) {
  Policy policy;
  policy.protect = {"deploy/"};
  policy.hide = {"/srv/keys"};
  policy.approvals.mode = ApprovalMode::kApproveAll;
  Facts facts;
  facts.home = "/h";
  facts.cwd = "/p/src";
  facts.project = "/p";
  facts.session_tmp = "/h/.cache/cordon/sandbox-tmp/s1";
  facts.folders.config_dir = "/h/.config/cordon";
  facts.folders.config_file = "/h/.config/cordon/config.toml";
  facts.folders.data = "/h/.local/share/cordon";
  PathInfo w;
  w.path = "/h/.cache/pip";
  w.real = "/data/pip";
  w.real_kind = Kind::kDir;
  facts.writable.push_back(w);
  PathInfo whole_home;
  whole_home.path = "/h/..";
  whole_home.real = "/";
  whole_home.real_kind = Kind::kDir;
  facts.writable.push_back(whole_home);
  PathInfo absent;
  absent.path = "/h/.cache/none";
  facts.writable.push_back(absent);
  PathInfo cache;
  cache.path = "/h/.cache/cordon";
  cache.real = "/h/.cache/cordon";
  facts.cordon_dirs.push_back(cache);
  HiddenFact ssh;
  ssh.entry = "~/.ssh";
  ssh.why = "default list";
  PathInfo link;
  link.path = "/h/.ssh";
  link.kind = Kind::kSymlink;
  link.real = "/h/dotfiles/ssh";
  ssh.matches.push_back(link);
  facts.hidden.push_back(ssh);
  GitLockFact lock;
  lock.info.path = "/p/.git/hooks";
  lock.info.real = "/p/.git/hooks";
  lock.why = "hooks folder";
  lock.folder = true;
  facts.git.locks.push_back(lock);

  FileContext c = make_file_context(policy, facts);
  EXPECT_EQ(c.project, "/p");
  EXPECT_EQ(c.cwd, "/p/src");
  EXPECT_EQ(c.session_tmp, "/h/.cache/cordon/sandbox-tmp/s1");
  // Only the existing writable path; never one that holds the home folder.
  ASSERT_EQ(c.writable_roots.size(), 1u);
  EXPECT_EQ(c.writable_roots[0], "/data/pip");
  EXPECT_EQ(c.read_only_roots, std::vector<std::string>{"/h/.cache/cordon"});
  // FS-5: a hidden link hides its target too.
  EXPECT_NE(hidden_match(c, "/h/dotfiles/ssh/id_rsa"), nullptr);
  EXPECT_NE(hidden_match(c, "/h/.ssh/id_rsa"), nullptr);
  EXPECT_NE(hidden_match(c, "/srv/keys/k"), nullptr);
  EXPECT_NE(hidden_match(c, "/h/.config/cordon/config.toml"), nullptr);
  EXPECT_NE(hidden_match(c, "/h/.local/share/cordon/sessions/x"), nullptr);
  EXPECT_NE(hidden_match(c, "/h/.cargo/credentials.toml"), nullptr);  // the glob, as configured
  EXPECT_TRUE(is_protected_path(c.protected_entries, "deploy/run.sh"));
  EXPECT_NE(locked_match(c, "/p/.git/hooks/pre-push"), nullptr);
  EXPECT_EQ(c.approval_mode, ApprovalMode::kApproveAll);
}

TEST(FileRules, TargetsOfLinksInsideHiddenFoldersAreHiddenFromTheTools) {  // FS-5, FILE-5
  Facts facts;
  facts.home = "/h";
  facts.project = "/p";
  HiddenFact gh{"~/.config/gh", "default list", {}, {}};
  PathInfo link;
  link.path = "/h/.config/gh/hosts.yml";
  link.kind = Kind::kSymlink;
  link.real = "/h/dotfiles/gh/hosts.yml";
  link.real_kind = Kind::kFile;
  gh.links.push_back(link);
  link.path = "/h/.config/gh/all";
  link.real = "/usr";  // a system folder is never hidden
  link.real_kind = Kind::kDir;
  gh.links.push_back(link);
  facts.hidden.push_back(gh);
  FileContext c = make_file_context(Policy{}, facts);
  EXPECT_NE(hidden_match(c, "/h/dotfiles/gh/hosts.yml"), nullptr);
  EXPECT_EQ(hidden_match(c, "/h/dotfiles/gh/other.yml"), nullptr);
  EXPECT_EQ(hidden_match(c, "/usr/bin/env"), nullptr);
}

TEST(FileRules, ContextIgnoresUnsetFolders) {
  Facts facts;
  facts.home = "/h";
  facts.project = "/p";
  FileContext c = make_file_context(Policy{}, facts);
  for (const auto& h : c.hidden)
    EXPECT_TRUE(h.path.rfind("/h/", 0) == 0 || h.why == "system secrets") << h.path;
  EXPECT_EQ(hidden_match(c, "/p/logs/x"), nullptr);
}

TEST(FileRules, HiddenEntryHoldingTheProjectStaysVisible) {
  // FS-7: hiding it would hide the project.
  Policy policy;
  policy.hide = {"~/work"};
  Facts facts;
  facts.home = "/h";
  facts.project = "/h/work/proj";
  facts.cwd = "/h/work/proj";
  facts.folders.config_dir = "/h/.config/cordon";
  facts.folders.data = "/h/.local/share/cordon";
  FileContext c = make_file_context(policy, facts);
  EXPECT_EQ(hidden_match(c, "/h/work/proj/a.cc"), nullptr);
  EXPECT_EQ(hidden_match(c, "/h/work/other/a.cc"), nullptr);
  EXPECT_NE(hidden_match(c, "/h/.ssh/id_rsa"), nullptr);
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

// A write whose folder already holds `head`, `objects/` and `refs/` as told (the host reads it).
FileFacts shaped(const std::string& real, const std::string& folder, bool head, bool objects,
                 bool refs) {
  FileFacts f = missing(real);
  for (const auto& g : git_shape_folders(real)) {
    GitShape s;
    s.folder = g;
    if (g == folder) {
      s.head = head;
      s.objects = objects;
      s.refs = refs;
    }
    f.git_shapes.push_back(s);
  }
  return f;
}

// FILE-6 (issue 27): the file tools do not complete a git-shaped folder (HEAD beside objects/
// and refs/) without asking, in whatever order its parts come: `git --git-dir=g status` or
// `git -C g status` would use it as a repository and run its config's fsmonitor.
TEST(FileRules, WritesThatCompleteAGitFolderAsk) {
  EXPECT_EQ(git_shape_folders("/p/g/refs/heads/main"), std::vector<std::string>{"/p/g"});
  EXPECT_EQ(git_shape_folders("/p/g/HEAD"), std::vector<std::string>{"/p/g"});
  EXPECT_EQ(git_shape_folders("/p/g/objects/ab/cd"), std::vector<std::string>{"/p/g"});
  EXPECT_TRUE(git_shape_folders("/p/src/objects.c").empty());
  EXPECT_TRUE(git_shape_folders("/p/g/config").empty());
  struct Case {
    std::string path;
    bool head, objects, refs;  // what /p/g holds before the write
    bool asks;
  };
  for (const Case& c : std::vector<Case>{
           {"/p/g/HEAD", false, true, true, true},
           {"/p/g/objects/x", true, false, true, true},
           {"/p/g/refs/heads/main", true, true, false, true},
           {"/p/g/HEAD", false, false, true, false},
           {"/p/g/refs/x", false, true, false, false},
           {"/p/g/objects/info/packs", true, true, true, true},
       }) {
    FileDecision d =
        decide(ctx(), FileTool::kWrite, c.path, shaped(c.path, "/p/g", c.head, c.objects, c.refs));
    EXPECT_EQ(d.verdict, c.asks ? Verdict::kAsk : Verdict::kAllow) << c.path;
    if (c.asks) {
      EXPECT_EQ(d.ask.kind, AskKind::kProtectedWrite) << c.path;
      EXPECT_NE(d.ask.reason.find("/p/g a git folder"), std::string::npos) << d.ask.reason;
    }
  }
  // The project's own git folder is the project's own.
  FileContext own = ctx();
  own.git_dirs = {"/p/.git"};
  FileDecision d = decide(own, FileTool::kWrite, "/p/.git/refs/heads/x",
                          shaped("/p/.git/refs/heads/x", "/p/.git", true, true, false));
  EXPECT_EQ(d.verdict, Verdict::kAllow) << d.ask.reason;
}

}  // namespace
}  // namespace cordon
