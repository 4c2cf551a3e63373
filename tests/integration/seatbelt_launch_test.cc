// The Seatbelt launcher's pure half (launch/seatbelt_spec.cc, MAC-5): the process it starts
// and the reading of sandbox-exec's own failure. In library_tests: the launch layer is above
// the pure archive the unit tests link.
#include <gtest/gtest.h>

#include "launch/seatbelt_launcher.h"

namespace cordon {
namespace {

TEST(SeatbeltLaunch, ProcessIsSandboxExecWithTheProfileAndThePlan) {  // MAC-1, MAC-5, ENV-5
  Plan plan;
  plan.runner = Runner::kSandbox;
  plan.argv = {"make", "test"};
  plan.cwd = "/p";
  plan.env.set("PATH", "/usr/bin:/bin");
  plan.env.set("TMPDIR", "/c/sandbox-tmp/s");
  plan.limits.open_files = 64;
  plan.timeout = std::chrono::milliseconds(5000);
  LaunchIo io;
  io.out = OutputMode::kCapture;
  io.cancel_fd = 17;
  ProcessSpec s = seatbelt_process_spec(plan, "(version 1)\n(deny default)\n", "/x/sb", io);
  EXPECT_EQ(s.path, "/x/sb");
  EXPECT_EQ(s.argv, (std::vector<std::string>{"/x/sb", "-p", "(version 1)\n(deny default)\n", "--",
                                              "make", "test"}));
  EXPECT_EQ(s.env.vars, plan.env.vars);  // nothing of cordon's own environment
  EXPECT_EQ(s.cwd, "/p");
  EXPECT_TRUE(s.new_process_group);
  EXPECT_TRUE(s.end_group_on_exit);
  EXPECT_EQ(s.limits.open_files, 64u);
  EXPECT_EQ(s.timeout, plan.timeout);
  EXPECT_EQ(s.out, OutputMode::kCapture);
  EXPECT_EQ(s.cancel_fd, 17);
  EXPECT_EQ(s.bwrap_status_fd, -1);
}

TEST(SeatbeltLaunch, ApplyFailureIsSandboxExecsOwnWordsOnly) {  // MAC-5, PROBE-4
  EXPECT_EQ(seatbelt_apply_failure(71, "sandbox-exec: sandbox_apply: Operation not permitted\n"),
            "sandbox-exec: sandbox_apply: Operation not permitted");
  EXPECT_EQ(seatbelt_apply_failure(65, "x\nsandbox-exec: unbound variable: foo\n"),
            "sandbox-exec: unbound variable: foo");
  // The command's own exit codes, or words without that exit code, are the command's.
  EXPECT_EQ(seatbelt_apply_failure(65, "make: *** error\n"), std::nullopt);
  EXPECT_EQ(seatbelt_apply_failure(1, "sandbox-exec: whatever\n"), std::nullopt);
  EXPECT_EQ(seatbelt_apply_failure(0, ""), std::nullopt);
}

}  // namespace
}  // namespace cordon
