// A Unix socket in a folder of cordon's own (issue 30: the session keeper's): listened on by one
// process, connected to by the same user's `cordon` commands. A path longer than a socket
// address holds is reached through its folder's descriptor (/proc/self/fd/N/NAME, Linux).
//
//   int l = listen_unix(dir + "/keeper.sock");    // -1 and errno on failure; mode 0600
//   int c = accept4(l, nullptr, nullptr, SOCK_CLOEXEC);
//   if (!peer_is_same_user(c)) close(c);
//   int fd = connect_unix(dir + "/keeper.sock");  // -1 and errno: no one listens
#pragma once

#include <string>

namespace cordon {

// Binds a stream socket at `path` (a stale one there is replaced), readable and writable by
// its owner only, and listens; the descriptor is close-on-exec. -1 with errno on failure.
int listen_unix(const std::string& path);
// Connects to the socket at `path`; -1 with errno (ENOENT, ECONNREFUSED: nobody listens).
int connect_unix(const std::string& path);
// The process at the other end runs as this process's effective user (SO_PEERCRED).
bool peer_is_same_user(int fd);

}  // namespace cordon
