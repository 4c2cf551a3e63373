// One background job of an api::Session (issue 30): cordon/job.h's handle, with what its
// thread needs: the feed its process is run with, the cancel that ends it before its process
// runs, and finish() with exec's answer.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cordon/cordon.h"
#include "core/output_log.h"
#include "process/process_feed.h"

namespace cordon::api {

// AUD-1: told of each input written (its length, never the bytes) and each signal sent, once
// done, for the session's audit log.
struct JobObserver {
  std::function<void(const std::string& job, uint64_t bytes, bool eof)> wrote;
  std::function<void(const std::string& job, int sig)> signaled;
};

class JobImpl : public Job {
 public:
  // `tty`: the command has a terminal (JOB-3), which resize() sizes.
  JobImpl(std::string id, std::string command, bool tty, JobObserver observer = {});

  const std::string& id() const override { return id_; }
  const std::string& command() const override { return command_; }
  bool running() const override;
  JobOutput output(uint64_t offset) const override;
  Status write(std::string_view data, bool eof) override;
  Status signal(int sig) override;
  Status resize(uint16_t cols, uint16_t rows) override;
  bool wait(std::chrono::milliseconds timeout) const override;
  std::optional<Result<ExecResult>> result() const override;

  const std::shared_ptr<ProcessFeed>& feed() const { return feed_; }
  const Cancel& cancel() const { return cancel_; }
  void cancel_now() { cancel_.cancel(); }
  void finish(Result<ExecResult> r);

 private:
  const std::string id_, command_;
  const JobObserver observer_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  OutputLog log_;
  std::optional<Result<ExecResult>> result_;
  std::shared_ptr<ProcessFeed> feed_;
  Cancel cancel_;
};

}  // namespace cordon::api
