// A command running in the background (issue 30): Session::start_job (cordon/cordon.h) starts
// it and returns at once; it runs in its own sandbox exactly as Session::exec would run it (the
// command policy, the questions it needs, the sandbox, the aftercare, the leftover record).
//
//   auto job = session->start_job(req);               // Result<std::shared_ptr<Job>>
//   if (!job) { ... (*job).error() ... }              // refused at once: too many jobs, held
//   uint64_t at = 0;
//   while (!(*job)->wait(std::chrono::seconds(1))) {
//     cordon::api::JobOutput o = (*job)->output(at);  // what came since `at`
//     std::cout << o.stdout_text;
//     at = o.offset;
//   }
//   std::optional<Result<ExecResult>> r = (*job)->result();   // exec's answer, once ended
//
// A Job is thread-safe. Its handle may outlive the session: every job ends (its whole process
// tree) when the session is destroyed, and the handle then still answers what it had.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cordon/error.h"
#include "cordon/exec_result.h"

namespace cordon::api {

// What a job printed from an offset on, and whether it still runs.
struct JobOutput {
  // What each stream produced from the offset asked for, as much as is still held: each
  // stream keeps its last 1 MiB at least.
  std::string stdout_text, stderr_text;
  uint64_t offset = 0;   // pass it to the next call: the bytes both streams produced so far
  uint64_t dropped = 0;  // bytes after the offset asked for that are no longer held
  bool running = true;
  std::optional<int> exit_code;  // once ended: as ExecResult::exit_code (none when refused)
  std::optional<int> signal;     // once ended by a signal
};

class Job {
 public:
  virtual ~Job() = default;

  virtual const std::string& id() const = 0;       // "1", "2", ...: unique in its session
  virtual const std::string& command() const = 0;  // the command line or argv, for listings
  virtual bool running() const = 0;

  // What came since `offset` (0: everything still held), and the offset to ask from next.
  virtual JobOutput output(uint64_t offset = 0) const = 0;
  // Writes to the command's standard input (a pipe, open until `eof`; with a terminal, typed
  // into it, and `eof` is the terminal's end-of-file character, Ctrl-D). "invalid" when the
  // input is closed already: eof was given, or the command ended or stopped reading.
  virtual Status write(std::string_view data, bool eof = false) = 0;
  // Sends a signal: SIGKILL ends the command's whole process tree (its sandbox); another
  // signal goes to the command's process group. "invalid" once the job has ended.
  virtual Status signal(int sig) = 0;
  // JOB-3: sets the size of the job's terminal (ExecRequest::tty); the command gets SIGWINCH.
  // "invalid" when the job has no terminal, the size is out of range (1 to 10,000 each) or the
  // job has ended.
  virtual Status resize(uint16_t cols, uint16_t rows) = 0;
  // Waits up to `timeout` for the job's end; true once it has ended.
  virtual bool wait(std::chrono::milliseconds timeout) const = 0;
  // Once ended: what Session::exec would have answered (an Error when the command was refused
  // before it started); nullopt while it runs.
  virtual std::optional<Result<ExecResult>> result() const = 0;
};

}  // namespace cordon::api
