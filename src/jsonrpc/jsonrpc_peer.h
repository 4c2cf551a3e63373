// The other end of a JSON-RPC connection, as the server's threads share it: one writer (each
// message one whole line, never interleaved: SRV-4), the requests the server sends the client
// (`approval/ask`, MCP `elicitation/create`) waiting for their responses, and the worker
// threads that run the client's requests while the reader keeps reading. No descriptors: the
// face gives the writer.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "jsonrpc/jsonrpc.h"

namespace cordon::rpc {

class Peer {
 public:
  // Writes one whole line; returns false once the output is gone (the client closed it).
  using Writer = std::function<bool(std::string_view line)>;
  explicit Peer(Writer writer) : writer_(std::move(writer)) {}

  // Sends one message as one line, atomically with respect to every other send.
  void send(const json& message);

  struct CallResult {
    // kCanceled: the request this call was made for was canceled while it waited (wake()).
    enum Status { kResult, kError, kTimeout, kClosed, kCanceled } status = kClosed;
    json value;      // kResult: the result; kError: the error object
    int64_t id = 0;  // the id the request went out with (to withdraw it)
  };
  // Sends a request and waits for its response, until `deadline` (nullopt: no limit), close(),
  // or `cancel_fd` (-1: none) turns readable and wake() is called. Thread-safe; any number of
  // calls may wait at once.
  CallResult call(std::string_view method, json params,
                  std::optional<std::chrono::steady_clock::time_point> deadline,
                  int cancel_fd = -1);

  // A request of the client's was canceled: every waiting call looks at its cancel_fd again.
  void wake();

  // A response from the client: wakes its call. False when no call waits for that id.
  bool on_response(const Message& response);

  // The client is gone (end of input, shutdown): every waiting and later call returns kClosed.
  void close();
  bool closed() const;

 private:
  struct Pending {
    bool done = false;
    CallResult result;
  };
  Writer writer_;
  std::mutex write_mu_;
  bool output_gone_ = false;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool closed_ = false;
  int64_t next_id_ = 1;
  std::map<int64_t, std::shared_ptr<Pending>> pending_;
};

// Runs each request of the client on its own thread (SRV-4), up to a limit.
class Workers {
 public:
  // `threads` false: run() calls the job at once, on the caller's thread (the fuzzer, tests).
  Workers(size_t max_in_flight, bool threads) : max_(max_in_flight), threads_(threads) {}
  ~Workers() { wait_all(); }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  // False when `max_in_flight` jobs are running already (nothing is started then).
  bool run(std::function<void()> job);
  // Waits until every job has finished.
  void wait_all();
  size_t in_flight() const;

 private:
  struct Job {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void reap_locked();
  const size_t max_;
  const bool threads_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::list<Job> jobs_;
  size_t running_ = 0;
};

}  // namespace cordon::rpc
