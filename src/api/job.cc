// One background job (issue 30): the handle of cordon/job.h over the job's output log, its
// feed and its end. job_registry.cc starts it and runs it on its thread.
#include "api/job.h"

#include <signal.h>

#include "render/tty_stage_args.h"

namespace cordon::api {

JobImpl::JobImpl(std::string id, std::string command, bool tty, JobObserver observer)
    : id_(std::move(id)), command_(std::move(command)), observer_(std::move(observer)) {
  feed_ = std::make_shared<ProcessFeed>([this](int stream, const char* d, size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    log_.add(stream, std::string_view(d, n));
  });
  if (tty) feed_->set_has_tty();  // resizes asked before the terminal came are kept for it
}

bool JobImpl::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !result_;
}

JobOutput JobImpl::output(uint64_t offset) const {
  std::lock_guard<std::mutex> lock(mu_);
  OutputLog::Since s = log_.since(offset);
  JobOutput o;
  o.stdout_text = std::move(s.out);
  o.stderr_text = std::move(s.err);
  o.offset = s.offset;
  o.dropped = s.dropped;
  o.running = !result_;
  if (result_ && result_->ok()) {
    o.exit_code = (*result_)->exit_code;
    o.signal = (*result_)->signal;
  }
  return o;
}

Status JobImpl::write(std::string_view data, bool eof) {
  if (!running())
    return Error{ErrorCode::kInvalid,
                 "job " + id_ + " has ended; its input is closed and nothing was written.", "", 0};
  auto st = feed_->write(data, eof);
  if (!st.ok()) return Error{ErrorCode::kInvalid, st.error().message, "", 0};
  if (observer_.wrote) observer_.wrote(id_, data.size(), eof);  // AUD-1
  return Ok{};
}

Status JobImpl::signal(int sig) {
  if (sig <= 0 || sig >= NSIG)
    return Error{ErrorCode::kInvalid, "no such signal: give a number from 1 to 64.", "", 0};
  if (!running())
    return Error{ErrorCode::kInvalid, "job " + id_ + " has ended already; nothing was sent.", "",
                 0};
  feed_->signal(sig);
  if (observer_.signaled) observer_.signaled(id_, sig);  // AUD-1
  // Before its process runs (an open question, the planning) only a cancel ends it.
  if (sig == SIGKILL && !feed_->attached()) cancel_.cancel();
  return Ok{};
}

Status JobImpl::resize(uint16_t cols, uint16_t rows) {
  if (std::string p = tty_size_problem(cols, rows); !p.empty())
    return Error{ErrorCode::kInvalid, "the size is out of range: " + p, "", 0};
  if (!running())
    return Error{ErrorCode::kInvalid, "job " + id_ + " has ended already; nothing was resized.", "",
                 0};
  auto st = feed_->resize(cols, rows);
  if (!st.ok()) return Error{ErrorCode::kInvalid, st.error().message, "", 0};
  return Ok{};
}

bool JobImpl::wait(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return result_.has_value(); });
}

std::optional<Result<ExecResult>> JobImpl::result() const {
  std::lock_guard<std::mutex> lock(mu_);
  return result_;
}

void JobImpl::finish(Result<ExecResult> r) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    result_ = std::move(r);
  }
  cv_.notify_all();
}

}  // namespace cordon::api
