// A running process's live link (issue 30, background jobs): its standard input handed over
// as it comes (InputMode::kStream), its output handed out as it comes, and signals for its
// whole tree. Made by the caller, set in ProcessSpec::feed, and used from any thread while the
// process loop (process/linux/process.cc) runs on its own.
//
//   auto feed = std::make_shared<ProcessFeed>([&](int stream, const char* d, size_t n) {...});
//   spec.in = InputMode::kStream;
//   spec.feed = feed;
//   std::thread t([&] { run_process(spec); });
//   feed->write("hello\n", /*eof=*/true);
//   feed->signal(SIGTERM);
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace cordon {

class ProcessFeed {
 public:
  // Called on the process loop's thread with each piece of output: stream 1 or 2.
  using Sink = std::function<void(int stream, const char* data, size_t n)>;
  // Input queued and not yet taken by the process beyond this is refused.
  static constexpr size_t kMaxQueued = size_t{8} << 20;

  explicit ProcessFeed(Sink sink = {});
  ~ProcessFeed();
  ProcessFeed(const ProcessFeed&) = delete;
  ProcessFeed& operator=(const ProcessFeed&) = delete;

  // Any thread. Queues `data` for the process's standard input; `eof` closes it once written.
  // An error when the input is closed already (eof given, the process ended or stopped
  // reading) or too much waits unread.
  Status write(std::string_view data, bool eof);
  // Any thread. Asks the process loop to send `sig` to the process's tree.
  void signal(int sig);
  // Any thread. JOB-3: asks the process loop to set its terminal's size (the last one asked
  // wins). An error when the process has no terminal.
  Status resize(uint16_t cols, uint16_t rows);

  // The process loop: the process has a terminal (resize() is taken from now on).
  void set_has_tty() { has_tty_ = true; }

  // The process loop, once it runs: signals now reach the process.
  void attach() { attached_ = true; }
  bool attached() const { return attached_; }
  // The process loop: readable when there is input, eof or a signal to take.
  int wake_fd() const { return wake_r_; }
  struct Taken {
    std::string input;
    bool eof = false;
    std::vector<int> signals;
    std::optional<std::pair<uint16_t, uint16_t>> size;  // cols, rows
  };
  Taken take();
  // The input can no longer be written (the process ended, or its reader went away).
  void close_input();
  void output(int stream, const char* data, size_t n) const {
    if (sink_) sink_(stream, data, n);
  }

 private:
  void wake();

  Sink sink_;
  std::mutex mu_;
  std::string input_;
  bool eof_ = false, closed_ = false;
  std::vector<int> signals_;
  std::optional<std::pair<uint16_t, uint16_t>> size_;
  int wake_r_ = -1, wake_w_ = -1;
  std::atomic<bool> attached_{false};
  std::atomic<bool> has_tty_{false};
};

}  // namespace cordon
