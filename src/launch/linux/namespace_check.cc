#include "launch/linux/namespace_check.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cordon {

namespace {

// The child's exit status names its refused step: 10 + step, errno in a pipe.
enum Step { kUnshare = 1, kSlave = 2 };

}  // namespace

std::string namespaces_refused() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return "";
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return "";
  }
  if (pid == 0) {  // async-signal-safe calls only
    close(fds[0]);
    int step = 0;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
      step = kUnshare;
    else if (mount(nullptr, "/", nullptr, MS_SLAVE | MS_REC, nullptr) != 0)
      step = kSlave;
    int err = errno;
    if (step != 0 && write(fds[1], &err, sizeof err) != sizeof err) err = 0;
    _exit(step == 0 ? 0 : 10 + step);
  }
  close(fds[1]);
  int err = 0;
  const ssize_t n = read(fds[0], &err, sizeof err);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) <= 10 || n != sizeof err) return "";
  const char* what = WEXITSTATUS(status) == 10 + kUnshare
                         ? "making a user and a mount namespace"
                         : "making / a slave mount in them";
  return std::string(what) + ": " + std::strerror(err);
}

}  // namespace cordon
