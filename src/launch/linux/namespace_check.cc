#include "launch/linux/namespace_check.h"

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace cordon {

namespace {

constexpr int kRefused = 3;  // the child's status when a step was refused

}  // namespace

bool namespaces_refused() {
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {  // async-signal-safe calls only
    const bool ok = unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 &&
                    mount(nullptr, "/", nullptr, MS_SLAVE | MS_REC, nullptr) == 0;
    _exit(ok ? 0 : kRefused);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == kRefused;
}

}  // namespace cordon
