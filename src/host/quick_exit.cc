#include "host/quick_exit.h"

#include <unistd.h>

#if defined(__linux__)
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

#include <climits>
#include <cstring>
#endif

namespace cordon {

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
  (void)syscall(SYS_read, read_end, &c, 1);
  syscall(SYS_exit_group, 0);
  return 0;
}

}  // namespace

void exit_leaving_teardown(int status, int argc, char** argv) {
  // The holder shares the memory its command line is read from: it reads as the program's name
  // alone, so that a search for the command cordon ran (pgrep -f) cannot find the holder.
  if (argc > 1) {
    char* end = argv[argc - 1] + std::strlen(argv[argc - 1]);
    std::memset(argv[1], 0, static_cast<size_t>(end - argv[1]));
  }
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, nullptr);  // the holder starts with every signal blocked
  // Nothing this process holds may stay open in the holder's copy of the descriptor table.
  if (syscall(SYS_close_range, 0U, UINT_MAX, 0U) != 0)
    for (int fd = 0; fd < 1024; ++fd) close(fd);
  static int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) _exit(status);
  if (clone(holder, holder_stack + sizeof holder_stack, CLONE_VM, fds) < 0) _exit(status);
  _exit(status);
}
#else
void exit_leaving_teardown(int status, int, char**) { _exit(status); }
#endif

}  // namespace cordon
