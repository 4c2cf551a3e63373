#include "approval/exec_gate.h"

#include <fmt/format.h>

#include "approval/refusal_violation.h"
#include "approval/request.h"

namespace cordon {

ExecGate gate_exec(const ExecGateInput& in) {
  ExecGate g;
  const bool sandbox_mode = in.mode == SandboxMode::kOn;
  // MODE-2, MODE-3: with no sandbox there is nothing to get out of; the ways out do not exist
  // and the command runs unconfined anyway.
  const bool outside = sandbox_mode && in.outside_sandbox;
  const bool network = sandbox_mode && in.network && !outside;
  g.unconfined = !sandbox_mode || outside;
  if (in.verdict && in.verdict->cls == CommandVerdict::kDenied) {
    g.violation = policy_violation(in.verdict->reason);  // AUD-2: the message's own words
    g.refusal = fmt::format("`{}` was refused: {}. {}", in.command, g.violation->rule,
                            as_sentence(g.violation->fix));
    return g;
  }
  auto ask = [&](AskKind kind, std::string why) {
    ApprovalRequest r;
    r.kind = kind;
    r.command = in.command;
    r.reason = in.reason.empty() ? std::move(why) : in.reason;
    r.cwd = in.cwd;
    r.argv_form = in.argv_form;
    r.network = in.network;
    r.outside_sandbox = in.outside_sandbox;
    if (in.stdin_data) r.stdin_data = summarize_stdin(*in.stdin_data);
    g.asks.push_back(std::move(r));
  };
  if (outside && !in.ways_out_approved) {
    ask(AskKind::kOutsideSandbox, "the command asks to run outside the sandbox, as the user");
    return g;  // APR-3: one question; the person sees the command in it
  }
  if (network && !in.ways_out_approved)
    ask(AskKind::kNetwork, "the command asks for the machine's network");
  // MODE-3 keeps the command policy when the machine is the sandbox; MODE-2's "off" is the
  // user switching cordon's guards off, so nothing is asked there.
  if (in.mode == SandboxMode::kExternal && in.verdict &&
      in.verdict->cls == CommandVerdict::kNeedsApproval)
    ask(AskKind::kCommand,
        fmt::format("there is no sandbox (mode \"external\": the machine is the boundary) and "
                    "the command is not read-only: {}",
                    in.verdict->reason));
  return g;
}

}  // namespace cordon
