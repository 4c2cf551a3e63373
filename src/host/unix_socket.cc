#include "host/unix_socket.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/paths.h"

namespace cordon {

namespace {

// The address of `path`; when it is too long for sun_path, the path through `dir_fd`, an
// O_PATH descriptor of its folder that the caller closes after use (Linux; elsewhere such a
// path fails with ENAMETOOLONG).
bool address_of(const std::string& path, sockaddr_un& a, int& dir_fd) {
  std::memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  std::string p = path;
  if (p.size() >= sizeof a.sun_path) {
#if !defined(__linux__)
    errno = ENAMETOOLONG;
    return false;
#endif
    dir_fd = open(path_parent(path).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) return false;
    p = "/proc/self/fd/" + std::to_string(dir_fd) + "/" + path_base(path);
    if (p.size() >= sizeof a.sun_path) {
      errno = ENAMETOOLONG;
      return false;
    }
  }
  std::memcpy(a.sun_path, p.c_str(), p.size() + 1);
  return true;
}

// Calls `f(fd, address)` with the address of `path`; its answer, or -1 with errno.
template <class F>
int with_address(const std::string& path, int fd, F f) {
  sockaddr_un a;
  int dir_fd = -1;
  int r = address_of(path, a, dir_fd) ? f(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) : -1;
  int saved = errno;
  if (dir_fd >= 0) close(dir_fd);
  errno = saved;
  return r;
}

}  // namespace

int listen_unix(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  unlink(path.c_str());
  // Created 0600 from the start: no moment where another user could connect.
  mode_t old = umask(0177);
  int r = with_address(path, fd, [](int s, sockaddr* a, socklen_t n) { return bind(s, a, n); });
  umask(old);
  if (r != 0 || chmod(path.c_str(), 0600) != 0 || listen(fd, 64) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int connect_unix(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int r = with_address(path, fd, [](int s, sockaddr* a, socklen_t n) {
    int c;
    do c = connect(s, a, n);
    while (c != 0 && errno == EINTR);
    return c;
  });
  if (r != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

bool peer_is_same_user(int fd) {
#if defined(__APPLE__)
  uid_t uid;
  gid_t gid;
  if (getpeereid(fd, &uid, &gid) != 0) return false;
  return uid == geteuid();
#else
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  return cred.uid == geteuid();
#endif
}

}  // namespace cordon
