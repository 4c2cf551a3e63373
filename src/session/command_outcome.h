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
#include "session/command_result.h"

namespace cordon {

// Moves the captured output and how the command ended (timed out, canceled) into `res`.
void take_output(ProcessOutcome& o, CommandResult& res);

// What a failed sandbox start is diagnosed with.
struct SandboxStart {
  const EnvMap& env;              // cordon's own (an outer sandbox is named from it)
  const Folders& folders;
  const std::string& bwrap;       // bwrap's path
  const std::string& config_file; // named in PROC-6's hint
};

// bwrap failed while setting up, so nothing of the command ran: why, and the fix (PROBE-4).
// `under_bwrap`: the command ran in bwrap; `res` holds the output taken.
std::optional<Refusal> setup_failure(bool under_bwrap, const Plan& plan, const ProcessOutcome& o,
                                     const CommandResult& res, const SandboxStart& start);

// The exit status (PROC-5) or the exec failure (RES-4) into `res`; stderr lines held back in
// case they were bwrap's go back to the command's output. `err`: how stderr was read.
void set_exit_status(bool under_bwrap, const Plan& plan, OutputMode err, ProcessOutcome& o,
                     CommandResult& res);

// The notes on how the command ended, the processes left (NET-4), the hosts reached through
// `net` (NET-9, ending it) and the blocked-command note (RES-2).
void add_outcome_notes(const BackendChoice& backend, const Plan& plan, const ProcessOutcome& o,
                       CommandProxy* net, CommandResult& res);

// PROC-3: why the result of a command whose processes `not_ended` still run is withheld.
Refusal withheld_refusal(const std::vector<int>& not_ended);

}  // namespace cordon
