// Which questions a command needs before it runs (APR-1, APR-3, CMD-4, CMD-6), and approvals
// made in advance by the user when starting a face (`cordon mcp --allow-network`).
#include "approval/exec_gate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>

#include "approval/approver.h"

namespace cordon {
namespace {

CommandVerdict verdict(CommandVerdict::Class c) { return CommandVerdict{c, "the rule"}; }

std::vector<AskKind> kinds(const ExecGate& g) {
  std::vector<AskKind> out;
  for (const auto& a : g.asks) out.push_back(a.kind);
  return out;
}

TEST(ExecGate, SandboxedCommandsRunWithoutAsking) {  // APR-1
  for (auto c : {CommandVerdict::kReadOnly, CommandVerdict::kNeedsApproval}) {
    ExecGateInput in{.mode = SandboxMode::kOn, .command = "make test"};
    in.verdict = verdict(c);
    ExecGate g = gate_exec(in);
    EXPECT_FALSE(g.refusal);
    EXPECT_TRUE(g.asks.empty());
    EXPECT_FALSE(g.unconfined);
  }
  // Unclassified: nothing asked either.
  EXPECT_TRUE(gate_exec(ExecGateInput{.mode = SandboxMode::kOn, .command = "x"}).asks.empty());
}

TEST(ExecGate, DeniedIsRefusedEverywhereBeforeAnyQuestion) {  // CMD-4
  for (auto mode : {SandboxMode::kOn, SandboxMode::kOff, SandboxMode::kExternal})
    for (bool outside : {false, true}) {
      ExecGateInput in{.mode = mode, .command = "mkfs /dev/sda", .outside_sandbox = outside};
      in.verdict = verdict(CommandVerdict::kDenied);
      ExecGate g = gate_exec(in);
      ASSERT_TRUE(g.refusal);
      EXPECT_NE(g.refusal->find("mkfs /dev/sda"), std::string::npos);
      EXPECT_NE(g.refusal->find("the rule"), std::string::npos);
      EXPECT_TRUE(g.asks.empty());
    }
}

TEST(ExecGate, WaysOutAsk) {  // APR-1, NET-3, NET-4
  ExecGateInput in{
      .mode = SandboxMode::kOn, .command = "npm install", .network = true, .reason = "deps"};
  ExecGate g = gate_exec(in);
  ASSERT_EQ(kinds(g), std::vector<AskKind>{AskKind::kNetwork});
  EXPECT_EQ(g.asks[0].command, "npm install");
  EXPECT_EQ(g.asks[0].reason, "deps");
  EXPECT_FALSE(g.unconfined);

  in = ExecGateInput{.mode = SandboxMode::kOn, .command = "docker ps", .outside_sandbox = true};
  in.verdict = verdict(CommandVerdict::kNeedsApproval);
  g = gate_exec(in);
  // APR-3: one question, as outside_sandbox; the person sees the command in it.
  EXPECT_EQ(kinds(g), std::vector<AskKind>{AskKind::kOutsideSandbox});
  EXPECT_TRUE(g.unconfined);
  // Both ways out: outside_sandbox covers the network too.
  in.network = true;
  EXPECT_EQ(kinds(gate_exec(in)), std::vector<AskKind>{AskKind::kOutsideSandbox});
}

TEST(ExecGate, WaysOutTypedByThePersonAreNotAskedAgain) {  // APR-7 (CLI)
  ExecGateInput in{
      .mode = SandboxMode::kOn, .command = "x", .network = true, .ways_out_approved = true};
  EXPECT_TRUE(gate_exec(in).asks.empty());
  in = ExecGateInput{
      .mode = SandboxMode::kOn, .command = "x", .outside_sandbox = true, .ways_out_approved = true};
  in.verdict = verdict(CommandVerdict::kNeedsApproval);
  EXPECT_TRUE(gate_exec(in).asks.empty());
}

TEST(ExecGate, ExternalModeAsksForNeedsApproval) {  // APR-1, MODE-3
  ExecGateInput in{.mode = SandboxMode::kExternal, .command = "rm -rf build"};
  in.verdict = verdict(CommandVerdict::kNeedsApproval);
  ExecGate g = gate_exec(in);
  ASSERT_EQ(kinds(g), std::vector<AskKind>{AskKind::kCommand});
  EXPECT_NE(g.asks[0].reason.find("no sandbox"), std::string::npos);
  EXPECT_NE(g.asks[0].reason.find("the rule"), std::string::npos);
  EXPECT_TRUE(g.unconfined);
  in.verdict = verdict(CommandVerdict::kReadOnly);
  EXPECT_TRUE(gate_exec(in).asks.empty());
  // MODE-3: there are no ways out to ask for; the command question stays.
  in.verdict = verdict(CommandVerdict::kNeedsApproval);
  in.network = true;
  in.outside_sandbox = true;
  EXPECT_EQ(kinds(gate_exec(in)), std::vector<AskKind>{AskKind::kCommand});
}

TEST(ExecGate, OffModeAsksNothing) {  // MODE-2
  ExecGateInput in{.mode = SandboxMode::kOff,
                   .command = "rm -rf build",
                   .network = true,
                   .outside_sandbox = true};
  in.verdict = verdict(CommandVerdict::kNeedsApproval);
  ExecGate g = gate_exec(in);
  EXPECT_TRUE(g.asks.empty());
  EXPECT_TRUE(g.unconfined);
}

class FixedClock : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override { return {}; }
};

class CountingAsker : public Asker {
 public:
  PersonAnswer ask(const Question&) override {
    ++asked;
    return {Reply::kDeny, ""};
  }
  int asked = 0;
};

TEST(ApproverPreapproved, ApprovedWithoutAQuestionEvenWhileAway) {
  FixedClock clock;
  CountingAsker asker;
  ApproverConfig c;
  c.preapproved = {AskKind::kNetwork, AskKind::kOutsideSandbox};
  Approver a(c, clock, nullptr, &asker);
  ASSERT_TRUE(a.set_away(true).ok());
  Decision d = a.ask(make_request(AskKind::kNetwork, "npm ci", std::nullopt, ""));
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kPreapproved);
  EXPECT_EQ(asker.asked, 0);
  // Other kinds still ask (refused here: away).
  EXPECT_FALSE(a.ask(make_request(AskKind::kCommand, "x", std::nullopt, "")).allowed);
  // APR-3: outside_sandbox is never approved in advance.
  ASSERT_TRUE(a.set_away(false).ok());
  d = a.ask(make_request(AskKind::kOutsideSandbox, "x", std::nullopt, ""));
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(asker.asked, 1);
}

TEST(ApproverPreapproved, EscapeNeverStillRefuses) {  // NET-5
  FixedClock clock;
  ApproverConfig c;
  c.escape = EscapeMode::kNever;
  c.preapproved = {AskKind::kNetwork};
  Approver a(c, clock, nullptr, nullptr);
  Decision d = a.ask(make_request(AskKind::kNetwork, "x", std::nullopt, ""));
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kEscapeNever);
}

}  // namespace
}  // namespace cordon
