// Launching a plan: bwrap for a sandboxed command, the command itself for an unconfined one.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "backend/linux/process.h"
#include "plan/plan.h"
#include "plan/planner.h"

namespace cordon {

struct LaunchIo {
  InputMode in = InputMode::kNull;
  std::string in_data;
  OutputMode out = OutputMode::kInherit;
  OutputMode err = OutputMode::kTee;
  size_t capture_limit = 1 << 20;
  int cancel_fd = -1;
  // More descriptors for the sandbox (ours >= 10, theirs 6..9), and words run before the
  // command inside it: NET-7's net stage (`<stage> ... -- <command>`). The plan's argv stays
  // the command's own.
  std::vector<std::pair<int, int>> extra_fds;
  std::vector<std::string> argv_prefix;
};

// A sandboxed plan through bwrap (arguments through --args, filter through --seccomp, status
// through --json-status-fd). bwrap starts with the plan's environment only (ENV-5).
// `cache_dir` keeps the compiled filter between runs ("" compiles every time), and bwrap's
// version (bwrap_info.h), whose options the arguments leave out when bwrap is older (PROBE-4).
Result<ProcessOutcome> launch_sandbox(const Plan& plan, const std::string& bwrap,
                                      const std::string& cache_dir, const LaunchIo& io,
                                      const std::function<void(pid_t)>& on_started = {});

// The same, started early: bwrap is created at once with the process part (argv, environment,
// limits), blocked reading its options from a pipe, while `prepare` plans the mounts. The plan
// it returns is handed over; while bwrap sets the sandbox up, `commit(pid)` runs, and bwrap
// waits for its seccomp filter, written only once `commit` returned true, before it starts
// the command. When `prepare` returns nothing or `commit` false, bwrap is killed and the filter
// pipe ends empty, so the command never starts; the error's code is "aborted". This hides bwrap's own start-up behind cordon's planning and cordon's
// bookkeeping behind bwrap's set-up (PERF-1).
Result<ProcessOutcome> launch_sandbox_early(
    const ProcessPart& part, const Limits& limits,
    std::optional<std::chrono::milliseconds> timeout, const std::string& bwrap,
    const std::string& cache_dir, const LaunchIo& io,
    const std::function<std::optional<Plan>()>& prepare,
    const std::function<bool(pid_t)>& commit);

// An unconfined plan (mode off/external, or an approved outside-sandbox command): its own
// process group, ended when the command ends (NET-4).
Result<ProcessOutcome> launch_unconfined(const Plan& plan, const LaunchIo& io,
                                         const std::function<void(pid_t)>& on_started = {});

}  // namespace cordon
