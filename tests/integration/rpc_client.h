// A scripted JSON-RPC client for `cordon serve` and `cordon mcp`: starts the real binary with
// pipes, sends one object per line, reads its answers on a thread, and answers the server's own
// requests (`approval/ask`, `elicitation/create`) with a handler the test sets.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

namespace cordon::it {

using json = nlohmann::json;

class RpcClient {
 public:
  // Starts `cordon ARGS...` in `cwd` with `env`.
  RpcClient(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
            const std::string& cwd);
  ~RpcClient();
  RpcClient(const RpcClient&) = delete;
  RpcClient& operator=(const RpcClient&) = delete;

  // Answers the server's requests: the result to send, or an error object when `error` is set.
  // Unset: the request is left unanswered. Called on the reader thread.
  struct Answer {
    json result;
    bool error = false;
    bool ignore = false;
  };
  void on_request(std::function<Answer(const json& request)> handler);

  // Sends a raw line (a '\n' is added).
  void send_line(const std::string& line);
  void send(const json& message) { send_line(message.dump()); }
  // Sends a request with a fresh numeric id and returns that id.
  json start(const std::string& method, const json& params = json::object());
  // Waits for the response to `id` (null json on timeout).
  json wait(const json& id, std::chrono::milliseconds timeout = std::chrono::seconds(60));
  json call(const std::string& method, const json& params = json::object()) {
    return wait(start(method, params));
  }
  // MCP's opening: `initialize` as a test client of protocol 2025-06-18, then
  // `notifications/initialized`. Returns initialize's answer.
  json mcp_initialize();
  // Every request the server sent us, in order.
  std::vector<json> server_requests();
  // How many of server_requests() had come when the response to `id` came.
  size_t requests_before(const json& id);
  // Every message that was not valid JSON, or not one per line (should stay empty).
  std::vector<std::string> bad_lines();

  void close_stdin();
  void signal(int sig);
  // Waits for the process to exit; returns its status (or -1 on timeout, after SIGKILL).
  int wait_exit(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  std::string stderr_text();
  pid_t pid() const { return pid_; }

 private:
  void read_loop();
  void err_loop();
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::thread reader_, err_reader_;
  std::mutex mu_;
  std::mutex write_mu_;  // the test's thread and the reader's answers both write
  std::condition_variable cv_;
  std::map<std::string, json> responses_;
  std::map<std::string, size_t> requests_before_;
  std::vector<json> requests_;
  std::vector<std::string> bad_;
  std::string err_text_;
  std::function<Answer(const json&)> handler_;
  int64_t next_id_ = 1;
  int exit_status_ = -2;
};

}  // namespace cordon::it
