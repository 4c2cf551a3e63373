// One descriptor handed over a Unix socket (SCM_RIGHTS): how a first stage inside a sandbox
// gives cordon what it opened there (NET-7's listening socket, JOB-3's terminal).
//
//   send_fd(sock, listener);           // inside: 0, or -1 with errno
//   int fd = receive_fd(sock, false);  // cordon: the descriptor (close-on-exec), or -1
#pragma once

namespace cordon {

// Sends `fd` with one byte of data; 0, or -1 with errno.
int send_fd(int sock, int fd);

// The descriptor sent, close-on-exec; -1 when none came (the other end closed, an error, or, with
// `nonblocking`, nothing is there yet: errno EAGAIN).
int receive_fd(int sock, bool nonblocking);

}  // namespace cordon
