// NET-7, NET-8, NET-9: the allowlist proxy for one command. It accepts on a listening socket
// that lives in the sandbox's network namespace (created there by the net stage, handed out),
// answers HTTP CONNECT, absolute-form http:// and SOCKS5 CONNECT, resolves names here, outside,
// checks every address, and connects to the address it checked.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "plan/net_rules.h"

namespace cordon {

// NET-8 limits.
struct ProxyLimits {
  unsigned max_connections = 256;
  int idle_seconds = 600;
  int header_seconds = 10;
};

// NET-10: the person's answer about one host no entry allows.
struct HostAnswer {
  bool allowed = false;
  std::string rule;  // for the result and the refusal: "asked: approved (user)", "asked: refused
                     // (away)"
};
// Asks about "host:port" and blocks until answered. Called on a thread of the proxy's own, one
// question at a time; the answer holds for that host for the rest of the command.
using HostAsk = std::function<HostAnswer(const std::string& host_port)>;

class ProxyServer {
 public:
  // `listen_fd`: a listening TCP socket, owned from now on. `own`: this machine's interface
  // addresses (canonical), refused unless an entry names them literally. `ask`: when the rules
  // say unknown = "ask", how a host no entry names is asked about (else such hosts are refused).
  ProxyServer(int listen_fd, NetRules rules, std::vector<std::string> own, ProxyLimits limits = {},
              HostAsk ask = {});
  ~ProxyServer();
  ProxyServer(const ProxyServer&) = delete;
  ProxyServer& operator=(const ProxyServer&) = delete;

  // Serves on a thread of its own until stop().
  void start();
  // Ends every connection and the thread; the hosts reached or refused, in first-seen order.
  // A question being asked is waited for (it ends when answered or at [away] timeout); the
  // questions still queued are dropped.
  std::vector<NetConnection> stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// This machine's interface addresses, canonical (NET-8).
std::vector<std::string> own_addresses();

}  // namespace cordon
