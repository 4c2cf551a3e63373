#include "server/server_main.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string_view>

#include "cordon/cordon.h"
#include "core/strings.h"
#include "jsonrpc/jsonrpc.h"
#include "jsonrpc/jsonrpc_mcp.h"
#include "jsonrpc/jsonrpc_peer.h"
#include "jsonrpc/jsonrpc_serve.h"
#include "server/line_pump.h"

namespace cordon {

namespace {

int g_signal_write = -1;

void on_signal(int) {
  if (g_signal_write >= 0) {
    char c = 1;
    ssize_t w = ::write(g_signal_write, &c, 1);
    (void)w;
  }
}

// SIGINT, SIGTERM and SIGHUP end the connection like the end of input: running commands are
// ended and their aftercare done before cordon exits.
int install_signal_pipe() {
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) return -1;
  g_signal_write = p[1];
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return p[0];
}

bool write_stdout(std::string_view line) {
  while (!line.empty()) {
    ssize_t w = ::write(1, line.data(), line.size());
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd p{1, POLLOUT, 0};
        poll(&p, 1, 1000);
        continue;
      }
      return false;  // the client closed its end
    }
    line.remove_prefix(static_cast<size_t>(w));
  }
  return true;
}

void log_line(const char* face, const std::string& line) {
  std::string s = fmt::format("cordon {}: {}\n", face, printable(line));
  ssize_t w = ::write(2, s.data(), s.size());
  (void)w;
}

// Reads standard input until its end, a signal, or `finished()`, handing each line over.
template <class Connection>
void read_loop(Connection& conn, const char* face) {
  int sig = install_signal_pipe();
  LinePump pump;
  while (!conn.finished()) {
    pollfd p[2] = {{0, POLLIN, 0}, {sig, POLLIN, 0}};
    int n = poll(p, sig >= 0 ? 2 : 1, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (sig >= 0 && p[1].revents) {
      log_line(face, "signal received: ending running commands, then exiting");
      break;
    }
    if (!p[0].revents) continue;
    if (!pump.read(0, conn)) break;
  }
  conn.close();
}

}  // namespace

int serve_main(const ServeArgs& args) {
  rpc::Peer peer(write_stdout);
  rpc::ServeOptions opts;
  opts.max_in_flight = args.max_in_flight;
  opts.log = [](const std::string& l) { log_line("serve", l); };
  opts.open = [](const rpc::InitializeParams& ip,
                 Asker* asker) -> Result<std::unique_ptr<api::Session>> {
    api::Options o;
    o.project = ip.project;
    o.cwd = ip.project;
    o.session = ip.session.value_or("");
    o.create_session = !ip.resume;
    o.refuse_unsuitable_project = true;  // FS-2, FS-4: said at initialize
    o.resume = ip.resume;
    o.away = ip.away;
    o.asker = asker;
    return api::Session::open(o);
  };
  {
    rpc::ServeConnection conn(std::move(opts), peer);
    read_loop(conn, "serve");
  }
  return 0;
}

int mcp_main(const McpArgs& args) {
  rpc::Peer peer(write_stdout);
  rpc::McpOptions opts;
  opts.max_in_flight = args.max_in_flight;
  opts.default_timeout = args.default_timeout;
  opts.progress_interval = args.progress_interval;
  opts.log = [](const std::string& l) { log_line("mcp", l); };
  opts.open = [&args](Asker* asker) -> Result<std::unique_ptr<api::Session>> {
    api::Options o;
    o.project = args.project;
    o.refuse_unsuitable_project = true;  // FS-2, FS-4: said at initialize
    o.session = args.session;
    o.away = args.away;
    o.asker = asker;
    o.preapproved.assign(args.allow.begin(), args.allow.end());
    return api::Session::open(o);
  };
  {
    rpc::McpConnection conn(std::move(opts), peer);
    read_loop(conn, "mcp");
  }
  return 0;
}

}  // namespace cordon
