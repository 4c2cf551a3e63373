// MCP progress for a running tool call: when the client's `tools/call` carries
// `_meta.progressToken`, cordon sends `notifications/progress` at the start and then at every
// interval until the call ends. Clients such as Claude Code reset their idle time-out on each
// one, so a long build is not abandoned; each carries the command's last line of output
// (issue 30). After the client cancels the call (silence()) or the call ends (stop()), nothing
// more is sent for it (MCP: cancellation).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "jsonrpc/jsonrpc.h"
#include "jsonrpc/jsonrpc_peer.h"
#include "jsonrpc/last_line.h"

namespace cordon::rpc {

// The progress token of a `tools/call`'s params (`_meta.progressToken`, a string or an
// integer); nullopt when there is none or it has another type.
std::optional<json> progress_token(const json& params);

// The `notifications/progress` message for tick `n` (0 at the start) after `elapsed`; its
// `message` is the command's last line of output when there is one (issue 30 item 4).
json progress_message(const json& token, uint64_t n, std::chrono::milliseconds elapsed,
                      const std::string& last_line = "");

class ProgressTicker {
 public:
  ProgressTicker(Peer& peer, json token, std::chrono::milliseconds interval)
      : peer_(peer), token_(std::move(token)), interval_(interval) {}
  ~ProgressTicker() { stop(); }
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

  // Sends the first notification at once, then one per interval on a thread of its own.
  void start();
  // No notification is sent once this returns (the client cancelled the call).
  void silence();
  // silence(), then waits for the thread.
  void stop();
  // The running command's output as it comes (any thread): the next notifications carry its
  // last line.
  void note_output(std::string_view data);

 private:
  void run();
  bool send_locked(uint64_t n);
  Peer& peer_;
  const json token_;
  const std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point started_{};
  std::mutex mu_;
  std::condition_variable cv_;
  bool silenced_ = false;
  std::thread thread_;
  std::mutex output_mu_;  // apart from mu_: the output never waits for a send
  LastLine output_;
};

}  // namespace cordon::rpc
