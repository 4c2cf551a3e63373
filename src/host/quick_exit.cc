#include "host/quick_exit.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__linux__)
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#endif

namespace cordon {

namespace {

// The folders to remove at exit, in memory the holder shares: fixed buffers, so that it needs
// no allocator. Written under the lock before the exit; read by the holder only after the
// exiting process is gone.
constexpr int kMaxRemovals = 8;
struct Removals {
  std::mutex mu;
  bool deferred = false;
  int count = 0;
  char paths[kMaxRemovals][PATH_MAX];
};
Removals g_removals;

void remove_now() {
  std::lock_guard<std::mutex> lock(g_removals.mu);
  for (int i = 0; i < g_removals.count; ++i) rmdir(g_removals.paths[i]);
  g_removals.count = 0;
}

}  // namespace

void defer_removals_to_exit() {
  std::lock_guard<std::mutex> lock(g_removals.mu);
  if (g_removals.deferred) return;
  g_removals.deferred = true;
  std::atexit(remove_now);  // a return from main (exit_leaving_teardown does its own)
}

bool removals_deferred() {
  std::lock_guard<std::mutex> lock(g_removals.mu);
  return g_removals.deferred;
}

bool remove_after_exit(const std::string& dir) {
  std::lock_guard<std::mutex> lock(g_removals.mu);
  if (!g_removals.deferred || g_removals.count == kMaxRemovals || dir.empty() ||
      dir.size() >= PATH_MAX)
    return false;
  std::memcpy(g_removals.paths[g_removals.count], dir.c_str(), dir.size() + 1);
  ++g_removals.count;
  return true;
}

#if defined(__linux__)
namespace {

// The holder's stack: its own, in memory it shares with the exiting process, which no longer
// runs any code that could touch it. It makes only raw system calls (no libc state).
alignas(64) char holder_stack[16384];

int holder(void* arg) {
  const int* fds = static_cast<const int*>(arg);
  const long read_end = fds[0];
  syscall(SYS_close, fds[1]);
  char c;
  // Returns 0 (end of file) once the exiting process's last descriptors are closed, which is
  // after it has let go of the memory. With every signal blocked nothing interrupts it; should
  // it fail all the same, the holder ends at once and the process unmaps its memory itself.
  if (syscall(SYS_read, read_end, &c, 1) == 0)
    for (int i = 0; i < g_removals.count; ++i) syscall(SYS_rmdir, g_removals.paths[i]);
  syscall(SYS_exit_group, 0);
  return 0;
}

// Where the holder may not or cannot run: what it would have done, then the exit.
[[noreturn]] void plain_exit(int status) {
  remove_now();
  _exit(status);
}

}  // namespace

void exit_leaving_teardown(int status, int argc, char** argv) {
  // Valgrind stops the whole program at a clone that is neither a thread nor a fork.
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload && std::strstr(preload, "vgpreload")) plain_exit(status);
  // The holder shares the memory its command line is read from: it reads as the program's name
  // alone, so that a search for the command cordon ran (pgrep -f) cannot find the holder.
  if (argc > 1) {
    char* end = argv[argc - 1] + std::strlen(argv[argc - 1]);
    if (end > argv[1]) std::memset(argv[1], 0, static_cast<size_t>(end - argv[1]));
  }
  // The list is final: no other thread may add to it while the holder reads it.
  g_removals.mu.lock();
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, nullptr);  // the holder starts with every signal blocked
  // Nothing this process holds may stay open in the holder's copy of the descriptor table.
  if (syscall(SYS_close_range, 0U, UINT_MAX, 0U) != 0)
    for (int fd = 0; fd < 1024; ++fd) close(fd);
  static int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0 ||
      clone(holder, holder_stack + sizeof holder_stack, CLONE_VM, fds) < 0) {
    g_removals.mu.unlock();
    plain_exit(status);
  }
  _exit(status);
}
#else
void exit_leaving_teardown(int status, int, char**) {
  remove_now();
  _exit(status);
}
#endif

}  // namespace cordon
