// RES-2: the blocked-command note.
#include <gtest/gtest.h>

#include "fake_facts.h"
#include "plan/blocked_note.h"
#include "plan/planner.h"

namespace cordon {
namespace {

Plan sandbox_plan() {
  testing::FakeWorld w;
  Request r;
  r.argv = {"x"};
  return make_plan(w.policy, w.facts, r);
}

TEST(BlockedNote, ReadOnlyFileSystem) {  // RES-2
  auto n = blocked_note(sandbox_plan(), 1, "touch: cannot touch '/etc/x': Read-only file system\n");
  ASSERT_TRUE(n.has_value());
  EXPECT_NE(n->find("--outside-sandbox"), std::string::npos);
}

// LL-1: the Landlock backend's note names $TMPDIR and claims no read-only git files.
TEST(BlockedNote, LandlockNamesTmpdirAndNoLockedGitFiles) {  // RES-2, LL-1
  testing::FakeWorld w;
  Request r;
  r.argv = {"x"};
  PlanOptions po;
  po.backend = Backend::kLandlock;
  Plan p = make_plan(w.policy, w.facts, r, po);
  auto n = blocked_note(p, 1, "touch: cannot touch '/etc/x': Permission denied\n");
  ASSERT_TRUE(n.has_value());
  EXPECT_NE(n->find("$TMPDIR"), std::string::npos) << *n;
  EXPECT_EQ(n->find("git's hooks"), std::string::npos) << *n;
  auto b = blocked_note(sandbox_plan(), 1, "touch: cannot touch '/etc/x': Read-only file system\n");
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(b->find("/tmp are refused"), std::string::npos) << *b;
}

// LL-1: under Landlock a connection around the proxy fails with EACCES: the note says only
// proxied traffic leaves (as bubblewrap's ENETUNREACH does), not that Unix sockets are refused;
// without the proxy, that the loopback is closed too.
TEST(BlockedNote, LandlockConnectionRefusalIsTheNetwork) {  // RES-2, LL-1, NET-7
  testing::FakeWorld w;
  w.policy.network.allow = {"registry.npmjs.org"};
  Request r;
  r.argv = {"node", "x.js"};
  PlanOptions po;
  po.backend = Backend::kLandlock;
  po.proxy_port = 41234;
  po.proxy_password = "pw";
  Plan p = make_plan(w.policy, w.facts, r, po);
  for (const char* out : {"Error: connect EACCES 192.0.2.1:443 - Local (0.0.0.0:0)",
                          "curl: (7) Failed to connect to 192.0.2.1 port 443 after 0 ms: "
                          "Couldn't connect to server"}) {
    auto n = blocked_note(p, 1, out);
    ASSERT_TRUE(n.has_value()) << out;
    EXPECT_NE(n->find("only proxied traffic can leave"), std::string::npos) << *n;
    EXPECT_NE(n->find("127.0.0.1:41234"), std::string::npos) << *n;
    EXPECT_EQ(n->find("Unix-domain"), std::string::npos) << *n;
  }
  w.policy.network.allow.clear();
  po.proxy_port = 0;
  auto closed = blocked_note(make_plan(w.policy, w.facts, r, po), 1,
                             "Error: connect EACCES 127.0.0.1:8080 - Local (0.0.0.0:0)");
  ASSERT_TRUE(closed.has_value());
  EXPECT_NE(closed->find("the machine's loopback too"), std::string::npos) << *closed;
  // bubblewrap's: a denied connect is still a Unix socket's.
  auto bw = blocked_note(sandbox_plan(), 1, "Error: connect EACCES /run/docker.sock");
  ASSERT_TRUE(bw.has_value());
  EXPECT_NE(bw->find("Unix-domain"), std::string::npos) << *bw;
}

TEST(BlockedNote, NetworkRefusals) {  // RES-2
  for (const char* out :
       {"curl: (6) Could not resolve host: example.com", "connect: Network is unreachable",
        "Error: connect ENETUNREACH 192.0.2.1:80",  // Node
        "socket.gaierror: [Errno -3] Temporary failure in name resolution"}) {
    auto n = blocked_note(sandbox_plan(), 6, out);
    ASSERT_TRUE(n.has_value()) << out;
    EXPECT_NE(n->find("--network"), std::string::npos) << *n;
  }
}

TEST(BlockedNote, PermissionDeniedOutsideTheRootsOnly) {  // RES-2
  EXPECT_TRUE(blocked_note(sandbox_plan(), 1, "mkdir: cannot create directory '/opt/x': "
                                              "Permission denied")
                  .has_value());
  // A path inside the project: the command's own problem.
  EXPECT_FALSE(blocked_note(sandbox_plan(), 1, "bash: ./run.sh: Permission denied").has_value());
  EXPECT_FALSE(blocked_note(sandbox_plan(), 1,
                            "cp: cannot open '/home/u/proj/x' for reading: Permission denied")
                   .has_value());
}

TEST(BlockedNote, UnixSocketRefusal) {  // RES-2, NET-2
  auto n = blocked_note(sandbox_plan(), 1,
                        "Could not open a connection to your authentication agent.\n"
                        "socket: Operation not permitted");
  ASSERT_TRUE(n.has_value());
  EXPECT_NE(n->find("Unix-domain sockets"), std::string::npos);
}

TEST(BlockedNote, OrdinaryFailuresGetNoNote) {  // RES-2
  EXPECT_FALSE(blocked_note(sandbox_plan(), 2, "make: *** [Makefile:3: test] Error 1").has_value());
  EXPECT_FALSE(blocked_note(sandbox_plan(), 1, "AssertionError: 1 != 2").has_value());
  EXPECT_FALSE(blocked_note(sandbox_plan(), 0, "all good").has_value());
}

TEST(BlockedNote, SuccessWithRefusalOnLockedPath) {  // RES-2 exit 0
  auto n = blocked_note(sandbox_plan(), 0,
                        "error: could not lock config file /home/u/proj/.git/config: "
                        "Read-only file system");
  EXPECT_TRUE(n.has_value());
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

TEST(BlockedNote, GitConfigGetsAClearNote) {  // GIT-1, RES-2
  auto n = blocked_note(sandbox_plan(), 4,
                        "error: could not write config file .git/config: Device or resource busy");
  ASSERT_TRUE(n.has_value());
  EXPECT_NE(n->find("git config"), std::string::npos);
  EXPECT_NE(n->find("locked"), std::string::npos);
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

// RES-3: real refusals as the common runtimes print them, inside the fake home /home/u with the
// project /home/u/proj. `path` is the path the note must name ("" when the output names none),
// `entry` the `writable` line it must suggest ("" for a path outside the home).
struct RealRefusal {
  const char* who;
  const char* output;
  const char* path;
  const char* entry;
};

const RealRefusal kRealRefusals[] = {
    {"node", "Error: EROFS: read-only file system, open '/home/u/.npm/_cacache/tmp/1f2e3d'",
     "~/.npm/_cacache/tmp/1f2e3d", "~/.npm"},
    {"node", "Error: EACCES: permission denied, mkdir '/home/u/.config/yarn/global'",
     "~/.config/yarn/global", "~/.config/yarn"},
    {"node", "Error: EPERM: operation not permitted, rename '/opt/app/a' -> '/opt/app/b'",
     "/opt/app/a", ""},
    {"npm",
     "npm error code EROFS\nnpm error syscall open\nnpm error path "
     "/home/u/.npm/_cacache/tmp/6f3e\nnpm error errno -30\nnpm error rofs EROFS: read-only file "
     "system, open '/home/u/.npm/_cacache/tmp/6f3e'",
     "~/.npm/_cacache/tmp/6f3e", "~/.npm"},
    {"python", "PermissionError: [Errno 13] Permission denied: '/home/u/.cache/pip/http'",
     "~/.cache/pip/http", "~/.cache/pip"},
    {"python", "OSError: [Errno 30] Read-only file system: '/home/u/.local/share/jupyter/x'",
     "~/.local/share/jupyter/x", "~/.local/share/jupyter"},
    {"pip",
     "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: "
     "'/usr/local/lib/python3.11/dist-packages/six.py'\nConsider using the `--user` option or "
     "check the permissions.",
     "/usr/local/lib/python3.11/dist-packages/six.py", ""},
    {"go", "go: could not create module cache: mkdir /home/u/go: read-only file system", "~/go",
     "~/go"},
    {"go", "open /home/u/.cache/go-build/01/x-d: read-only file system", "~/.cache/go-build/01/x-d",
     "~/.cache/go-build"},
    {"rust", "Error: Os { code: 30, kind: ReadOnlyFilesystem, message: \"Read-only file system\" }",
     "", ""},
    {"cargo",
     "error: failed to open: /home/u/.cargo/registry/.package-cache\n\nCaused by:\n  Read-only "
     "file system (os error 30)",
     "~/.cargo/registry/.package-cache", "~/.cargo"},
    {"java",
     "java.nio.file.FileSystemException: /home/u/.m2/repository/junit: Read-only file system",
     "~/.m2/repository/junit", "~/.m2"},
    {"java", "java.nio.file.AccessDeniedException: /home/u/.gradle/caches/8.5",
     "~/.gradle/caches/8.5", "~/.gradle"},
    // RES-3 (issue 28): a file right in the home folder gets no `writable` advice.
    {"c", "touch: cannot touch '/home/u/.bashrc': Read-only file system", "~/.bashrc", ""},
    {"sh", "sh: 1: cannot create /home/u/outside.txt: Read-only file system", "~/outside.txt", ""},
    {"sh", "/bin/sh: 1: cannot create /home/u/.sometool/state: Read-only file system",
     "~/.sometool/state", "~/.sometool"},
    {"c", "mkdir: cannot create directory ‘/srv/data’: Permission denied", "/srv/data", ""},
    {"c", "mkdir: cannot create directory '/srv/data': Operation not permitted", "/srv/data", ""},
    {"git", "fatal: could not create leading directories of '/srv/repo': Permission denied",
     "/srv/repo", ""},
    {"git", "error: could not lock config file /home/u/.gitconfig: Read-only file system",
     "~/.gitconfig", ""},
};

TEST(BlockedNote, RealRefusalsNameThePathAndTheSetting) {  // RES-3
  for (const auto& r : kRealRefusals) {
    auto n = blocked_note(sandbox_plan(), 1, r.output);
    ASSERT_TRUE(n.has_value()) << r.who << ": " << r.output;
    if (*r.path) {
      EXPECT_NE(n->find(std::string("The refused path: ") + r.path + "."), std::string::npos)
          << r.who << ": " << *n;
    }
    if (*r.entry) {
      std::string line = std::string("`writable = [\"") + r.entry + "\"]` under [sandbox] in";
      EXPECT_NE(n->find(line), std::string::npos) << r.who << ": " << *n;
      EXPECT_NE(n->find("~/.config/cordon/config.toml"), std::string::npos) << *n;
      // The setting comes before the ways out.
      EXPECT_LT(n->find("writable = "), n->find("--outside-sandbox")) << *n;
    } else {
      EXPECT_EQ(n->find("writable = "), std::string::npos) << r.who << ": " << *n;
    }
  }
}

TEST(BlockedNote, RefusalSpellingsAreCaseInsensitive) {  // RES-3
  for (const char* out : {"write /home/u/.x: READ-ONLY FILE SYSTEM", "erofs: /home/u/.x",
                          "Eacces /home/u/.x", "PERMISSION DENIED: '/home/u/.x'"}) {
    auto n = blocked_note(sandbox_plan(), 1, out);
    ASSERT_TRUE(n.has_value()) << out;
    EXPECT_NE(n->find("~/.x"), std::string::npos) << *n;
  }
}

TEST(BlockedNote, DeniedInsideTheRootsStillGetsNoNote) {  // RES-3, RES-2
  EXPECT_FALSE(blocked_note(sandbox_plan(), 1,
                            "Error: EACCES: permission denied, open '/home/u/proj/locked.txt'")
                   .has_value());
  EXPECT_FALSE(
      blocked_note(sandbox_plan(), 1, "PermissionError: [Errno 13] Permission denied: 'out.txt'")
          .has_value());
}

}  // namespace
}  // namespace cordon
