// Which approvals a command needs before it runs (APR-1, APR-3, CMD-4, CMD-6, NET-3, NET-4),
// decided from the mode, the request and the command policy's verdict. Pure: the faces and the
// library's Session run the asks it lists through the Approver, in order, and refuse at the
// first one that is not allowed.
//
//   ExecGateInput in{.mode = policy.mode, .command = "npm install", .network = true};
//   in.verdict = CommandVerdict{CommandVerdict::kNeedsApproval, "npm is not read-only"};
//   ExecGate g = gate_exec(in);
//   // g.refusal empty; g.asks == {ApprovalRequest{kNetwork, "npm install", ...}}
//
// The reading of APR-1 written down here: a sandboxed command runs without asking, whatever
// the command policy says short of "denied" (the sandbox is the guard). A command the policy
// marks as needing approval asks when it would run with no sandbox in mode "external" (MODE-3
// keeps the command policy and the approvals). Mode "off" (MODE-2) is the user switching
// cordon's guards off: nothing is asked there. An outside_sandbox request asks once, as
// outside_sandbox (APR-3): the person sees the command in that question, so it is not asked
// again as a command. "denied" is refused in every mode (CMD-4), before any question.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/policy.h"
#include "cordon/approval.h"
#include "cordon/violation.h"

namespace cordon {

// The command policy's verdict on a command line (CMD-6), in the words the gate needs.
struct CommandVerdict {
  enum Class { kReadOnly, kNeedsApproval, kDenied };
  Class cls = kNeedsApproval;
  std::string reason;  // the classifier's sentence, naming the word and the rule
};

struct ExecGateInput {
  SandboxMode mode = SandboxMode::kOn;
  std::string command{};  // the command line as a person reads it, for the questions
  bool network = false;
  bool outside_sandbox = false;
  // The person asked for the ways out directly (the CLI's --network and --outside-sandbox
  // typed on the command line): they are approved and not asked again.
  bool ways_out_approved = false;
  // The caller's reason, shown with the question; empty: the gate writes one.
  std::string reason{};
  // The rest of the request, carried by every question so that a grant covers exactly it (APR).
  std::optional<std::string> cwd{};         // the working folder
  std::optional<std::string> stdin_data{};  // the standard input, when one is given
  bool argv_form = false;                   // `command` renders an argv (no shell)
  // nullopt: the command was not classified; nothing is refused or asked for it.
  std::optional<CommandVerdict> verdict{};
};

struct ExecGate {
  // A denied command (CMD-4): refused before any question. The message is for the agent.
  std::optional<std::string> refusal;
  std::optional<api::Violation> violation;  // AUD-2: the refusal's kind, rule and fix
  // Every question that must be allowed before the command runs, in order.
  std::vector<ApprovalRequest> asks;
  // The command runs unconfined (mode off/external, or outside_sandbox in mode on).
  bool unconfined = false;
};

ExecGate gate_exec(const ExecGateInput& in);

}  // namespace cordon
