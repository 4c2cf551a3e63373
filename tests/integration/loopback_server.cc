#include "loopback_server.h"

#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"

namespace cordon::it {

LoopbackServer::LoopbackServer(std::function<void(int)> serve, int backlog)
    : serve_(std::move(serve)) {
  fd_ = listen_on_host_loopback(port_, backlog);
  thread_ = std::thread([this] {
    for (;;) {
      int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      ++accepted_;
      std::lock_guard<std::mutex> lock(mu_);
      workers_.emplace_back([this, c] { serve_(c); });
    }
  });
}

LoopbackServer::~LoopbackServer() {
  shutdown(fd_, SHUT_RDWR);
  close(fd_);
  thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& t : workers_) t.join();
}

}  // namespace cordon::it
