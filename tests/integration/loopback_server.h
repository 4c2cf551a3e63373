// A TCP server on the machine's loopback (127.0.0.1, a free port), outside every sandbox, for
// the tests' upstreams: each accepted connection goes to `serve` on a thread of its own, which
// owns the descriptor (closes it, or keeps it). The destructor closes the listening socket and
// joins every thread; a class whose `serve` uses its own members declares its LoopbackServer
// last, so that it stops before they go.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cordon::it {

class LoopbackServer {
 public:
  explicit LoopbackServer(std::function<void(int)> serve, int backlog = 512);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  int port() const { return port_; }
  int accepted() const { return accepted_; }

 private:
  std::function<void(int)> serve_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::mutex mu_;
  std::vector<std::thread> workers_;
  std::thread thread_;
};

}  // namespace cordon::it
