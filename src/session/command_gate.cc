// The command policy of a session's commands (CMD-4, CMD-6) and the approvals they need before
// they start (APR-1, APR-3, NET-3, NET-4), decided by approval/exec_gate.h and put through the
// session's approver. Without questions, the policy is checked while bwrap sets up (PERF-1,
// run_pipeline.cc); with questions, here, first.
#include <fmt/format.h>

#include "approval/approver.h"
#include "approval/refusal_violation.h"
#include "approval/request.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "session/session.h"

namespace cordon {

namespace {

// CMD-4: the command policy's denial, with its violation (AUD-2).
Refusal gate_refusal(const ExecGate& gate) {
  Refusal r{ErrorKind::kRefused, *gate.refusal, {}};
  if (gate.violation) r.violations.push_back(*gate.violation);
  return r;
}

}  // namespace

// Where a command asked to run in `cwd` really runs: there when it is inside the project, else
// at the project root (as the planner chooses).
std::string Session::run_folder(const std::string& cwd) const {
  return path_within(cwd, record_.project) ? cwd : record_.project;
}

Result<Classification> Session::classify(const Request& req) {
  const std::string cwd = run_folder(req.cwd.empty() ? opts_.cwd : req.cwd);
  return commands_->classify(req.argv, req.script, cwd, req.network);
}

ExecGateInput Session::gate_input(const Request& req, const LaunchIo& io) const {
  ExecGateInput gi;
  gi.mode = opts_.policy.mode;
  gi.command = req.script ? *req.script : shell_join(req.argv);  // for the questions
  gi.network = req.network;
  gi.outside_sandbox = req.outside_sandbox;
  gi.ways_out_approved = opts_.ways_out_approved;
  gi.reason = req.reason;
  gi.cwd = run_folder(req.cwd);  // the question shows where it will run
  gi.argv_form = !req.script;
  // Questions show the standard input, and grants cover only it (APR).
  if (io.in == InputMode::kData) gi.stdin_data = io.in_data;
  return gi;
}

// CMD-4: a denied command, or a config whose command policy is broken (CFG-2), is refused.
std::optional<Refusal> Session::policy_refusal(ExecGateInput gi, const Request& req) {
  auto v = commands_->verdict(req.argv, req.script, *gi.cwd, req.network);
  if (!v.ok()) return Refusal{ErrorKind::kUnavailable, v.error().message};
  gi.verdict = *v;
  ExecGate gate = gate_exec(gi);
  trace("run: command classified");
  if (gate.refusal) return gate_refusal(gate);
  return std::nullopt;
}

// The policy first (a denied command is refused before anyone is asked), then the questions.
Session::Asked Session::ask_first(ExecGateInput gi, const Request& req, int cancel_fd) {
  Asked out;
  auto v = commands_->verdict(req.argv, req.script, *gi.cwd, req.network);
  if (!v.ok()) return Asked{Refusal{ErrorKind::kUnavailable, v.error().message}, {}, {}, {}};
  gi.verdict = *v;
  ExecGate gate = gate_exec(gi);
  if (gate.refusal) return Asked{gate_refusal(gate), {}, {}, {}};
  if (!gate.asks.empty())
    if (auto r = pointless_question(req)) return Asked{std::move(r), {}, {}, {}};
  for (const auto& ask : gate.asks) {
    if (!opts_.approver) {
      out.refusal = Refusal{ErrorKind::kRefused, "nobody can be asked to approve it"};
      out.answers.push_back(AuditAnswer{to_string(ask.kind), false, "nobody-to-ask", {}, false});
      return out;
    }
    Decision d = opts_.approver->ask(ask, cancel_fd);
    out.answers.push_back(  // AUD-1: who decided
        AuditAnswer{to_string(ask.kind), d.allowed, to_string(d.basis), d.risk, d.breaker_tripped});
    if (d.basis == Basis::kCanceled) {
      out.canceled = d.message;
      return out;
    }
    if (!d.allowed) {  // AUD-2: with its violation
      out.refusal = Refusal{ErrorKind::kRefused, d.message, {answer_violation(ask, d)}};
      return out;
    }
    if (d.basis != Basis::kUser && d.basis != Basis::kGrant && !d.message.empty())
      out.notes.push_back(fmt::format("{}: {}.", describe(ask), d.message));
  }
  return out;
}

// A person is never asked a question whose answer cannot matter: a plan that is refused anyway,
// or a sandbox that cannot start, is reported before any question.
std::optional<Refusal> Session::pointless_question(const Request& req) {
  Facts f = facts(req);
  Plan p = plan(req, f);
  if (p.refusal) return p.refusal;
  if (p.runner == Runner::kSandbox && !probe().ok) return Refusal{ErrorKind::kUnavailable, probe().message()};
  return std::nullopt;
}

}  // namespace cordon
