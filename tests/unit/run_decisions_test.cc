// Session::run's decisions that need no host (issue 15 item 4), tested without a session.
#include "plan/run_decisions.h"

#include <gtest/gtest.h>

#include "fake_facts.h"
#include "plan/leftover_record.h"
#include "plan/planner.h"

namespace cordon {
namespace {

using testing::FakeWorld;

Refusal r(ErrorKind kind) { return Refusal{kind, std::string(to_string(kind)) + " message"}; }

TEST(RunDecisions, TheCommandPolicyIsNamedFirstWhateverWasFoundFirst) {  // CMD-4, MODE-4, SES-3
  RefusalCandidates c;
  c.sandboxed = true;
  c.probe = r(ErrorKind::kUnavailable);
  EXPECT_EQ(first_refusal(c)->reason, ErrorKind::kUnavailable);
  c.hold = r(ErrorKind::kHeld);
  EXPECT_EQ(first_refusal(c)->reason, ErrorKind::kHeld);
  c.plan = r(ErrorKind::kConfig);
  EXPECT_EQ(first_refusal(c)->reason, ErrorKind::kConfig);
  c.command_policy = r(ErrorKind::kRefused);
  EXPECT_EQ(first_refusal(c)->reason, ErrorKind::kRefused);
  EXPECT_FALSE(first_refusal(RefusalCandidates{}));
}

TEST(RunDecisions, HoldsAndTheProbeOnlyStopSandboxedCommands) {  // SES-3, MODE-4, NET-4
  RefusalCandidates c;
  c.hold = r(ErrorKind::kHeld);
  c.probe = r(ErrorKind::kUnavailable);
  c.sandboxed = false;
  EXPECT_FALSE(first_refusal(c));
  c.plan = r(ErrorKind::kInvalid);
  EXPECT_EQ(first_refusal(c)->reason, ErrorKind::kInvalid);
}

TEST(RunDecisions, StartNoticesComposedOnce) {  // ENV-4, FS-7
  Plan p;
  p.mode = SandboxMode::kOn;
  p.notices = {"~/.ssh stays visible"};
  p.warnings = {"writable path ~/x does not exist; skipped."};
  p.stripped = {"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"};
  auto n = start_notices(p, true, {"unknown key"});
  ASSERT_EQ(n.size(), 4u);
  EXPECT_EQ(n[0], "~/.ssh stays visible");
  EXPECT_EQ(n[1], "warning: writable path ~/x does not exist; skipped.");
  EXPECT_EQ(n[2], "warning: unknown key");
  EXPECT_EQ(n[3],
            "these variables are not available to commands: AWS_SECRET_ACCESS_KEY, "
            "GITHUB_TOKEN.");
  EXPECT_EQ(start_notices(p, false).size(), 2u);  // said once already
  p.mode = SandboxMode::kExternal;                // its own notice names them
  EXPECT_FALSE(strips_variables(p));
  EXPECT_EQ(start_notices(p, true).size(), 2u);
}

// ENV-4 (issue 28): under a coding agent, every command began with "these variables are not
// available to commands: ANTHROPIC_API_KEY": the agent's own key is left unsaid (still stripped).
TEST(RunDecisions, TheAgentsOwnKeyIsNotAnnounced) {
  Plan p;
  p.mode = SandboxMode::kOn;
  p.stripped = {"ANTHROPIC_API_KEY"};
  EnvMap claude;
  claude.set("CLAUDECODE", "1");
  EXPECT_TRUE(start_notices(p, true, {}, agents_own_keys(claude)).empty());
  p.stripped = {"ANTHROPIC_API_KEY", "GITHUB_TOKEN"};
  auto n = start_notices(p, true, {}, agents_own_keys(claude));
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0], "these variables are not available to commands: GITHUB_TOKEN.");
  // Another agent's key, or none: said.
  EnvMap gemini;
  gemini.set("GEMINI_CLI", "1");
  EXPECT_EQ(start_notices(p, true, {}, agents_own_keys(gemini))[0],
            "these variables are not available to commands: ANTHROPIC_API_KEY, "
            "GITHUB_TOKEN.");
  EnvMap codex;
  codex.set("CODEX_THREAD_ID", "t1");
  EXPECT_EQ(agents_own_keys(codex), (std::vector<std::string>{"OPENAI_API_KEY", "CODEX_API_KEY"}));
  EXPECT_TRUE(agents_own_keys(EnvMap{}).empty());
}

// PROBE-4 (issue 28): under `codex sandbox`, cordon said "make ~/.cache/cordon writable by you"
// (it was: the outer sandbox made it read-only), then gave bwrap's netlink refusal as the
// command's own failure. The diagnosis names the outer sandbox and the way out.
TEST(RunDecisions, AnotherSandboxAroundCordonIsNamed) {
  EnvMap none;
  EXPECT_EQ(outer_sandbox_note(none, "", false), "");
  EXPECT_EQ(outer_sandbox_note(none, "bwrap: Creating new namespace failed", false), "");
  EnvMap codex;
  codex.set("CODEX_SANDBOX", "seatbelt");
  std::string n = outer_sandbox_note(codex, "", false);
  EXPECT_NE(n.find("inside another sandbox, Codex's own sandbox (CODEX_SANDBOX=seatbelt)"),
            std::string::npos)
      << n;
  EXPECT_NE(n.find("MCP server"), std::string::npos) << n;
  EnvMap net;
  net.set("CODEX_SANDBOX_NETWORK_DISABLED", "1");
  EXPECT_NE(outer_sandbox_note(net, "", false).find("CODEX_SANDBOX_NETWORK_DISABLED"),
            std::string::npos);
  EXPECT_NE(outer_sandbox_note(none,
                               "bwrap: loopback: Failed to create NETLINK_ROUTE socket: "
                               "Operation not permitted\n",
                               false)
                .find("refuses network sockets"),
            std::string::npos);
  EXPECT_NE(outer_sandbox_note(none, "", true).find("read-only (you own it)"), std::string::npos);
}

TEST(RunDecisions, TrackedMeansTrackedAtStartAndStillTracked) {  // PROT-3, SES-4
  FakeWorld w;
  w.facts.git.tracked = {".envrc", "Makefile", "new.sh"};
  ProtectedFact pf;
  pf.rel = ".github";
  pf.tracked = {".github/ci.yml", ".github/new.yml"};
  w.facts.protected_paths = {pf};
  Facts f = w.facts;
  keep_tracked_since_start(f, true, true, {".envrc", "Makefile", ".github/ci.yml", "gone"});
  EXPECT_EQ(f.git.tracked, (std::vector<std::string>{".envrc", "Makefile"}));
  EXPECT_EQ(f.protected_paths[0].tracked, std::vector<std::string>{".github/ci.yml"});
  Facts unknown = w.facts;  // the set could not be read at the start: nothing counts
  keep_tracked_since_start(unknown, true, false, {".envrc"});
  EXPECT_TRUE(unknown.git.tracked.empty());
  Facts ephemeral = w.facts;  // an ephemeral session takes what is tracked now
  keep_tracked_since_start(ephemeral, false, false, {});
  EXPECT_EQ(ephemeral.git.tracked.size(), 3u);
}

TEST(RunDecisions, ExitStatusMapping) {  // PROC-5, PROC-4
  ExitFacts f;
  f.exit_code = 3;
  EXPECT_EQ(exit_status(f).code, 3);
  f.signal = 9;
  f.exit_code = -1;
  EXPECT_EQ(exit_status(f).code, 137);
  EXPECT_EQ(exit_status(f).signal, 9);
  f = ExitFacts{};
  f.under_bwrap = true;
  f.exit_code = 0;
  f.bwrap_exit_code = 143;  // bwrap reports the command's signal death as 128+N
  EXPECT_EQ(exit_status(f).code, 143);
  EXPECT_EQ(exit_status(f).signal, 15);
  f.bwrap_exit_code.reset();
  f.exit_code = 2;
  EXPECT_EQ(exit_status(f).code, 2);
  EXPECT_EQ(exit_status(f).signal, 0);
  f.exit_code = -1;  // issue 30: bwrap killed (a job's KILL) before it reported a status
  f.signal = 9;
  EXPECT_EQ(exit_status(f).code, 137);
  EXPECT_EQ(exit_status(f).signal, 9);
  f.timed_out = true;
  EXPECT_EQ(exit_status(f).code, 124);
  f.timed_out = false;
  f.canceled = true;
  EXPECT_EQ(exit_status(f).code, 130);
  EXPECT_EQ(exit_status(f).signal, 2);
}

TEST(RunDecisions, BwrapsExecFailureIsExit127Or126) {  // RES-4
  const std::string held = "bwrap: execvp mak: No such file or directory\n";
  auto reason = bwrap_exec_reason(held, "mak");
  ASSERT_TRUE(reason);
  EXPECT_EQ(*reason, "No such file or directory");
  EXPECT_FALSE(bwrap_exec_reason(held, "make"));
  EXPECT_FALSE(bwrap_exec_reason("mak: not found\n", "mak"));
  ExecFailure nf = exec_failure("mak", *reason, false);
  EXPECT_EQ(nf.code, 127);
  EXPECT_EQ(nf.message, "mak: command not found");
  // execvp says "Permission denied" also when a folder on PATH could not be searched.
  EXPECT_EQ(exec_failure("mak", "Permission denied", false).code, 127);
  ExecFailure denied = exec_failure("./run.sh", "Permission denied", true);
  EXPECT_EQ(denied.code, 126);
  EXPECT_EQ(denied.message, "./run.sh: cannot run it (Permission denied)");
}

TEST(RunDecisions, TheLeftoverRecordNamesItsCommandAndOwner) {  // SES-2
  FakeWorld w;
  Request req;
  req.argv = {"make", "test"};
  Plan p = make_plan(w.policy, w.facts, req);
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  LeftoverOwner o{"1.2.3", "0123456789abcdef", w.project, 4000, 77, 1700000000, "boot"};
  LeftoverRecord rec = leftover_record(p, o);
  EXPECT_EQ(rec.version, kRecordVersion);
  EXPECT_EQ(rec.cordon_version, "1.2.3");
  EXPECT_EQ(rec.session, "0123456789abcdef");
  EXPECT_EQ(rec.project, w.project);
  EXPECT_TRUE(rec.sandboxed);
  EXPECT_EQ(rec.owner_pid, 4000);
  EXPECT_EQ(rec.owner_start, 77);
  EXPECT_EQ(rec.command, (std::vector<std::string>{"make", "test"}));
  EXPECT_EQ(rec.started, 1700000000);
  EXPECT_EQ(rec.boot_id, "boot");
  EXPECT_EQ(rec.pid, 0) << "not started yet";
  record_started(rec, 4321, 99);
  EXPECT_EQ(rec.pid, 4321);
  EXPECT_EQ(rec.pid_start, 99);
  EXPECT_EQ(rec.pgid, 4321);  // every command gets its own process group
  req.outside_sandbox = true;
  EXPECT_FALSE(leftover_record(make_plan(w.policy, w.facts, req), o).sandboxed);
}

}  // namespace
}  // namespace cordon
