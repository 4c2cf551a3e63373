// Launching a Seatbelt plan on macOS: `sandbox-exec -p PROFILE -- COMMAND...` (MAC-1). Built only
// on macOS (CMake `if(APPLE)`); the profile and the plan are pure and tested everywhere.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backend/macos/seatbelt_plan.h"
#include "core/result.h"

namespace cordon {

struct SeatbeltRun {
  pid_t pid = -1;      // sandbox-exec, which becomes the command (it execs it)
  int exit_code = -1;  // WEXITSTATUS, or -1
  int signal = 0;      // WTERMSIG, or 0
  bool timed_out = false;
  // sandbox-exec could not apply the profile ("sandbox-exec: sandbox_apply: ..."): it exits 65
  // (EX_DATAERR) for a profile it cannot compile and 71 (EX_OSERR) when the kernel refuses,
  // for instance inside another sandbox. Set only when standard error said so.
  bool sandbox_failed = false;
  std::string err_tail;  // the last bytes of standard error, for that check
};

// The terminals cordon's standard output and error are, for SeatbeltOptions::terminals (the
// command inherits standard output and may write to it, never read it).
std::vector<std::string> output_terminals();

// Runs the plan's command under sandbox-exec with the plan's environment only (ENV-5), in its
// own session (no controlling terminal, PROC-2) and process group, standard input from
// /dev/null, output inherited. On timeout the process group is killed (PROC-4). A refused
// plan, or one that is not sandboxed, is an error, never run.
Result<SeatbeltRun> launch_seatbelt(const SeatbeltPlan& sp, const SeatbeltOptions& options,
                                    const std::function<void(pid_t)>& on_started = {});

}  // namespace cordon
