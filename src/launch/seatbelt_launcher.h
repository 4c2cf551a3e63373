// Launching a Seatbelt plan: `sandbox-exec -p PROFILE -- COMMAND...` (MAC-1, MAC-5), through
// the same process primitive as every other launch (process/process.h: run_process).
// Nothing here needs a macOS header, so it is built and tested on Linux with the backend
// forced and a stand-in for sandbox-exec (render/backend_choice.h); what is macOS-only is
// behind run_process, whose implementation is the one piece a Mac build must supply.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "launch/linux/launcher.h"
#include "plan/plan.h"
#include "process/process.h"

namespace cordon {

// The terminals cordon's standard output and error are, for SeatbeltOptions::terminals (the
// command inherits them and may write there, never read).
std::vector<std::string> output_terminals();

// The process to start for a sandboxed plan and its profile (pure): sandbox-exec with the
// plan's environment only (ENV-5), in the plan's folder, its own process group ended with it
// (PROC-1 as far as macOS allows), the plan's limits as rlimits, the plan's timeout.
ProcessSpec seatbelt_process_spec(const Plan& plan, const std::string& profile,
                                  const std::string& sandbox_exec, const LaunchIo& io);

// sandbox-exec's own failure to apply the profile, from its exit code and standard error
// (pure): it exits 65 (EX_DATAERR) for a profile it cannot compile and 71 (EX_OSERR) when the
// kernel refuses, for instance inside another sandbox, saying "sandbox-exec: ...". Its words,
// or nullopt when the exit was the command's.
std::optional<std::string> seatbelt_apply_failure(int exit_code, const std::string& err);

// PROC-1, PROC-3 under Seatbelt (no pid namespace): SIGKILLs the processes of a command that
// left its process group (found by its marker, NET-4's search) and waits up to `patience` for
// them to be gone; returns the ones still there, which hold the session (PROC-3).
std::vector<int> end_escaped_processes(const std::vector<int>& pids,
                                       std::chrono::milliseconds patience);

// Runs a sandboxed plan under sandbox-exec. Processes that left the command's group end with
// it (end_escaped_processes); its environment holds the marker CORDON_RUN as an unconfined
// command's does. A command that cannot be found in the plan's PATH
// is an "exec" error (127), as for an unconfined command; a refused or unsandboxed plan, or
// an empty profile, is an error and never runs.
Result<ProcessOutcome> launch_seatbelt(const Plan& plan, const std::string& profile,
                                       const std::string& sandbox_exec, const LaunchIo& io,
                                       const std::function<void(pid_t)>& on_started = {});

}  // namespace cordon
