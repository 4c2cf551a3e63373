// One read of a client's input handed over as lines: what `cordon serve`/`cordon mcp` read on
// their standard input and what a session keeper reads from each client's socket (SRV-1).
//
// Example:
//   LinePump pump;
//   while (!conn.finished()) { ... poll(fd) ...; if (!pump.read(fd, conn)) break; }
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <vector>

#include "jsonrpc/jsonrpc.h"

namespace cordon {

class LinePump {
 public:
  // Reads what `fd` has and hands each whole line to `conn.on_line`. False once the input
  // ended (its unterminated last line handed over first) or `conn.finished()`; true to go on
  // (nothing read, interrupted).
  template <class Connection>
  bool read(int fd, Connection& conn) {
    ssize_t r = ::read(fd, buf_.data(), buf_.size());
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (r <= 0) {
      if (auto last = framer_.finish()) conn.on_line(*last);
      return false;
    }
    lines_.clear();
    framer_.feed(std::string_view(buf_.data(), static_cast<size_t>(r)), lines_);
    for (auto& l : lines_) {
      conn.on_line(l);
      if (conn.finished()) return false;
    }
    return true;
  }

 private:
  rpc::LineFramer framer_;
  std::vector<rpc::LineFramer::Line> lines_;
  std::vector<char> buf_ = std::vector<char>(1 << 16);
};

}  // namespace cordon
