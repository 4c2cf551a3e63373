// Waking a poll loop when a child ends, with POSIX calls only: a SIGCHLD handler writes one
// byte to the pipe of every loop that is watching (a self-pipe per run_process call), so the
// loop sleeps in poll() and still learns at once that its child exited. Used by the POSIX
// process primitive (process.cc); Linux's own uses a pidfd instead.
//
// Example:
//   ChildWatch watch;                    // before fork: no exit can be missed
//   pollfd p{watch.fd(), POLLIN, 0};     // readable after any child's exit
//   watch.drain();  waitpid(pid, &st, WNOHANG);
#pragma once

namespace cordon {

class ChildWatch {
 public:
  ChildWatch();
  ~ChildWatch();
  ChildWatch(const ChildWatch&) = delete;
  ChildWatch& operator=(const ChildWatch&) = delete;

  // The read end to poll; -1 when no slot was free (the caller then polls on a short timer).
  int fd() const { return read_fd_; }
  // Empties the pipe after poll said it was readable.
  void drain() const;

 private:
  int read_fd_ = -1;
  int slot_ = -1;
};

}  // namespace cordon
