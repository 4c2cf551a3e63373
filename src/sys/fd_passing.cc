#include "sys/fd_passing.h"

#include <fcntl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace cordon {

namespace {

// macOS has neither flag: a sender there ignores SIGPIPE itself, and the descriptor received is
// made close-on-exec after the fact.
#ifdef MSG_NOSIGNAL
constexpr int kNoSignal = MSG_NOSIGNAL;
#else
constexpr int kNoSignal = 0;
#endif
#ifdef MSG_CMSG_CLOEXEC
constexpr int kCloexec = MSG_CMSG_CLOEXEC;
#else
constexpr int kCloexec = 0;
#endif

// One byte and room for one descriptor: the message both ends use.
struct OneFdMessage {
  char byte = 'F';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  OneFdMessage() {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
  }
  OneFdMessage(const OneFdMessage&) = delete;
  OneFdMessage& operator=(const OneFdMessage&) = delete;
};

}  // namespace

int send_fd(int sock, int fd) {
  OneFdMessage m;
  msghdr& msg = m.msg;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  return sendmsg(sock, &msg, kNoSignal) == 1 ? 0 : -1;
}

int receive_fd(int sock, bool nonblocking) {
  OneFdMessage m;
  msghdr& msg = m.msg;
  ssize_t n;
  do {
    n = recvmsg(sock, &msg, kCloexec | (nonblocking ? MSG_DONTWAIT : 0));
  } while (n < 0 && errno == EINTR);
  if (n != 1) return -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
      if (kCloexec == 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
      return fd;
    }
  return -1;
}

}  // namespace cordon
