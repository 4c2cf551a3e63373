#include "api/job_registry.h"

#include <fmt/format.h>
#include <signal.h>

#include <system_error>

#include "api/job.h"

namespace cordon::api {

namespace {

// A job's thread: SIGPIPE blocked, so that input written to a command that stopped reading is
// an error of the write, not the end of the embedding program (which may not ignore SIGPIPE).
void block_sigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace

Result<std::shared_ptr<Job>> JobRegistry::start(const ExecRequest& req, std::string command,
                                                Runner run, std::function<void(Job&)> on_end) {
  std::vector<Entry> old;
  auto job = start_locked(req, std::move(command), std::move(run), std::move(on_end), old);
  // Outside the lock: an ended job's on_end may still run, and may list the jobs.
  for (auto& e : old)
    if (e.thread.joinable()) e.thread.join();
  return job;
}

Result<std::shared_ptr<Job>> JobRegistry::start_locked(const ExecRequest& req, std::string command,
                                                       Runner run, std::function<void(Job&)> on_end,
                                                       std::vector<Entry>& old) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ending_)
    return Error{ErrorCode::kUnavailable, "the session is ending; no job was started.", "", 0};
  if (running_locked() >= max_jobs_)
    return Error{ErrorCode::kUnavailable,
                 fmt::format("{} background jobs are running already, the most this session "
                             "allows; wait for one to end or end one (signal KILL), then "
                             "start this one again.",
                             max_jobs_),
                 "", 0};
  forget_old_locked(old);
  auto job = std::make_shared<JobImpl>(std::to_string(next_id_++), std::move(command), req.tty,
                                       observer_);
  Entry e{job, {}};
  try {
    e.thread = std::thread([job, req, run = std::move(run), on_end = std::move(on_end)] {
      block_sigpipe();
      job->finish(run(req, job->id(), job->feed(), job->cancel()));
      if (on_end) on_end(*job);
    });
  } catch (const std::system_error&) {
    return Error{ErrorCode::kUnavailable,
                 "no thread could be started for the job; start it again later.", "", 0};
  }
  entries_.push_back(std::move(e));
  return std::shared_ptr<Job>(job);
}

std::vector<std::shared_ptr<Job>> JobRegistry::list() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<Job>> out;
  for (const auto& e : entries_) out.push_back(e.job);
  return out;
}

void JobRegistry::end_all() {
  std::vector<Entry> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ending_ = true;
    entries.swap(entries_);
  }
  for (auto& e : entries) e.job->cancel_now();
  for (auto& e : entries)
    if (e.thread.joinable()) e.thread.join();
}

size_t JobRegistry::running_locked() const {
  size_t n = 0;
  for (const auto& e : entries_) n += e.job->running() ? 1 : 0;
  return n;
}

// Ended jobs stay listed, the last max_jobs of them; the handles given out stay valid.
void JobRegistry::forget_old_locked(std::vector<Entry>& old) {
  size_t ended = entries_.size() - running_locked();
  for (auto it = entries_.begin(); ended > max_jobs_ && it != entries_.end();) {
    if (it->job->running()) {
      ++it;
      continue;
    }
    old.push_back(std::move(*it));
    it = entries_.erase(it);
    --ended;
  }
}

}  // namespace cordon::api
