// poll(2) over a few descriptors, each with a tag that says what it is, and the small pieces
// both process loops share (process/linux, process_posix): a deadline as poll's timeout, and
// a command's standard input written as the pipe takes it.
//
//   PollSet<Tag> ps;
//   ps.add(out_fd, POLLIN, kOut);          // a negative fd is left out
//   if (!ps.wait(poll_ms_until(deadline, now))) ...;   // poll failed
//   ps.each_ready([&](Tag t) { ... });
#pragma once

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

namespace cordon {

template <typename Tag>
class PollSet {
 public:
  void add(int fd, short events, Tag tag) {
    if (fd < 0) return;
    fds_.push_back({fd, events, 0});
    tags_.push_back(tag);
  }
  // Waits up to `ms` milliseconds (-1: until something is ready). False when poll failed
  // other than by a signal.
  bool wait(int ms) {
    ready_ = ::poll(fds_.data(), static_cast<nfds_t>(fds_.size()), ms);
    return ready_ >= 0 || errno == EINTR;
  }
  template <typename F>
  void each_ready(F on_ready) const {
    for (size_t i = 0; ready_ > 0 && i < fds_.size(); ++i)
      if (fds_[i].revents) on_ready(tags_[i]);
  }

 private:
  std::vector<pollfd> fds_;
  std::vector<Tag> tags_;
  int ready_ = 0;
};

// Milliseconds from `now` until `t`, rounded up and kept within what poll takes.
inline int poll_ms_until(std::chrono::steady_clock::time_point t,
                         std::chrono::steady_clock::time_point now) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count() + 1;
  return static_cast<int>(std::max<long long>(0, std::min<long long>(ms, 1 << 30)));
}

// Writes what is left of `data` after `offset` to the non-blocking `fd`. False when the input
// is done: all written, or the reader gone (the caller closes fd).
inline bool write_more(int fd, const std::string& data, size_t& offset) {
  ssize_t w = ::write(fd, data.data() + offset, data.size() - offset);
  if (w > 0) offset += static_cast<size_t>(w);
  return !((w < 0 && errno != EAGAIN && errno != EINTR) || offset >= data.size());
}

}  // namespace cordon
