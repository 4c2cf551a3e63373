#include "launch/judge_process.h"

#include <fmt/format.h>
#include <signal.h>
#include <time.h>

#include <cerrno>
#include <utility>

#include "core/paths.h"
#include "launch/linux/launcher.h"
#include "process/process.h"

namespace cordon {

namespace {

// Blocks SIGPIPE on this thread while the judge's input is written, and discards one raised
// meanwhile: a judge that exits without reading must not end cordon (whose faces do not all
// ignore SIGPIPE). A write to a broken pipe raises it on the writing thread, so a thread mask is
// enough.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_);
  }
  ~SigpipeGuard() {
    if (!was_pending_) {
      sigset_t pipe_set;
      sigemptyset(&pipe_set);
      sigaddset(&pipe_set, SIGPIPE);
      timespec zero{0, 0};
      while (sigtimedwait(&pipe_set, nullptr, &zero) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_;
  bool was_pending_ = false;
};

}  // namespace

JudgeProcess::JudgeProcess(std::string program, EnvMap env, std::chrono::milliseconds timeout,
                           std::string cwd)
    : program_(std::move(program)), env_(std::move(env)), timeout_(timeout), cwd_(std::move(cwd)) {}

JudgeVerdict JudgeProcess::judge(const ApprovalRequest& request) {
  JudgeRun run;
  run.timeout = timeout_;
  std::string path;
  if (program_.empty()) {
    run.start_error = "no judge program is set ([approvals] judge)";
  } else if (program_.rfind("~/", 0) == 0) {
    auto home = env_.get("HOME");
    if (!home || home->empty() || (*home)[0] != '/')
      run.start_error = fmt::format("{} needs HOME to be set to an absolute path", program_);
    else
      path = expand_home(program_, *home);
  } else if (program_[0] == '/') {
    path = program_;
  } else if (program_.find('/') == std::string::npos) {
    path = resolve_command(program_, env_, cwd_.empty() ? "/" : cwd_);
    if (path.empty()) run.start_error = fmt::format("{} was not found on PATH", program_);
  } else {
    run.start_error = fmt::format(
        "{} is a relative path; name the judge by an absolute path, "
        "~/... or a program on PATH",
        program_);
  }
  if (run.start_error.empty()) {
    ProcessSpec spec;
    spec.path = path;
    spec.argv = {path};
    spec.env = env_;
    spec.cwd = cwd_;
    spec.new_process_group = true;
    spec.end_group_on_exit = true;  // nothing the judge left behind keeps running
    spec.in = InputMode::kData;
    spec.in_data = judge_input(request);
    spec.out = OutputMode::kCapture;
    spec.err = OutputMode::kCapture;
    spec.capture_limit = 64 * 1024;  // an answer is a few dozen bytes
    spec.timeout = timeout_;
    Result<ProcessOutcome> o = [&] {
      SigpipeGuard guard;
      return run_process(spec);
    }();
    if (!o.ok()) {
      run.start_error = o.error().message;
    } else {
      run.timed_out = o->timed_out;
      run.exit_code = o->exit_code;
      run.signal = o->signal;
      run.out_truncated = o->out_truncated;
      run.out = std::move(o->out);
      run.err = std::move(o->err);
    }
  }
  return verdict_from_run(run);
}

}  // namespace cordon
