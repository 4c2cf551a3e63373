// NET-8: cancels what waits on a socket once `seconds` have passed (a request must arrive in
// time, a connection idle too long ends). The handler touches the socket only when the time
// really ran out, so it is safe after the socket is gone: the destructor cancels the wait first.
// The proxy's plain connections and the credential relay's TLS streams (whose operations wait
// on the socket below them) use it alike.
//
//   { SocketDeadline d(sock, 10);  co_await read_request(sock); }
#pragma once

#include <asio.hpp>
#include <chrono>

namespace cordon {

class SocketDeadline {
 public:
  SocketDeadline(asio::ip::tcp::socket& s, int seconds) : timer_(s.get_executor()) {
    timer_.expires_after(std::chrono::seconds(seconds));
    timer_.async_wait([&s](const asio::error_code& ec) {
      if (!ec) {
        asio::error_code ignored;
        s.cancel(ignored);
      }
    });
  }
  ~SocketDeadline() { timer_.cancel(); }
  SocketDeadline(const SocketDeadline&) = delete;
  SocketDeadline& operator=(const SocketDeadline&) = delete;

 private:
  asio::steady_timer timer_;
};

}  // namespace cordon
