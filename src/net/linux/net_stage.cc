#include "net/linux/net_stage.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sys/fd_passing.h"
#include "sys/stage_failure.h"

namespace cordon {

namespace {

int fail(const char* step) { return stage_failure("the network proxy could not start", step); }

}  // namespace

int net_stage_main(int argc, char** argv) {
  // cordon __net-stage SOCK EXE PORT -- command...
  if (argc < 7 || std::strcmp(argv[5], "--") != 0) {
    std::fprintf(stderr, "cordon: %s is cordon's own first stage inside a sandbox\n",
                 kNetStageWord);
    return 125;
  }
  int sock = std::atoi(argv[2]);
  int exe = std::atoi(argv[3]);
  int port = std::atoi(argv[4]);
  int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l < 0) return fail("socket");
  int one = 1;
  (void)setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return fail("bind 127.0.0.1");
  if (listen(l, 1024) != 0) return fail("listen");
  if (send_fd(sock, l) != 0) return fail("hand the socket to cordon");
  // Only cordon's copy may accept: the command never holds the listening socket.
  close(l);
  close(sock);
  close(exe);
  execvp(argv[6], argv + 6);
  // The words bwrap itself uses, so a missing command is told as one (RES-4: exit 127).
  std::fprintf(stderr, "bwrap: execvp %s: %s\n", argv[6], std::strerror(errno));
  return 1;
}

}  // namespace cordon
