// cordon::api::Cancel (cordon/cordon.h): a pipe whose read end stays readable once a byte was
// written (nobody reads it), so the launcher's poll loop sees it and ends the command (the path
// of Ctrl-C, `cancel` and shutdown). A pipe rather than an eventfd: POSIX, so macOS has it.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "sys/fs_util.h"

namespace cordon::api {

namespace {

// Close-on-exec and non-blocking, at 10 or above (clear of the numbers handed to a child).
int prepared(int fd) {
  int high = high_fd(fd);
  if (high >= 0) fcntl(high, F_SETFL, fcntl(high, F_GETFL) | O_NONBLOCK);
  return high;
}

}  // namespace

Cancel::Cancel() {
  int p[2];
  if (::pipe(p) != 0) return;
  fd_ = prepared(p[0]);
  write_fd_ = prepared(p[1]);
  if (fd_ < 0 || write_fd_ < 0) {
    if (fd_ >= 0) ::close(fd_);
    if (write_fd_ >= 0) ::close(write_fd_);
    fd_ = write_fd_ = -1;
  }
}

Cancel::~Cancel() {
  if (fd_ >= 0) ::close(fd_);
  if (write_fd_ >= 0) ::close(write_fd_);
}

void Cancel::cancel() noexcept {
  if (write_fd_ < 0) return;
  // async-signal-safe; a full pipe (canceled many times over) is readable already
  ssize_t w = ::write(write_fd_, "x", 1);
  (void)w;
}

bool Cancel::canceled() const noexcept {
  if (fd_ < 0) return false;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

int Cancel::fd() const noexcept { return fd_; }

}  // namespace cordon::api
