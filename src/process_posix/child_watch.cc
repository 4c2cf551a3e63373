#include "process_posix/child_watch.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>

namespace cordon {

namespace {

// One pipe per slot, made when the slot is first used and kept for the life of the process, so
// the signal handler never writes to a descriptor that was closed (and maybe reused) meanwhile.
// The handler reads only lock-free atomics.
constexpr int kSlots = 128;
struct Slot {
  std::atomic<int> write_fd{-1};
  int read_fd = -1;
  std::atomic<bool> busy{false};
};
Slot g_slots[kSlots];
struct sigaction g_previous;

void on_sigchld(int sig, siginfo_t* info, void* ctx) {
  const int saved = errno;
  for (auto& slot : g_slots) {
    int fd = slot.write_fd.load(std::memory_order_acquire);
    if (fd >= 0) {
      ssize_t w = ::write(fd, "x", 1);  // a full pipe already says "look"
      (void)w;
    }
  }
  // A handler the program had before keeps working.
  if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction)
    g_previous.sa_sigaction(sig, info, ctx);
  else if (!(g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_handler != SIG_DFL &&
           g_previous.sa_handler != SIG_IGN)
    g_previous.sa_handler(sig);
  errno = saved;
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigchld;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &g_previous);
  });
}

int nonblocking_cloexec(int fd) {
  // Clear of the small numbers a child is handed (process.h: make_pipe).
  if (fd >= 0 && fd < 10) {
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    ::close(fd);
    fd = high;
  }
  if (fd < 0) return fd;
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

// Gives the slot its pipe, once; false when the pipe cannot be made.
bool slot_pipe(Slot& slot) {
  if (slot.read_fd >= 0) return true;
  int p[2];
  if (::pipe(p) != 0) return false;
  int r = nonblocking_cloexec(p[0]), w = nonblocking_cloexec(p[1]);
  if (r < 0 || w < 0) {
    if (r >= 0) ::close(r);
    if (w >= 0) ::close(w);
    return false;
  }
  slot.read_fd = r;
  slot.write_fd.store(w, std::memory_order_release);
  return true;
}

}  // namespace

ChildWatch::ChildWatch() {
  install_handler();
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].busy.compare_exchange_strong(expected, true)) continue;
    if (!slot_pipe(g_slots[i])) {
      g_slots[i].busy.store(false);
      return;  // the caller falls back to a timer
    }
    slot_ = i;
    read_fd_ = g_slots[i].read_fd;
    drain();  // what earlier exits left there
    return;
  }
}

ChildWatch::~ChildWatch() {
  if (slot_ >= 0) g_slots[slot_].busy.store(false, std::memory_order_release);
}

void ChildWatch::drain() const {
  char buf[256];
  while (read_fd_ >= 0 && ::read(read_fd_, buf, sizeof buf) > 0) {
  }
}

}  // namespace cordon
