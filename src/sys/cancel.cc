// cordon::api::Cancel (cordon/cordon.h): an eventfd that stays readable once written, so the
// launcher's poll loop sees it and ends the command (the path of Ctrl-C, `cancel` and
// shutdown).
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

#include "cordon/cordon.h"

namespace cordon::api {

Cancel::Cancel() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

Cancel::~Cancel() {
  if (fd_ >= 0) ::close(fd_);
}

void Cancel::cancel() noexcept {
  if (fd_ < 0) return;
  uint64_t one = 1;
  ssize_t w = ::write(fd_, &one, sizeof one);  // async-signal-safe
  (void)w;
}

bool Cancel::canceled() const noexcept {
  if (fd_ < 0) return false;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

int Cancel::fd() const noexcept { return fd_; }

}  // namespace cordon::api
