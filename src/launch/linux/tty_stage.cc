#include "launch/linux/tty_stage.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "render/tty_stage_args.h"
#include "sys/fd_passing.h"
#include "sys/stage_failure.h"

namespace cordon {

namespace {

int fail(const char* step) { return stage_failure("the terminal could not be made", step); }

// The slave of `master`: through the master itself where the kernel can (no path to look up),
// else by its name under the sandbox's /dev/pts.
int open_slave(int master) {
#ifdef TIOCGPTPEER
  int s = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (s >= 0) return s;
#endif
  char name[64];
  if (ptsname_r(master, name, sizeof name) != 0) return -1;
  return open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
}

// The slave as the controlling terminal and as 0, 1 and 2.
int become_terminal(int slave) {
  if (getsid(0) != getpid()) (void)setsid();  // bwrap's --new-session did it already
  if (ioctl(slave, TIOCSCTTY, 0) != 0) return fail("make it the controlling terminal");
  for (int fd = 0; fd <= 2; ++fd)
    if (dup2(slave, fd) < 0) return fail("dup2");
  if (slave > 2) close(slave);
  return 0;
}

}  // namespace

int tty_stage_main(int argc, char** argv) {
  auto a = parse_tty_stage_args(argc, argv);
  if (!a) {
    std::fprintf(stderr, "cordon: %s is cordon's own first stage inside a sandbox\n",
                 kTtyStageWord);
    return 125;
  }
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return fail("open /dev/ptmx");
  if (unlockpt(master) != 0) return fail("unlockpt");
  int slave = open_slave(master);
  if (slave < 0) return fail("open the terminal");
  winsize ws{};
  ws.ws_col = a->size.cols;
  ws.ws_row = a->size.rows;
  if (ioctl(slave, TIOCSWINSZ, &ws) != 0) return fail("set the size");
  if (send_fd(a->sock, master) != 0) return fail("hand the terminal to cordon");
  // Only cordon holds the master: the command has the slave and nothing else of the stage's.
  close(master);
  close(a->sock);
  close(a->exe);
  // The sandbox's error stream, kept (closed at exec) for a command that cannot be started.
  const int err = fcntl(2, F_DUPFD_CLOEXEC, 10);
  if (int r = become_terminal(slave); r != 0) return r;
  execvp(argv[a->command_at], argv + a->command_at);
  // The words bwrap itself uses, on the error stream, so a missing command is told as one
  // (RES-4: exit 127).
  if (err >= 0) dprintf(err, "bwrap: execvp %s: %s\n", argv[a->command_at], std::strerror(errno));
  return 1;
}

}  // namespace cordon
