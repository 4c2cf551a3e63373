// Issue 15 item 5: run_process's record of its own children (used to tell another command's
// processes from escaped ones, NET-4) is undone whatever way a command ends. A refused command
// gives its started bwrap up before it runs anything (a StartedProcess dropped unwaited), a
// path that used to leave its pid recorded: in a long-running server a reused pid could then
// hide an escaped process.
#include <gtest/gtest.h>
#include <signal.h>

#include "process/process.h"

namespace cordon {
namespace {

ProcessSpec sleeper() {
  ProcessSpec s;
  s.path = "/bin/sleep";
  s.argv = {"sleep", "5"};
  s.env.set("PATH", "/usr/bin:/bin");
  s.out = OutputMode::kCapture;
  s.err = OutputMode::kCapture;
  return s;
}

TEST(ProcessRegistration, AGivenUpStartLeavesNothingRecorded) {  // NET-4, PROC-3
  size_t before = registered_children();
  ProcessSpec s = sleeper();
  pid_t pid = -1;
  {
    auto started = spawn_process(s);  // what a refused sandboxed command does: given up
    ASSERT_TRUE(started.ok()) << started.error().message;
    pid = started->pid();
    EXPECT_EQ(registered_children(), before + 1);
  }
  EXPECT_EQ(registered_children(), before);
  EXPECT_NE(::kill(pid, 0), 0) << "the given-up process was killed and collected";
}

TEST(ProcessRegistration, ExecFailureAndNormalEndLeaveNothingRecorded) {  // NET-4
  size_t before = registered_children();
  ProcessSpec s = sleeper();
  s.path = "/nonexistent/program";
  EXPECT_FALSE(run_process(s).ok());
  EXPECT_EQ(registered_children(), before);
  s = sleeper();
  s.argv = {"sleep", "0"};
  auto r = run_process(s);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(registered_children(), before);
}

}  // namespace
}  // namespace cordon
