// The file tools (FILE-1..6) on real files in a throw-away folder: FIFOs, sparse 17 MiB files,
// links out of the project, credential files, atomic writes. No sandbox is needed: the tools
// run on the host, so these tests never skip.
#include "file_tools/file_tools.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "plan/protected_list.h"

namespace cordon {
namespace {

namespace fs = std::filesystem;

// A FIFO that blocked a tool would hang the test run: this alarm ends it loudly instead.
class BlockGuard {
 public:
  BlockGuard() { ::alarm(30); }
  ~BlockGuard() { ::alarm(0); }
};

class FileToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cordon-files-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = fs::canonical(tmpl).string();
    project_ = root_ + "/proj";
    home_ = root_ + "/home";
    outside_ = root_ + "/outside";
    for (const auto& d : {project_, home_, outside_, home_ + "/.ssh", home_ + "/.cache/pip",
                          root_ + "/sandbox-tmp/s1"})
      fs::create_directories(d);
    ctx_.project = project_;
    ctx_.cwd = project_;
    ctx_.home = home_;
    // The test folder is under /tmp: with a session temp folder set, "outside" paths there
    // would mean the session's /tmp (FS-3). The mapping has its own test.
    ctx_.session_tmp = "";
    ctx_.writable_roots = {home_ + "/.cache/pip"};
    ctx_.hidden = {{home_ + "/.ssh", "~/.ssh", "default list", false},
                   {project_ + "/private", project_ + "/private", "[sandbox] hide", false}};
    ctx_.protected_entries = protected_entries(Policy{});
    ctx_.locked = {{project_ + "/.git/hooks", "hooks folder", true}};
    old_umask_ = ::umask(022);
  }
  void TearDown() override {
    ::umask(old_umask_);
    std::error_code ec;
    fs::remove_all(root_, ec);  // the test's own folder
  }

  std::string p(const std::string& rel) const { return project_ + "/" + rel; }
  static void put(const std::string& path, const std::string& data, mode_t mode = 0644) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << data;
    ::chmod(path.c_str(), mode);
  }
  static std::string get(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void sparse(const std::string& path, off_t size) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, size), 0);
    ::close(fd);
  }
  static mode_t mode_of(const std::string& path) {
    struct stat st;
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }
  static ino_t ino_of(const std::string& path) {
    struct stat st;
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_ino;
  }

  std::string root_, project_, home_, outside_;
  FileContext ctx_;
  mode_t old_umask_ = 022;
};

// ---- read_file ----

TEST_F(FileToolsTest, ReadsAFileByLines) {
  put(p("src/a.txt"), "one\ntwo\nthree\n");
  auto r = files::read_file(ctx_, {.path = "src/a.txt"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r->asked());
  EXPECT_EQ(r->value.content, "one\ntwo\nthree\n");
  EXPECT_EQ(r->value.total_lines, 3u);
  EXPECT_EQ(r->value.path, p("src/a.txt"));
  r = files::read_file(ctx_, {.path = "src/a.txt", .offset = 2, .limit = 1});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value.content, "two\n");
  EXPECT_EQ(r->value.first_line, 2u);
  EXPECT_TRUE(r->value.more);
  EXPECT_EQ(r->value.size, 14u);
}

TEST_F(FileToolsTest, FifoIsRefusedWithoutBlocking) {
  // FILE-1: a read of a FIFO with no writer would wait forever.
  BlockGuard guard;
  ASSERT_EQ(::mkfifo(p("pipe").c_str(), 0644), 0);
  for (auto* tool : {"read", "edit", "write", "search"}) {
    std::string t = tool;
    Error e;
    if (t == "read") {
      auto r = files::read_file(ctx_, {.path = "pipe"});
      ASSERT_FALSE(r.ok());
      e = r.error();
    } else if (t == "edit") {
      auto r = files::edit_file(ctx_, {.path = "pipe", .old_text = "a", .new_text = "b"});
      ASSERT_FALSE(r.ok());
      e = r.error();
    } else if (t == "write") {
      auto r = files::write_file(ctx_, {.path = "pipe", .content = "x"});
      ASSERT_FALSE(r.ok());
      e = r.error();
    } else {
      auto r = files::search(ctx_, {.pattern = "x", .path = "pipe"});
      ASSERT_FALSE(r.ok());
      e = r.error();
    }
    EXPECT_EQ(e.code, ErrorKind::kRefused) << t;
    EXPECT_NE(e.message.find("pipe is "), std::string::npos) << e.message;
  }
  struct stat st;
  ASSERT_EQ(::lstat(p("pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));  // still the FIFO: write_file did not replace it
}

TEST_F(FileToolsTest, FifoSwappedInDuringTheCheckNeverBlocksNorLeaks) {
  // FILE-1: a path that flips between a file and a FIFO (and a link to /proc) while the tool
  // works must give the file's text or a refusal, never block, never another content.
  BlockGuard guard;
  put(p("regular"), "regular\n");
  ASSERT_EQ(::mkfifo(p("fifo").c_str(), 0644), 0);
  ASSERT_EQ(::symlink("/proc/self/environ", p("proclink").c_str()), 0);
  ASSERT_EQ(::link(p("regular").c_str(), p("regular2").c_str()), 0);
  std::atomic<bool> stop{false};
  std::thread flipper([&] {
    int i = 0;
    while (!stop) {
      // Each rename puts something else at "x": the file, the FIFO or the /proc link.
      std::string from = i % 3 == 0 ? "regular2" : i % 3 == 1 ? "fifo" : "proclink";
      std::string tmp = p("x.new");
      if (from == "regular2") {
        ::unlink(tmp.c_str());
        ::link(p("regular").c_str(), tmp.c_str());
      } else if (from == "fifo") {
        ::unlink(tmp.c_str());
        ::mkfifo(tmp.c_str(), 0644);
      } else {
        ::unlink(tmp.c_str());
        ::symlink("/proc/self/environ", tmp.c_str());
      }
      ::rename(tmp.c_str(), p("x").c_str());
      ++i;
    }
  });
  int ok = 0, refused = 0;
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(700);
  while (std::chrono::steady_clock::now() < until) {
    auto r = files::read_file(ctx_, {.path = "x"});
    if (r.ok()) {
      ASSERT_FALSE(r->asked());
      EXPECT_EQ(r->value.content, "regular\n");
      ++ok;
    } else {
      EXPECT_TRUE(r.error().code == ErrorKind::kRefused || r.error().code == ErrorKind::kInvalid)
          << r.error().code << ": " << r.error().message;
      ++refused;
    }
  }
  stop = true;
  flipper.join();
  EXPECT_GT(ok + refused, 10);
}

TEST_F(FileToolsTest, FileOver16MiBIsRefusedBeforeAnyOfItIsRead) {
  // FILE-2: inotify shows the file is never even opened.
  sparse(p("big.log"), 17 * 1024 * 1024);
  put(p("small.log"), "small\n");
  int in = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(in, 0);
  ASSERT_GE(::inotify_add_watch(in, p("big.log").c_str(), IN_OPEN | IN_ACCESS), 0);
  ASSERT_GE(::inotify_add_watch(in, p("small.log").c_str(), IN_OPEN | IN_ACCESS), 0);
  auto r = files::read_file(ctx_, {.path = "big.log"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "refused: big.log is larger than 16 MiB; the file tools read files up to 16 MiB");
  auto e = files::edit_file(ctx_, {.path = "big.log", .old_text = "a", .new_text = "b"});
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("larger than 16 MiB"), std::string::npos);
  char buf[4096];
  EXPECT_LT(::read(in, buf, sizeof buf), 0) << "big.log was opened or read";
  // The control: a small file read does show up, so the watch works.
  ASSERT_TRUE(files::read_file(ctx_, {.path = "small.log"}).ok());
  EXPECT_GT(::read(in, buf, sizeof buf), 0);
  ::close(in);
}

TEST_F(FileToolsTest, SymlinkOutOfTheProjectIsRefusedNamingItsTarget) {
  // FILE-3
  put(outside_ + "/secret.txt", "outside\n");
  ASSERT_EQ(::symlink((outside_ + "/secret.txt").c_str(), p("notes").c_str()), 0);
  ASSERT_EQ(::symlink(outside_.c_str(), p("vendor").c_str()), 0);
  auto r = files::read_file(ctx_, {.path = "notes"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "refused: notes is a symlink leading out of the project, to " +
                                   outside_ +
                                   "/secret.txt; the file tools do not follow links "
                                   "out of the project");
  r = files::read_file(ctx_, {.path = "vendor/secret.txt"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("to " + outside_ + "/secret.txt"), std::string::npos);
  auto w = files::write_file(ctx_, {.path = "notes", .content = "x"});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(get(outside_ + "/secret.txt"), "outside\n");
  // A relative link that climbs out is refused the same way.
  ASSERT_EQ(::symlink("../outside/secret.txt", p("rel").c_str()), 0);
  r = files::read_file(ctx_, {.path = "rel"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("to " + outside_ + "/secret.txt"), std::string::npos);
}

TEST_F(FileToolsTest, ProcFilesAreRefused) {
  // FILE-1
  auto r = files::read_file(ctx_, {.path = "/proc/self/environ"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "refused: /proc/self/environ is in /proc or /sys; the file tools do not read there");
  // Through a link outside the project, judged by where it leads.
  ASSERT_EQ(::symlink("/proc/self/status", (outside_ + "/st").c_str()), 0);
  r = files::read_file(ctx_, {.path = outside_ + "/st"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is in /proc or /sys"), std::string::npos);
  // With the project at /, "proc/..." is a project path and still refused.
  FileContext at_root = ctx_;
  at_root.project = "/";
  at_root.cwd = "/";
  r = files::read_file(at_root, {.path = "proc/self/environ"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is in /proc or /sys"), std::string::npos);
}

TEST_F(FileToolsTest, CredentialReadAsksAndTheGrantReadsIt) {
  // FILE-4, APR-1
  put(p(".env"), "API_KEY=abc\n");
  auto r = files::read_file(ctx_, {.path = ".env"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->asked());
  EXPECT_EQ(r->ask->kind, AskKind::kCredentialRead);
  EXPECT_EQ(r->ask->path, p(".env"));
  EXPECT_EQ(r->value.content, "");  // nothing was read
  r = files::read_file(ctx_, {.path = ".env", .approved = r->ask});
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->asked());
  EXPECT_EQ(r->value.content, "API_KEY=abc\n");
  // Under approve-all it does not ask.
  FileContext all = ctx_;
  all.approval_mode = ApprovalMode::kApproveAll;
  r = files::read_file(all, {.path = ".env"});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->asked());
  EXPECT_EQ(r->value.content, "API_KEY=abc\n");
}

TEST_F(FileToolsTest, ExampleEnvIsReadable) {
  // FILE-4
  put(p(".env.example"), "API_KEY=\n");
  auto r = files::read_file(ctx_, {.path = ".env.example"});
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->asked());
  EXPECT_EQ(r->value.content, "API_KEY=\n");
}

TEST_F(FileToolsTest, HiddenPathsAreNeitherReadNorWritten) {
  // FS-4, FILE-5
  put(home_ + "/.ssh/id_ed25519", "PRIVATE\n");
  auto r = files::read_file(ctx_, {.path = home_ + "/.ssh/id_ed25519"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("hidden from sandboxed commands"), std::string::npos);
  auto w = files::write_file(ctx_, {.path = "~/.ssh/authorized_keys", .content = "ssh-ed25519 x"});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code, ErrorKind::kRefused);
  EXPECT_FALSE(fs::exists(home_ + "/.ssh/authorized_keys"));
  // A link in the project into a hidden folder is refused too (FILE-3 names it first).
  ASSERT_EQ(::symlink((home_ + "/.ssh/id_ed25519").c_str(), p("key").c_str()), 0);
  EXPECT_FALSE(files::read_file(ctx_, {.path = "key"}).ok());
}

TEST_F(FileToolsTest, BinaryIsRefusedAndBadUtf8Replaced) {
  put(p("a.bin"), std::string("\x7f"
                              "ELF\0\1\2",
                              7));
  auto r = files::read_file(ctx_, {.path = "a.bin"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorKind::kInvalid);
  EXPECT_NE(r.error().message.find("binary"), std::string::npos);
  put(p("latin1.txt"), "caf\xE9\n");
  r = files::read_file(ctx_, {.path = "latin1.txt"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value.content, "caf\xEF\xBF\xBD\n");
  EXPECT_EQ(r->value.invalid_utf8, 1u);
}

// ---- write_file ----

TEST_F(FileToolsTest, WriteIsAtomicAndKeepsTheMode) {
  put(p("run.sh"), "#!/bin/sh\necho old\n", 0751);
  ino_t before = ino_of(p("run.sh"));
  // A reader that had the old file open keeps the old text: the new one came in by rename,
  // not by rewriting the old file in place.
  int old_fd = ::open(p("run.sh").c_str(), O_RDONLY);
  ASSERT_GE(old_fd, 0);
  auto r = files::write_file(ctx_, {.path = "run.sh", .content = "#!/bin/sh\necho new\n"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r->asked());
  EXPECT_FALSE(r->value.created);
  EXPECT_EQ(r->value.bytes, 19u);
  EXPECT_EQ(get(p("run.sh")), "#!/bin/sh\necho new\n");
  EXPECT_EQ(mode_of(p("run.sh")), 0751u);
  EXPECT_NE(ino_of(p("run.sh")), before);
  char buf[64] = {};
  ASSERT_GT(::read(old_fd, buf, sizeof buf - 1), 0);
  EXPECT_STREQ(buf, "#!/bin/sh\necho old\n");
  ::close(old_fd);
  // No temporary file is left behind.
  for (const auto& e : fs::directory_iterator(project_))
    EXPECT_EQ(e.path().filename().string().find(".cordon-write-"), std::string::npos);
}

TEST_F(FileToolsTest, WriteCreatesFilesAndFoldersInsideTheProject) {
  auto r = files::write_file(ctx_, {.path = "a/b/c.txt", .content = "hi\n"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->value.created);
  EXPECT_EQ(r->value.created_dirs, (std::vector<std::string>{p("a"), p("a/b")}));
  EXPECT_EQ(get(p("a/b/c.txt")), "hi\n");
  EXPECT_EQ(mode_of(p("a/b/c.txt")), 0644u);  // 0666 less the umask
}

TEST_F(FileToolsTest, WriteOutsideAsksAndMakesNoFoldersThere) {
  // FILE-5
  auto r = files::write_file(ctx_, {.path = outside_ + "/new/x.txt", .content = "x"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->asked());
  EXPECT_EQ(r->ask->kind, AskKind::kWriteOutside);
  EXPECT_FALSE(fs::exists(outside_ + "/new"));
  r = files::write_file(ctx_,
                        {.path = outside_ + "/new/x.txt", .content = "x", .approved = r->ask});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("does not exist"), std::string::npos);
  EXPECT_FALSE(fs::exists(outside_ + "/new"));
  r = files::write_file(ctx_, {.path = outside_ + "/x.txt", .content = "x"});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->asked());
  r = files::write_file(ctx_, {.path = outside_ + "/x.txt", .content = "x", .approved = r->ask});
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->asked());
  EXPECT_EQ(get(outside_ + "/x.txt"), "x");
  // A writable root needs no ask, and may get new folders.
  r = files::write_file(ctx_, {.path = "~/.cache/pip/wheels/w.txt", .content = "w"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->asked());
  EXPECT_EQ(get(home_ + "/.cache/pip/wheels/w.txt"), "w");
}

TEST_F(FileToolsTest, WriteToTmpLandsInTheSessionsTempFolder) {
  // FS-3: what a command sees at /tmp.
  FileContext c = ctx_;
  c.session_tmp = root_ + "/sandbox-tmp/s1";
  auto r = files::write_file(c, {.path = "/tmp/cordon-file-tools-note.txt", .content = "n"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->asked());
  EXPECT_EQ(r->value.path, root_ + "/sandbox-tmp/s1/cordon-file-tools-note.txt");
  EXPECT_EQ(get(root_ + "/sandbox-tmp/s1/cordon-file-tools-note.txt"), "n");
  EXPECT_FALSE(fs::exists("/tmp/cordon-file-tools-note.txt"));
}

TEST_F(FileToolsTest, WriteUnderAFileSaysWhichPathIsAFile) {
  put(p("a.txt"), "x");
  auto r = files::write_file(ctx_, {.path = "a.txt/b/c.txt", .content = "y"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorKind::kInvalid);
  EXPECT_EQ(r.error().message,
            "a.txt/b/c.txt cannot be written: " + p("a.txt") + " is a file, not a folder");
  EXPECT_EQ(get(p("a.txt")), "x");
}

TEST_F(FileToolsTest, WriteThroughALinkInsideTheProjectKeepsTheLink) {
  put(p("v2/config.txt"), "old", 0600);
  ASSERT_EQ(::symlink("v2/config.txt", p("config.txt").c_str()), 0);
  auto r = files::write_file(ctx_, {.path = "config.txt", .content = "new"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->value.path, p("v2/config.txt"));
  EXPECT_TRUE(fs::is_symlink(p("config.txt")));
  EXPECT_EQ(get(p("v2/config.txt")), "new");
  EXPECT_EQ(mode_of(p("v2/config.txt")), 0600u);
}

TEST_F(FileToolsTest, WriteToProtectedAndLockedPathsAsks) {
  // FILE-6
  for (const char* rel :
       {".envrc", ".vscode/settings.json", "sub/Makefile", ".git/hooks/pre-commit"}) {
    auto r = files::write_file(ctx_, {.path = rel, .content = "x"});
    ASSERT_TRUE(r.ok()) << rel << ": " << r.error().message;
    ASSERT_TRUE(r->asked()) << rel;
    EXPECT_EQ(r->ask->kind, AskKind::kProtectedWrite) << rel;
    EXPECT_FALSE(fs::exists(p(rel))) << rel;
    r = files::write_file(ctx_, {.path = rel, .content = "x", .approved = r->ask});
    ASSERT_TRUE(r.ok()) << rel << ": " << r.error().message;
    EXPECT_FALSE(r->asked());
    EXPECT_EQ(get(p(rel)), "x") << rel;
  }
}

TEST_F(FileToolsTest, WriteReplacesAFileOver16MiB) {
  // FILE-2: write_file keeps nothing of the old file.
  sparse(p("big.bin"), 17 * 1024 * 1024);
  auto r = files::write_file(ctx_, {.path = "big.bin", .content = "small now"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(get(p("big.bin")), "small now");
}

// ---- edit_file ----

TEST_F(FileToolsTest, EditWithZeroOneAndTwoMatches) {
  put(p("a.cc"), "f();\ng();\nf();\n", 0640);
  auto r = files::edit_file(ctx_, {.path = "a.cc", .old_text = "h();", .new_text = "k();"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorKind::kInvalid);
  EXPECT_NE(r.error().message.find("not found in a.cc"), std::string::npos);
  r = files::edit_file(ctx_, {.path = "a.cc", .old_text = "f();", .new_text = "k();"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("occurs 2 times in a.cc"), std::string::npos);
  EXPECT_EQ(get(p("a.cc")), "f();\ng();\nf();\n");  // unchanged by the failed edits
  r = files::edit_file(ctx_, {.path = "a.cc", .old_text = "g();", .new_text = "G();"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->value.replacements, 1u);
  EXPECT_EQ(get(p("a.cc")), "f();\nG();\nf();\n");
  r = files::edit_file(
      ctx_, {.path = "a.cc", .old_text = "f();", .new_text = "k();", .replace_all = true});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value.replacements, 2u);
  EXPECT_EQ(get(p("a.cc")), "k();\nG();\nk();\n");
  EXPECT_EQ(mode_of(p("a.cc")), 0640u);
}

TEST_F(FileToolsTest, EditOfACredentialAsks) {
  // FILE-4: an edit's match or miss would tell the file's contents.
  put(p(".env"), "A=1\n");
  auto r = files::edit_file(ctx_, {.path = ".env", .old_text = "A=1", .new_text = "A=2"});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->asked());
  EXPECT_EQ(r->ask->kind, AskKind::kCredentialRead);
  EXPECT_EQ(get(p(".env")), "A=1\n");
  r = files::edit_file(ctx_,
                       {.path = ".env", .old_text = "A=1", .new_text = "A=2", .approved = r->ask});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(get(p(".env")), "A=2\n");
}

// ---- search ----

TEST_F(FileToolsTest, SearchFindsMatchesAndCountsWhatItSkipped) {
  BlockGuard guard;
  put(p("src/a.cc"), "int x;\nneedle();\n");
  put(p("src/b.cc"), "nothing here\n");
  put(p("docs/guide.md"), "# Needle\nthe needle again\n");
  // FILE-4: four credential files, never opened.
  put(p(".env"), "needle\n");
  put(p("certs/server.pem"), "needle\n");
  put(p(".secrets/token"), "needle\n");
  put(p(".secrets/deep/db.txt"), "needle\n");
  // FILE-2: one file over 16 MiB.
  sparse(p("huge.log"), 17 * 1024 * 1024);
  // Binary, heavy folders, a cache-tagged folder, a hidden folder, links and a FIFO.
  put(p("blob.bin"), std::string("needle\0", 7));
  put(p("node_modules/pkg/index.js"), "needle\n");
  put(p(".git/objects/x"), "needle\n");
  put(p("target/CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55\n");
  put(p("target/debug/out.txt"), "needle\n");
  put(p("private/notes.txt"), "needle\n");
  put(outside_ + "/o.txt", "needle\n");
  ASSERT_EQ(::symlink((outside_ + "/o.txt").c_str(), p("outlink").c_str()), 0);
  ASSERT_EQ(::symlink("src/a.cc", p("inlink").c_str()), 0);
  ASSERT_EQ(::mkfifo(p("pipe").c_str(), 0644), 0);

  // The default root is the project, wherever the cwd is.
  ctx_.cwd = p("src");
  auto r = files::search(ctx_, {.pattern = "needle"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->matches.size(), 2u);
  EXPECT_EQ(r->matches[0].path, "docs/guide.md");
  EXPECT_EQ(r->matches[0].line, 2u);
  EXPECT_EQ(r->matches[0].text, "the needle again");
  EXPECT_EQ(r->matches[1].path, "src/a.cc");
  EXPECT_EQ(r->matches[1].line, 2u);
  EXPECT_EQ(r->credential_files_skipped, 4u);
  EXPECT_EQ(r->large_files_skipped, 1u);
  EXPECT_EQ(r->binary_files_skipped, 1u);
  EXPECT_EQ(r->hidden_paths_skipped, 1u);
  EXPECT_EQ(r->files_searched, 3u);  // a.cc, b.cc, guide.md
  EXPECT_FALSE(r->truncated);

  // Asked for by name, a heavy folder is searched (relative paths follow the cwd).
  ctx_.cwd = project_;
  r = files::search(ctx_, {.pattern = "needle", .path = "node_modules"});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->matches.size(), 1u);
  EXPECT_EQ(r->matches[0].path, "node_modules/pkg/index.js");
  // ignore_case, glob, fixed_string.
  r = files::search(ctx_, {.pattern = "needle", .ignore_case = true, .glob = "*.md"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->matches.size(), 2u);
  r = files::search(ctx_, {.pattern = "needle()", .fixed_string = true});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->matches.size(), 1u);
  EXPECT_EQ(r->matches[0].path, "src/a.cc");
}

TEST_F(FileToolsTest, SearchStopsAtMaxResults) {
  std::string text;
  for (int i = 0; i < 10; ++i) text += "hit " + std::to_string(i) + "\n";
  put(p("many.txt"), text);
  auto r = files::search(ctx_, {.pattern = "hit", .max_results = 3});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->matches.size(), 3u);
  EXPECT_TRUE(r->truncated);
  EXPECT_NE(r->truncated_reason.find("max_results"), std::string::npos);
  r = files::search(ctx_, {.pattern = "hit", .max_results = 10});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->matches.size(), 10u);
  EXPECT_FALSE(r->truncated);
}

TEST_F(FileToolsTest, SearchRefusesBadPatternsAndLinksOut) {
  put(p("a.txt"), "x\n");
  auto r = files::search(ctx_, {.pattern = "(unclosed"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorKind::kInvalid);
  ASSERT_EQ(::symlink(outside_.c_str(), p("ext").c_str()), 0);
  r = files::search(ctx_, {.pattern = "x", .path = "ext"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("leading out of the project, to " + outside_),
            std::string::npos);
  r = files::search(ctx_, {.pattern = "x", .path = "~/.ssh"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("hidden"), std::string::npos);
}

TEST_F(FileToolsTest, SearchOfACredentialFileCountsIt) {
  // FILE-4: search never asks; a credential file asked for by name is skipped and counted.
  put(p(".env"), "needle\n");
  auto r = files::search(ctx_, {.pattern = "needle", .path = ".env"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->matches.empty());
  EXPECT_EQ(r->credential_files_skipped, 1u);
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

// FILE-6 (issue 27): write_file makes no git-shaped folder (HEAD beside objects/ and refs/)
// without asking, whichever part comes last: `git --git-dir=g status` or `git -C g status`
// would then use it as a repository and run its config's core.fsmonitor.
TEST_F(FileToolsTest, AGitShapedFolderIsNotMadeWithoutAsking) {
  auto w = files::write_file(ctx_, {.path = "g/config", .content = "[core]\n\tfsmonitor = ./x\n"});
  ASSERT_TRUE(w.ok() && !w->asked());
  w = files::write_file(ctx_, {.path = "g/objects/info/packs", .content = ""});
  ASSERT_TRUE(w.ok() && !w->asked());
  w = files::write_file(ctx_, {.path = "g/refs/heads/main", .content = "0000\n"});
  ASSERT_TRUE(w.ok() && !w->asked());
  w = files::write_file(ctx_, {.path = "g/HEAD", .content = "ref: refs/heads/main\n"});
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w->asked());
  EXPECT_EQ(w->ask->kind, AskKind::kProtectedWrite);
  EXPECT_NE(w->ask->reason.find("git folder"), std::string::npos) << w->ask->reason;
  EXPECT_FALSE(fs::exists(p("g/HEAD")));
  // The other order: HEAD first, then the folders.
  ASSERT_TRUE(files::write_file(ctx_, {.path = "h/HEAD", .content = "x\n"}).ok());
  ASSERT_TRUE(files::write_file(ctx_, {.path = "h/refs/x", .content = "x\n"}).ok());
  w = files::write_file(ctx_, {.path = "h/objects/ab", .content = "x"});
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->asked());
  EXPECT_FALSE(fs::exists(p("h/objects/ab")));
  // Approved, it is written.
  Ask a = *w->ask;
  w = files::write_file(ctx_, {.path = "h/objects/ab", .content = "x", .approved = a});
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->asked());
  EXPECT_TRUE(fs::exists(p("h/objects/ab")));
}

}  // namespace
}  // namespace cordon
