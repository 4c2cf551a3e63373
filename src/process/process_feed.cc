#include "process/process_feed.h"

#include <fcntl.h>
#include <unistd.h>

namespace cordon {

namespace {

void set_flags(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  fcntl(fd, F_SETFD, FD_CLOEXEC);
}

}  // namespace

ProcessFeed::ProcessFeed(Sink sink) : sink_(std::move(sink)) {
  int p[2];
  if (::pipe(p) == 0) {
    wake_r_ = p[0];
    wake_w_ = p[1];
    set_flags(wake_r_);
    set_flags(wake_w_);
  }
}

ProcessFeed::~ProcessFeed() {
  if (wake_r_ >= 0) ::close(wake_r_);
  if (wake_w_ >= 0) ::close(wake_w_);
}

void ProcessFeed::wake() {
  char c = 1;
  (void)!::write(wake_w_, &c, 1);  // full: a wake is pending already
}

Status ProcessFeed::write(std::string_view data, bool eof) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_ || eof_)
      return make_error(ErrorKind::kInvalid,
                        "the command's input is closed (eof was given, or the command ended "
                        "or stopped reading); nothing was written.");
    if (input_.size() + data.size() > kMaxQueued)
      return make_error(ErrorKind::kInvalid,
                        "the command has not read the 8 MiB of input written before; nothing "
                        "was written. Wait for it to read, then write again.");
    input_.append(data);
    eof_ = eof;
  }
  wake();
  return ok_status();
}

void ProcessFeed::signal(int sig) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    signals_.push_back(sig);
  }
  wake();
}

Status ProcessFeed::resize(uint16_t cols, uint16_t rows) {
  if (!has_tty_)
    return make_error(ErrorKind::kInvalid,
                      "the command has no terminal (start it with tty); nothing was resized.");
  {
    std::lock_guard<std::mutex> lock(mu_);
    size_ = std::make_pair(cols, rows);
  }
  wake();
  return ok_status();
}

ProcessFeed::Taken ProcessFeed::take() {
  char buf[64];
  while (::read(wake_r_, buf, sizeof buf) > 0) {
  }
  std::lock_guard<std::mutex> lock(mu_);
  Taken t;
  t.input.swap(input_);
  t.eof = eof_;
  t.signals.swap(signals_);
  t.size = size_;
  size_.reset();
  return t;
}

void ProcessFeed::close_input() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  input_.clear();
}

}  // namespace cordon
