// The wire a server face writes to in the protocol unit tests (serve and mcp): one parsed
// message per line, for a test thread to wait on.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string_view>

#include "jsonrpc/jsonrpc.h"
#include "jsonrpc/jsonrpc_peer.h"

namespace cordon::testing {

class Wire {
 public:
  rpc::Peer peer{[this](std::string_view line) {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1) << "one message per line";
    out_.push_back(rpc::json::parse(line));
    cv_.notify_all();
    return true;
  }};

  // The first message that `pred` accepts (removed), waiting up to `timeout`.
  rpc::json take(const std::function<bool(const rpc::json&)>& pred,
                 std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    std::unique_lock<std::mutex> lock(mu_);
    rpc::json found;
    cv_.wait_for(lock, timeout, [&] {
      for (auto it = out_.begin(); it != out_.end(); ++it)
        if (pred(*it)) {
          found = *it;
          out_.erase(it);
          return true;
        }
      return false;
    });
    return found;
  }
  // The response to request `id`.
  rpc::json response(const rpc::json& id,
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    return take(
        [&](const rpc::json& m) {
          return m.contains("id") && m["id"] == id && !m.contains("method");
        },
        timeout);
  }
  // The first request the server sent with `method`.
  rpc::json request(const std::string& method) {
    return take([&](const rpc::json& m) { return m.value("method", "") == method; });
  }
  size_t pending() {
    std::lock_guard<std::mutex> lock(mu_);
    return out_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<rpc::json> out_;
};

}  // namespace cordon::testing
