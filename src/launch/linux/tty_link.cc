#include "launch/linux/tty_link.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sys/fs_util.h"

namespace cordon {

namespace {

// The numbers the stage's descriptors get in the sandbox (bwrap's own are 3 to 5, NET-7's stage
// 6 and 7).
constexpr int kChildSock = 8;
constexpr int kChildExe = 9;

}  // namespace

Result<std::unique_ptr<TtyLink>> TtyLink::add(LaunchIo& io, TtySize size,
                                              const std::string& exe) {
  std::unique_ptr<TtyLink> t(new TtyLink());
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return make_error(
        ErrorKind::kUnavailable,
        std::string("the terminal could not be made: socketpair: ") + std::strerror(errno));
  t->sock_ = high_fd(sv[0]);
  t->child_sock_ = high_fd(sv[1]);
  t->exe_ = high_fd(open(exe.empty() ? "/proc/self/exe" : exe.c_str(), O_RDONLY | O_CLOEXEC));
  if (t->sock_ < 0 || t->child_sock_ < 0 || t->exe_ < 0)
    return make_error(ErrorKind::kUnavailable,
                      std::string("the terminal could not be made: cordon's own program could "
                                  "not be opened: ") +
                          std::strerror(errno));
  io.extra_fds.push_back({t->child_sock_, kChildSock});
  io.extra_fds.push_back({t->exe_, kChildExe});
  for (auto& w :
       tty_stage_prefix("/proc/self/fd/" + std::to_string(kChildExe), kChildExe, kChildSock, size))
    io.argv_prefix.push_back(w);
  io.tty_socket = t->sock_;
  return t;
}

TtyLink::~TtyLink() {
  for (int fd : {sock_, child_sock_, exe_})
    if (fd >= 0) close(fd);
}

}  // namespace cordon
