// What a command's process outcome means for its result (RES-1): its output, whether the
// sandbox itself failed to start (PROBE-4, PROC-6), its exit status (PROC-5, RES-4) and the
// notes on how it ended (PROC-1, NET-4, NET-9, RES-2). Session::run's steps after the launch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "render/backend_choice.h"
#include "net/linux/command_proxy.h"
#include "launch/linux/launcher.h"
#include "config/folders.h"
#include "core/env.h"
#include "plan/plan.h"
#include "cordon/exec_result.h"

namespace cordon {

// Moves the captured output and how the command ended (timed out, canceled) into `out`.
void take_output(ProcessOutcome& o, api::ExecResult& out);

// What a failed sandbox start is diagnosed with.
struct SandboxStart {
  const EnvMap& env;              // cordon's own (an outer sandbox is named from it)
  const Folders& folders;
  const std::string& bwrap;       // bwrap's path
  const std::string& config_file; // named in PROC-6's hint
};

// bwrap failed while setting up, so nothing of the command ran: why, and the fix (PROBE-4).
// `under_bwrap`: the command ran in bwrap; `out` holds the output taken.
std::optional<Refusal> setup_failure(bool under_bwrap, const Plan& plan, const ProcessOutcome& o,
                                     const api::ExecResult& out, const SandboxStart& start);

// The exit status (PROC-5) or the exec failure (RES-4) into `out`; stderr lines held back in
// case they were bwrap's go back to the command's output. `err`: how stderr was read.
void set_exit_status(bool under_bwrap, const Plan& plan, OutputMode err, ProcessOutcome& o,
                     api::ExecResult& out);

// The notes on how the command ended, the processes left (NET-4) and the hosts reached through
// `net` (NET-9, ending it). Returns the blocked-command note (RES-2), which goes after every
// other note.
std::optional<std::string> add_outcome_notes(const BackendChoice& backend, const Plan& plan,
                                             const ProcessOutcome& o, CommandProxy* net,
                                             api::ExecResult& out);

// PROC-3: why the result of a command whose processes `not_ended` still run is withheld.
Refusal withheld_refusal(const std::vector<int>& not_ended);

}  // namespace cordon
