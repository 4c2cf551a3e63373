// AUD-2: a refusal before anything ran carries its violation, made from the refusal's own words:
// the command policy's denial (CMD-4) and the approver's refused questions (APR, FILE-4..6).
#include "approval/refusal_violation.h"

#include <gtest/gtest.h>

#include "approval/exec_gate.h"

namespace cordon {
namespace {

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(RefusalViolation, TheCommandPolicysDenialIsAPolicyViolation) {  // AUD-2, CMD-4
  ExecGateInput in{.mode = SandboxMode::kOn, .command = "mkfs /dev/sda"};
  in.verdict = CommandVerdict{CommandVerdict::kDenied, "mkfs formats a disk"};
  ExecGate g = gate_exec(in);
  ASSERT_TRUE(g.refusal);
  ASSERT_TRUE(g.violation);
  EXPECT_EQ(g.violation->kind, "policy");
  EXPECT_EQ(g.violation->source, "cordon");
  EXPECT_EQ(g.violation->rule, "the command policy denies it (mkfs formats a disk)");
  // The message is made of the violation's words: one wording, not two copies.
  EXPECT_EQ(*g.refusal,
            "`mkfs /dev/sda` was refused: the command policy denies it (mkfs formats a disk). Do "
            "not retry it in another form; carry on without it, and name the skipped step in "
            "your final report.");
  EXPECT_EQ(as_sentence(g.violation->fix),
            "Do not retry it in another form; carry on without it, and name the skipped step in "
            "your final report.");
  // Nothing refused, no violation.
  in.verdict = CommandVerdict{CommandVerdict::kNeedsApproval, "x"};
  EXPECT_FALSE(gate_exec(in).violation);
}

TEST(RefusalViolation, FixesAndSentencesConvert) {  // AUD-2
  EXPECT_EQ(as_fix("Carry on without it."), "carry on without it");
  EXPECT_EQ(as_fix("NET-5 says so."), "NET-5 says so");  // an initialism keeps its case
  EXPECT_EQ(as_sentence("carry on"), "Carry on.");
  EXPECT_EQ(as_sentence(""), "");
}

Decision refused(Basis b, std::string rule, std::string fix) {
  Decision d;
  d.allowed = false;
  d.basis = b;
  d.rule = std::move(rule);
  d.fix = std::move(fix);
  d.message = "whatever the approver said";
  return d;
}

TEST(RefusalViolation, ARefusedQuestionNamesWhatItAskedFor) {  // AUD-2, APR-4, FILE-5
  ApprovalRequest w;
  w.kind = AskKind::kWriteOutside;
  w.path = "/etc/x";
  auto v = answer_violation(w, refused(Basis::kAway, "the user is away and cannot approve it",
                                       "Keep going with what needs no approval."));
  EXPECT_EQ(v.kind, "write");
  EXPECT_EQ(v.path, "/etc/x");
  EXPECT_EQ(v.host, "");
  EXPECT_TRUE(has(v.rule, "outside the project")) << v.rule;
  EXPECT_TRUE(has(v.rule, "the user is away")) << v.rule;
  EXPECT_EQ(v.fix, "keep going with what needs no approval");
  EXPECT_EQ(v.source, "cordon");

  ApprovalRequest h;
  h.kind = AskKind::kNetworkHost;
  h.host = "example.invalid:443";
  v = answer_violation(h, refused(Basis::kUser, "the user denied it", "Do not retry it."));
  EXPECT_EQ(v.kind, "network");
  EXPECT_EQ(v.host, "example.invalid:443");

  for (auto [k, kind] : {std::pair{AskKind::kNetwork, "network"},
                         std::pair{AskKind::kOutsideSandbox, "outside_sandbox"},
                         std::pair{AskKind::kCredentialRead, "read"},
                         std::pair{AskKind::kProtectedWrite, "write"},
                         std::pair{AskKind::kCommand, "policy"}}) {
    ApprovalRequest r;
    r.kind = k;
    EXPECT_EQ(answer_violation(r, refused(Basis::kTimeout, "r", "f")).kind, kind);
  }
}

}  // namespace
}  // namespace cordon
