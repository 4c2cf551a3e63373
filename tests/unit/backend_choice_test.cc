// The backend chosen at one place (MAC-5) and the Seatbelt launcher's pure half: the process it
// starts and the reading of sandbox-exec's own failure.
#include "backend/backend_choice.h"

#include <gtest/gtest.h>

#include "backend/macos/launcher.h"

namespace cordon {
namespace {

EnvMap env_of(std::vector<std::pair<std::string, std::string>> vars) {
  EnvMap e;
  e.vars = std::move(vars);
  return e;
}

TEST(BackendChoice, EachSystemHasItsOwn) {  // MAC-5
  auto linux_ = choose_backend(env_of({}), false);
  ASSERT_TRUE(linux_.ok());
  EXPECT_EQ(linux_->backend, Backend::kBwrap);
  EXPECT_FALSE(linux_->forced);
  EXPECT_EQ(linux_->sandbox_exec, "");
  auto mac = choose_backend(env_of({}), true);
  ASSERT_TRUE(mac.ok());
  EXPECT_EQ(mac->backend, Backend::kSeatbelt);
  EXPECT_EQ(mac->sandbox_exec, "/usr/bin/sandbox-exec");
  EXPECT_EQ(backend_title(*linux_), "bubblewrap (Linux)");
}

TEST(BackendChoice, SeatbeltCanBeForcedAnywhere) {  // MAC-5
  auto c = choose_backend(env_of({{"CORDON_BACKEND", "seatbelt"}}), false);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->backend, Backend::kSeatbelt);
  EXPECT_TRUE(c->forced);
  EXPECT_EQ(c->sandbox_exec, "/usr/bin/sandbox-exec");
  EXPECT_FALSE(c->stand_in);
  // On a Mac (and in the macOS build) Seatbelt is the backend anyway: nothing to name.
  EXPECT_EQ(backend_title(*c).find("forced by CORDON_BACKEND") != std::string::npos, !kOnMacos);
}

TEST(BackendChoice, StandInOnlyWithSeatbeltForced) {  // MAC-5
  auto forced = choose_backend(
      env_of({{"CORDON_BACKEND", "seatbelt"}, {"CORDON_SANDBOX_EXEC", "/t/fake-sandbox-exec"}}),
      false);
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->sandbox_exec, "/t/fake-sandbox-exec");
  EXPECT_TRUE(forced->stand_in);
  EXPECT_FALSE(forced->stand_in_ignored);
  EXPECT_NE(backend_title(*forced).find("/t/fake-sandbox-exec (CORDON_SANDBOX_EXEC)"),
            std::string::npos);
  // Never silently instead of bwrap, nor instead of the real sandbox-exec on a Mac.
  for (bool mac : {false, true}) {
    auto stray = choose_backend(env_of({{"CORDON_SANDBOX_EXEC", "/t/fake-sandbox-exec"}}), mac);
    ASSERT_TRUE(stray.ok());
    EXPECT_FALSE(stray->stand_in);
    EXPECT_TRUE(stray->stand_in_ignored);
    EXPECT_NE(stray->sandbox_exec, "/t/fake-sandbox-exec");
  }
}

TEST(BackendChoice, BadValuesAreClearErrors) {  // MAC-5
  auto bad = choose_backend(env_of({{"CORDON_BACKEND", "docker"}}), false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("CORDON_BACKEND=docker"), std::string::npos);
  EXPECT_NE(bad.error().message.find("seatbelt or bwrap"), std::string::npos);
  auto bwrap_on_mac = choose_backend(env_of({{"CORDON_BACKEND", "bwrap"}}), true);
  ASSERT_FALSE(bwrap_on_mac.ok());
  EXPECT_NE(bwrap_on_mac.error().message.find("unset CORDON_BACKEND"), std::string::npos);
  auto relative = choose_backend(
      env_of({{"CORDON_BACKEND", "seatbelt"}, {"CORDON_SANDBOX_EXEC", "fake"}}), false);
  ASSERT_FALSE(relative.ok());
  EXPECT_NE(relative.error().message.find("CORDON_SANDBOX_EXEC=fake"), std::string::npos);
  auto bwrap = choose_backend(env_of({{"CORDON_BACKEND", "bwrap"}}), false);
  ASSERT_TRUE(bwrap.ok());
  EXPECT_EQ(bwrap->backend, Backend::kBwrap);
}

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
