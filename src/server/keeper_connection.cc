#include "server/keeper_connection.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "host/path_info.h"
#include "jsonrpc/jsonrpc_serve.h"
#include "server/line_pump.h"
#include "server/shared_session.h"

namespace cordon {

namespace {

bool send_all(int fd, std::string_view line) {
  while (!line.empty()) {
    ssize_t w = ::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;  // the client went away
    line.remove_prefix(static_cast<size_t>(w));
  }
  return true;
}

Error invalid(std::string message) { return make_error(ErrorKind::kInvalid, std::move(message)); }

// `initialize` on a keeper: the keeper's own session, on its own project.
Result<std::unique_ptr<api::Session>> open_view(api::Session& s, const rpc::InitializeParams& ip) {
  const api::SessionInfo& info = s.info();
  if (ip.session.value_or("") != info.id)
    return invalid(
        fmt::format("this is the keeper of session {}; give `session`: \"{}\".", info.id, info.id));
  if (real_or_lexical(ip.project) != info.project)
    return invalid(fmt::format("session {} belongs to the project {}, not {}.", info.id,
                               info.project, ip.project));
  if (ip.resume || ip.away)
    return invalid(
        "a keeper's session is resumed with `cordon session resume`; `resume` and "
        "`away` are not taken here.");
  return std::unique_ptr<api::Session>(std::make_unique<SharedSession>(s));
}

// Reads the client's lines until its end, `shutdown` or the keeper's end.
void read_lines(int fd, int stop_fd, rpc::ServeConnection& conn) {
  LinePump pump;
  while (!conn.finished()) {
    pollfd p[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (p[1].revents) return;
    if (!pump.read(fd, conn)) return;
  }
}

}  // namespace

void serve_keeper_connection(const KeeperConnection& c) {
  rpc::Peer peer([fd = c.fd](std::string_view line) { return send_all(fd, line); });
  rpc::ServeOptions opts;
  opts.log = c.log;
  opts.open = [s = c.session](const rpc::InitializeParams& ip,
                              Asker*) -> Result<std::unique_ptr<api::Session>> {
    return open_view(*s, ip);
  };
  rpc::ServeConnection conn(std::move(opts), peer);
  read_lines(c.fd, c.stop_fd, conn);
  conn.close();
}

}  // namespace cordon
