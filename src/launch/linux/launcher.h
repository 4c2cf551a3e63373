// Launching a plan: bwrap for a sandboxed command, the command itself for an unconfined one.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plan/plan.h"
#include "plan/planner.h"
#include "process/process.h"
#include "render/tty_stage_args.h"

namespace cordon {

struct LaunchIo {
  InputMode in = InputMode::kNull;
  std::string in_data;
  OutputMode out = OutputMode::kInherit;
  OutputMode err = OutputMode::kTee;
  size_t capture_limit = 1 << 20;
  int cancel_fd = -1;
  std::shared_ptr<ProcessFeed> feed;  // a background job's (InputMode::kStream, issue 30)
  // More descriptors for the sandbox (ours >= 10, theirs 6..9), and words run before the
  // command inside it: NET-7's net stage (`<stage> ... -- <command>`). The plan's argv stays
  // the command's own.
  std::vector<std::pair<int, int>> extra_fds;
  std::vector<std::string> argv_prefix;
  // JOB-2: the session's namespaces bwrap's child joins before exec (SessionLoopback::join);
  // set exactly when the plan's session_loopback is.
  std::vector<std::pair<int, int>> join_namespaces;
  // JOB-3: a new terminal of the sandbox's own for the command, of this size (nullopt: none).
  // The session then adds the terminal stage (launch/linux/tty_link.h), which puts its words in
  // argv_prefix and sets tty_socket: ours of the socket the stage sends the terminal's master
  // over (-1 without a terminal).
  std::optional<TtySize> tty;
  int tty_socket = -1;
};

// The command's input, output and cancel, as every launcher hands them to the process.
inline void apply_io(ProcessSpec& spec, const LaunchIo& io) {
  spec.in = io.in;
  spec.in_data = io.in_data;
  spec.out = io.out;
  spec.err = io.err;
  spec.capture_limit = io.capture_limit;
  spec.cancel_fd = io.cancel_fd;
  spec.feed = io.feed;
  spec.join_namespaces = io.join_namespaces;
  spec.tty_socket = io.tty_socket;
}

// PROC-7: the compiled seccomp program for `rules`, kept per process and in `cache_dir` (""
// keeps it per process only): compiling costs about half a millisecond per command.
Result<std::string> cached_filter(const std::vector<SeccompRule>& rules,
                                  const std::string& cache_dir);

// A sandboxed plan through bwrap (arguments through --args, filter through --seccomp, status
// through --json-status-fd). bwrap starts with the plan's environment only (ENV-5).
// `cache_dir` keeps the compiled filter between runs ("" compiles every time), and bwrap's
// version (bwrap_info.h), whose options the arguments leave out when bwrap is older (PROBE-4).
Result<ProcessOutcome> launch_sandbox(const Plan& plan, const std::string& bwrap,
                                      const std::string& cache_dir, const LaunchIo& io,
                                      const std::function<void(pid_t)>& on_started = {});

// A sandboxed command's bwrap, started before its mounts are planned (PERF-1: bwrap's own
// start-up hides behind cordon's planning, cordon's bookkeeping behind bwrap's set-up):
//
//   start(part) -> hand_over(plan) -> release() -> wait()
//                  any step before release: abort() (or drop the handle)
//
// start: bwrap is created with the process part (argv, environment, limits), blocked reading
//   its options from a pipe.
// hand_over: the plan's options are written; the plan must hold the very process part bwrap
//   was started with (argv, environment and seccomp program, compared by content).
// release: the seccomp program is written; bwrap reads it once the sandbox is set up, right
//   before it starts the command. It is the gate: given up (or cordon gone), the pipe ends
//   empty, bwrap cannot install an empty filter and exits without starting the command, even a
//   sandbox process that outlived bwrap's first process.
// wait: the command's outcome, as run_process reports it.
class PendingSandbox {
 public:
  static Result<PendingSandbox> start(const ProcessPart& part, const Limits& limits,
                                      std::optional<std::chrono::milliseconds> timeout,
                                      const std::string& bwrap, const std::string& cache_dir,
                                      const LaunchIo& io);
  PendingSandbox(PendingSandbox&&) noexcept;
  PendingSandbox& operator=(PendingSandbox&&) noexcept;
  ~PendingSandbox();

  pid_t pid() const;
  // An error (code "aborted") when the plan's process part is not the one started, or bwrap
  // is gone; the sandbox is then given up.
  Status hand_over(const Plan& plan);
  // An error when bwrap could not be moved into the command's cgroup (the sandbox is then
  // given up: the command would run without its limits).
  Status release();
  // Kills bwrap and collects it; nothing of the command ran. Idempotent.
  void abort();
  Result<ProcessOutcome> wait();

 private:
  struct State;
  explicit PendingSandbox(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// An unconfined plan (mode off/external, or an approved outside-sandbox command): its own
// process group, ended when the command ends (NET-4).
Result<ProcessOutcome> launch_unconfined(const Plan& plan, const LaunchIo& io,
                                         const std::function<void(pid_t)>& on_started = {});

// A plan's command run by cordon itself, without bwrap (unconfined, or under Landlock): found
// on the plan's PATH (RES-4: not found, or found and not runnable, is an error), the plan's
// environment, folder, limits, time-out and cgroup, its own process group ended with it, and
// marked (CORDON_RUN, the outcome's `escaped` lists what it left, NET-4). `adjust` adds the
// caller's own to the spec (descriptors, the child's confinement) before it starts.
Result<ProcessOutcome> run_direct(const Plan& plan, const LaunchIo& io,
                                  const std::function<void(pid_t)>& on_started,
                                  const std::function<void(ProcessSpec&)>& adjust = {});

}  // namespace cordon
