#include "session/command_outcome.h"

#include <fmt/format.h>
#include <unistd.h>

#include "launch/linux/probe.h"
#include "process/process.h"
#include "core/strings.h"
#include "plan/blocked_note.h"
#include "plan/ssh_rules.h"
#include "plan/net_rules.h"
#include "plan/run_decisions.h"
#include "session/backend_launch.h"
#include "session/leftover_sweep.h"

namespace cordon {

namespace {

// PROC-6: a low [limits] pids is an rlimit on every process of the user, and bwrap needs a few
// of its own (the sandbox's pid 1, the command): name it as the likely cause of a failed start.
std::string limits_hint(const Limits& limits, const std::string& config) {
  if (!limits.pids || *limits.pids >= 64) return "";
  return fmt::format(
      "The likely cause is [limits] pids = {} in {}: as an rlimit it counts every process of "
      "your user on this machine, and the sandbox itself needs a few. Fix: raise it (to 256 or "
      "more), or remove it; commands get a cgroup limit of {} processes by default where a "
      "cgroup can be made.",
      *limits.pids, config.empty() ? "the config file" : config, limits.default_pids);
}

// True when bwrap stopped before the command ran although it reported its child.
bool failed_after_child(const ProcessOutcome& o, const api::ExecResult& out) {
  // PROBE-4 (issue 28): bwrap reports its child before it brings up loopback; a failure there
  // ("bwrap: loopback: Failed ...", status 1, nothing else said) is still the sandbox's.
  const bool loopback = o.exit_code == 1 && o.held_err.rfind("bwrap: loopback: ", 0) == 0 &&
                        out.stdout_text.empty();
  // PROC-6: so is a sandbox pid 1 that cannot fork the command (a process limit met once it
  // is in its cgroup): nothing of the command ran.
  const bool pid1_failed = starts_with(o.held_err, "bwrap: Can't fork for pid 1") ||
                           starts_with(out.stderr_text, "bwrap: Can't fork for pid 1");
  return loopback || pid1_failed;
}

// RES-4: bwrap's own "execvp" line, as an exec failure; `in_capture` is set when the line was
// the first of a captured stderr (the servers).
std::optional<ExecFailure> bwrap_exec_failure(const Plan& plan, OutputMode err,
                                              const ProcessOutcome& o, const api::ExecResult& out,
                                              bool& in_capture) {
  const std::string& argv0 = plan.argv[0];
  auto reason = bwrap_exec_reason(o.held_err, argv0);
  in_capture = o.held_err.empty() && err == OutputMode::kCapture &&
               out.stderr_text.rfind("bwrap: execvp ", 0) == 0;
  if (!reason && in_capture)
    reason = bwrap_exec_reason(out.stderr_text.substr(0, out.stderr_text.find('\n')), argv0);
  if (!reason) return std::nullopt;
  return exec_failure(argv0, *reason,
                      *reason != "Permission denied" ||
                          !find_command(argv0, plan.env, plan.cwd).path.empty());
}

}  // namespace

void take_output(ProcessOutcome& o, api::ExecResult& out) {
  out.stdout_text = std::move(o.out);
  out.stderr_text = std::move(o.err);
  out.stdout_truncated = o.out_truncated;
  out.stderr_truncated = o.err_truncated;
  out.timed_out = o.timed_out;
  out.canceled = o.canceled;
}

std::optional<Refusal> setup_failure(bool under_bwrap, const Plan& plan, const ProcessOutcome& o,
                                     const api::ExecResult& out, const SandboxStart& start) {
  if (!under_bwrap || o.timed_out || o.canceled) return std::nullopt;
  if (o.bwrap_started && !failed_after_child(o, out)) return std::nullopt;
  const std::string said = o.held_err + out.stderr_text;
  const std::string outer = outer_sandbox_note(start.env, said, false);
  if (!outer.empty())
    return Refusal{ErrorKind::kUnavailable,
                   fmt::format("the sandbox could not start: {}{}", outer,
                               o.held_err.empty() ? std::string(".")
                                                  : " (bwrap said: " + trim(o.held_err) + ").")};
  Diagnosis d = diagnose_sandbox_start(said, start.bwrap, start.folders);
  const std::string hint = limits_hint(plan.limits, start.config_file);  // PROC-6
  return Refusal{ErrorKind::kUnavailable,
                 hint.empty() ? fmt::format("the sandbox could not start: {}. "
                                            "Fix: {}.",
                                            d.cause, d.fix)
                              : fmt::format("the sandbox could not start: {}. {}", d.cause, hint)};
}

void set_exit_status(bool under_bwrap, const Plan& plan, OutputMode err, ProcessOutcome& o,
                     api::ExecResult& out) {
  std::optional<ExecFailure> ef;
  bool in_capture = false;
  if (under_bwrap && !o.timed_out && !o.canceled && o.exit_code == 1)
    ef = bwrap_exec_failure(plan, err, o, out, in_capture);
  if (ef) {
    out.exit_code = ef->code;
    out.messages.push_back(ef->message);
    o.held_err.clear();
    if (in_capture) {
      size_t nl = out.stderr_text.find('\n');
      out.stderr_text.erase(0, nl == std::string::npos ? std::string::npos : nl + 1);
    }
  } else {
    ExitStatus s = exit_status(ExitFacts{o.timed_out, o.canceled, under_bwrap, o.exit_code,
                                         o.signal, o.bwrap_exit_code});
    out.exit_code = s.code;
    out.signal = s.signal;
  }
  if (o.held_err.empty()) return;
  // Lines held back in case they were bwrap's own failure: they were the command's.
  if (err == OutputMode::kTee) {
    ssize_t w = ::write(2, o.held_err.data(), o.held_err.size());
    (void)w;
  }
  out.stderr_text = o.held_err + out.stderr_text;
}

std::optional<std::string> add_outcome_notes(const BackendChoice& backend, const Plan& plan,
                                             const ProcessOutcome& o, CommandProxy* net,
                                             api::ExecResult& out) {
  if (auto n = seatbelt_failure_note(backend, plan, o, out.stderr_text)) out.notes.push_back(*n);
  if (o.pid1_stopped)
    out.notes.push_back(
        "the sandbox's first process was stopped or traced by the command, so "
        "cordon ended the sandbox and every process in it.");  // PROC-1
  if (o.output_cut)
    out.notes.push_back(
        "output cut: the command exited, but a process it started still held "
        "its output; cordon stopped reading after two seconds.");
  if (!o.escaped.empty()) {
    // NET-4: named, never killed.
    out.processes_left = o.escaped;
    out.notes.push_back(
        fmt::format("still running outside the sandbox after the command "
                    "ended: {}. They left its process group and were left "
                    "running; end them yourself (kill) if they should not keep running.",
                    pid_list(o.escaped)));
  }
  if (net) {  // NET-9: the hosts reached or refused, a note once per refused host
    const std::vector<NetConnection> hosts = net->finish();
    for (auto& n : refusal_notes(hosts, plan.config_file)) out.notes.push_back(std::move(n));
    for (const auto& h : hosts)
      out.connections.push_back({h.host_port, h.allowed, h.rule, h.bytes_out, h.bytes_in, h.count});
  }
  if (o.timed_out || o.canceled) return std::nullopt;
  const std::string output = out.stderr_text + "\n" + out.stdout_text;
  if (auto n = ssh_note(plan, out.exit_code, output)) out.notes.push_back(*n);  // NET-12
  return blocked_note(plan, out.exit_code, out.stderr_text + "\n" + out.stdout_text);
}

Refusal withheld_refusal(const std::vector<int>& not_ended) {
  return Refusal{ErrorKind::kHeld,
                 fmt::format("cordon could not confirm that every process this command "
                             "started has ended (process {} is still running), so its "
                             "result is withheld and nothing else runs in this session "
                             "until it can: end it on this machine (`kill -9 {}`), then "
                             "run any command to check again.",
                             pid_list(not_ended), pid_list(not_ended))};
}

}  // namespace cordon
