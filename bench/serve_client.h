// A `cordon serve` driven over its pipes, for the benchmarks (serve_bench.cc, and the jobs part
// of compare_main.cc): one line of JSON each way; notifications that arrive while a response is
// awaited are kept for wait_notification().
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bench {

using json = nlohmann::json;

[[noreturn]] inline void serve_die(const std::string& m) {
  std::fprintf(stderr, "bench: %s\n", m.c_str());
  std::exit(1);
}

class Server {
 public:
  Server(const std::string& cordon, const std::vector<std::string>& env, const std::string& cwd) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) serve_die("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 2);
      if (chdir(cwd.c_str()) != 0) _exit(121);
      std::vector<char*> a = {const_cast<char*>(cordon.c_str()), const_cast<char*>("serve"),
                              nullptr};
      std::vector<char*> e;
      for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
      e.push_back(nullptr);
      execve(a[0], a.data(), e.data());
      _exit(122);
    }
    close(in[0]);
    close(out[1]);
    in_ = in[1];
    out_ = out[0];
  }
  ~Server() {
    close(in_);
    int st;
    waitpid(pid_, &st, 0);
    close(out_);
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  pid_t pid() const { return pid_; }

  void send(const json& m) {
    std::string l = m.dump() + "\n";
    if (write(in_, l.data(), l.size()) != static_cast<ssize_t>(l.size())) serve_die("write");
  }

  // The next message, whatever it is.
  json read() {
    while (true) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        json j = json::parse(buf_.substr(0, nl));
        buf_.erase(0, nl + 1);
        return j;
      }
      char chunk[65536];
      ssize_t n = ::read(out_, chunk, sizeof chunk);
      if (n <= 0) serve_die("the server closed its output");
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

  void initialize(const std::string& project) {
    json init = call("initialize", {{"project", project}});
    if (!init.contains("result") || init["result"]["sandbox"]["available"] != true)
      serve_die("initialize: " + init.dump());
  }

  // Sends a request with an id of its own; returns its id.
  int64_t request(const std::string& method, const json& params) {
    int64_t id = next_id_++;
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return id;
  }

  // The response to `id`; notifications read meanwhile are kept, other responses dropped.
  json response(int64_t id) {
    while (true) {
      json m = read();
      if (m.contains("id") && m["id"] == id) return m;
      if (!m.contains("id")) notes_.push_back(std::move(m));
    }
  }

  json call(const std::string& method, const json& params) {
    return response(request(method, params));
  }

  // The first notification `method` that `match` accepts (kept ones first).
  json wait_notification(const std::string& method, const std::function<bool(const json&)>& match) {
    for (auto it = notes_.begin(); it != notes_.end(); ++it)
      if ((*it)["method"] == method && match((*it)["params"])) {
        json m = std::move(*it);
        notes_.erase(it);
        return m;
      }
    while (true) {
      json m = read();
      if (!m.contains("id") && m["method"] == method && match(m["params"])) return m;
      if (!m.contains("id")) notes_.push_back(std::move(m));
    }
  }

  void exec_true(int64_t id) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", "exec"}, {"params", {{"argv", {"true"}}}}});
  }
  static void expect_ok(const json& r) {
    if (!r.contains("result") || r["result"]["exit_code"] != 0)
      serve_die("exec failed: " + r.dump());
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string buf_;
  int64_t next_id_ = 1 << 20;  // above the ids the callers number themselves
  std::deque<json> notes_;
};

}  // namespace bench
