// NET-7, NET-8, NET-9: the allowlist proxy for one command. It accepts on a listening socket
// that lives in the sandbox's network namespace (created there by the net stage, handed out),
// answers HTTP CONNECT, absolute-form http:// (every request on a kept-alive connection judged
// by itself and sent only to its own host's upstream) and SOCKS5 CONNECT, resolves names here,
// outside, checks every address (plan/address_check.h), and connects to the address it checked.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/credential_relay.h"
#include "plan/net_rules.h"

namespace cordon {

// NET-8: connections open at once through every proxy of one session (each a client and an
// upstream descriptor in cordon), so that commands side by side cannot exhaust cordon's
// descriptors. Shared by the session's commands; thread-safe.
class ConnectionBudget {
 public:
  explicit ConnectionBudget(unsigned limit) : limit_(limit) {}
  bool take();  // false when the limit is reached
  void give();
  unsigned limit() const { return limit_; }

 private:
  std::atomic<unsigned> used_{0};
  const unsigned limit_;
};

// NET-8 limits.
struct ProxyLimits {
  unsigned max_connections = 256;  // per command
  int idle_seconds = 600;
  int header_seconds = 10;
  size_t max_entries = kMaxConnectionEntries;  // host:ports listed one by one in the result
};

// NET-10: the person's answer about one host no entry allows.
struct HostAnswer {
  bool allowed = false;
  std::string rule;  // for the result and the refusal: "asked: approved (user)", "asked: refused
                     // (away)"
};
// Asks about "host:port" and blocks until answered. `warning`: what the question must add
// (an address that is this machine itself), or empty. Called on a thread of the proxy's own,
// one question at a time; the answer holds for that host for the rest of the command.
using HostAsk =
    std::function<HostAnswer(const std::string& host_port, const std::string& warning)>;

class ProxyServer {
 public:
  // `listen_fd`: a listening TCP socket, owned from now on. `own`: this machine's interface
  // networks, refused unless an entry names the address literally. `ask`: when the rules say
  // unknown = "ask", how a host no entry names is asked about (else such hosts are refused).
  // `session`: the budget of connections this proxy shares with the session's other commands
  // (none: only the per-command limit).
  ProxyServer(int listen_fd, NetRules rules, std::vector<OwnNetwork> own, ProxyLimits limits = {},
              HostAsk ask = {}, std::shared_ptr<ConnectionBudget> session = {});
  ~ProxyServer();
  ProxyServer(const ProxyServer&) = delete;
  ProxyServer& operator=(const ProxyServer&) = delete;

  // LL-1: every request must carry `user` and `password` (HTTP: Proxy-Authorization Basic,
  // answered 407 when it does not; SOCKS5: RFC 1929's user and password). For a proxy on the
  // machine's loopback, which any process there can reach. Called before start().
  void require_password(std::string user, std::string password);

  // AUD-3: the command's credentials: CONNECTs to their hosts are served by
  // relay_with_credentials (TLS terminated, placeholders replaced), and a plain http:// request
  // carrying a placeholder is refused. Called before start().
  void use_credentials(std::shared_ptr<const CredentialProxying> credentials);
  // AUD-3: the credentials put on the wire, after stop().
  std::vector<CredentialUse> credential_uses() const;

  // Serves on a thread of its own until stop().
  void start();
  // Ends every connection and the thread; the hosts reached or refused, in first-seen order,
  // at most limits.max_entries of them and then one kOtherHosts entry for the rest. A host
  // asked for without the password and never with it is refused with kNoProxyPassword.
  // A question being asked is waited for (it ends when answered or at [away] timeout); the
  // questions still queued are dropped.
  std::vector<NetConnection> stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cordon
