// A stream from a child, for both process primitives: captured up to a limit, or forwarded to
// our own descriptor as it comes with its tail kept for notes (OutputMode in process.h).
// The Linux primitive extends it to hold back bwrap's own messages.
#pragma once

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "process/process.h"

namespace cordon {

// Writes everything, waiting when `fd` is non-blocking and full; gives up when it is gone.
inline void write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd p{fd, POLLOUT, 0};
        poll(&p, 1, 100);
        continue;
      }
      return;  // our own output is gone; keep draining the child
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
}

struct OutputStream {
  Fd fd;
  OutputMode mode = OutputMode::kInherit;
  int forward_to = -1;
  size_t limit = 0;
  std::string* buf = nullptr;
  bool* truncated = nullptr;
  const ProcessFeed* feed = nullptr;  // a background job's: handed each piece as it comes

  // Captured: up to the limit. Forwarded: the last `limit` bytes at least (trimmed when twice
  // that has piled up). Either way handed to the feed, if any, as stream `forward_to` (1, 2).
  void keep(const char* d, size_t n) {
    if (feed) feed->output(forward_to, d, n);
    if (mode == OutputMode::kCapture) {
      size_t room = buf->size() < limit ? limit - buf->size() : 0;
      buf->append(d, std::min(room, n));
      if (n > room) *truncated = true;
      return;
    }
    buf->append(d, n);
    if (buf->size() > 2 * limit) {
      buf->erase(0, buf->size() - limit);
      *truncated = true;
    }
  }

  void on_data(const char* d, size_t n) {
    keep(d, n);
    if (mode == OutputMode::kTee) write_all(forward_to, d, n);
  }
};

// Reads what is there into `s`, through its own on_data (a stream that extends OutputStream
// has its own); closes `s` at its end.
template <class Stream>
void read_some(Stream& s, char* scratch, size_t size) {
  ssize_t r = ::read(s.fd.fd, scratch, size);
  if (r > 0)
    s.on_data(scratch, static_cast<size_t>(r));
  else if (r == 0 || (errno != EAGAIN && errno != EINTR))
    s.fd.reset();
}

}  // namespace cordon
