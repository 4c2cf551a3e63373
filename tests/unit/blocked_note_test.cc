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

TEST(BlockedNote, NetworkRefusals) {  // RES-2
  for (const char* out : {"curl: (6) Could not resolve host: example.com",
                          "connect: Network is unreachable",
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
