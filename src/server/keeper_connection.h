// One client of a session keeper (issue 30): cordon's JSON-RPC (`cordon serve`'s handlers,
// docs/protocol.md) over one accepted Unix socket, on the keeper's session (SharedSession), until
// the client closes, sends `shutdown`, or `stop_fd` turns readable (the keeper ends). The jobs
// it started go on running after it.
#pragma once

#include <functional>
#include <string>

#include "cordon/cordon.h"

namespace cordon {

struct KeeperConnection {
  int fd = -1;       // the accepted socket; closed by the caller
  int stop_fd = -1;  // readable once the keeper ends
  api::Session* session = nullptr;
  std::function<void(const std::string&)> log;
};
void serve_keeper_connection(const KeeperConnection& c);

}  // namespace cordon
