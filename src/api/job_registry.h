// The background jobs of one api::Session (issue 30): each job's thread, output log, input
// feed and end, and the limit on how many run at once. The session hands it a runner that
// runs one request as exec() does, with the job's feed and cancel.
//
//   JobRegistry jobs(16);
//   auto job = jobs.start(req, "make test", run, on_end);   // on a thread of its own
//   jobs.end_all();   // the session's end: every job ended (its tree) and its thread joined
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "api/job.h"
#include "cordon/cordon.h"
#include "process/process_feed.h"

namespace cordon::api {

class JobImpl;

class JobRegistry {
 public:
  // Runs one request to its end as the job `id`, with the job's feed (input, output, signals)
  // and cancel.
  using Runner = std::function<Result<ExecResult>(const ExecRequest&, const std::string& id,
                                                  std::shared_ptr<ProcessFeed>, const Cancel&)>;

  // `observer`: told of every job's input and signals (AUD-1).
  explicit JobRegistry(size_t max_jobs, JobObserver observer = {})
      : max_jobs_(max_jobs), observer_(std::move(observer)) {}
  ~JobRegistry() { end_all(); }
  JobRegistry(const JobRegistry&) = delete;
  JobRegistry& operator=(const JobRegistry&) = delete;

  // "unavailable" when max_jobs jobs run already, or no thread could be started.
  Result<std::shared_ptr<Job>> start(const ExecRequest& req, std::string command, Runner run,
                                     std::function<void(Job&)> on_end);
  std::vector<std::shared_ptr<Job>> list() const;
  // Ends every running job (its whole tree, or its open question) and waits for its thread.
  void end_all();

 private:
  struct Entry {
    std::shared_ptr<JobImpl> job;
    std::thread thread;
  };
  Result<std::shared_ptr<Job>> start_locked(const ExecRequest& req, std::string command, Runner run,
                                            std::function<void(Job&)> on_end,
                                            std::vector<Entry>& old);
  size_t running_locked() const;
  // The ended jobs beyond the last max_jobs, moved to `old`: their threads are joined unlocked.
  void forget_old_locked(std::vector<Entry>& old);

  const size_t max_jobs_;
  const JobObserver observer_;
  mutable std::mutex mu_;
  std::vector<Entry> entries_;
  uint64_t next_id_ = 1;
  bool ending_ = false;
};

}  // namespace cordon::api
