// NET-7: the allowlist proxy around one sandboxed command: the one call that starts it, and
// the one that collects the hosts the command reached or was refused. Session::run calls
// start() before bwrap starts and finish() once the command ended.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "launch/linux/launcher.h"
#include "net/proxy_server.h"
#include "plan/net_rules.h"
#include "plan/planner.h"

namespace cordon {

struct Policy;

class CommandProxy {
 public:
  // When `part.proxy_port` is set: puts the net stage before the command (io.argv_prefix; run
  // from cordon's own binary through an inherited descriptor, so it works wherever cordon
  // lives), adds the stage's two descriptors to `io`, and waits on a thread for the listening
  // socket the stage sends. Returns nothing (no thread, nothing changed) when the command does not
  // use the proxy.
  // Example: auto proxy = CommandProxy::start(part, io, rules); ... proxy->finish();
  // `ask`: how hosts no entry names are asked about when the rules say unknown = "ask"
  // (NET-10); called on the proxy's own thread, and never after finish() returned.
  // `session`: the connections the session's commands may hold at once (NET-8), shared.
  // `credentials` (AUD-3): the command's [credentials], for the hosts they are bound to.
  static Result<std::unique_ptr<CommandProxy>> start(
      const ProcessPart& part, LaunchIo& io, const NetRules& rules, HostAsk ask = {},
      std::shared_ptr<ConnectionBudget> session = {},
      std::shared_ptr<const CredentialProxying> credentials = {});
  // The same, with the rules of `policy` ([network] allow/deny/unknown); `home` shortens the
  // config file's name in messages.
  static Result<std::unique_ptr<CommandProxy>> start(
      const ProcessPart& part, LaunchIo& io, const Policy& policy, const std::string& home,
      HostAsk ask = {}, std::shared_ptr<ConnectionBudget> session = {},
      std::shared_ptr<const CredentialProxying> credentials = {});
  // LL-1: the proxy for a command without a network namespace of its own (the Landlock
  // backend): it listens on the machine's loopback, on a free port (port()), serves at once,
  // and asks every request for `password` (any process of the machine can reach that port).
  // Example: auto proxy = CommandProxy::start_on_loopback(policy, home, random_password());
  static Result<std::unique_ptr<CommandProxy>> start_on_loopback(
      const Policy& policy, const std::string& home, const std::string& password,
      HostAsk ask = {}, std::shared_ptr<ConnectionBudget> session = {});
  // The port on 127.0.0.1 of a proxy started on the loopback; 0 otherwise.
  int port() const { return port_; }
  ~CommandProxy();

  // Ends the proxy (the command has ended) and lists its hosts.
  std::vector<NetConnection> finish();
  // AUD-3: the credentials put on the wire, once finish() returned.
  const std::vector<CredentialUse>& credential_uses() const { return uses_; }

 private:
  CommandProxy() = default;
  // [[maybe_unused]]: a macOS build links net_absent.cc in place of command_proxy.cc, and
  // clang refuses private fields nobody uses.
  // Our end of the Unix socket the stage sends the listener over.
  [[maybe_unused]] int sock_ = -1;
  [[maybe_unused]] int child_sock_ = -1;
  [[maybe_unused]] int exe_ = -1;
  NetRules rules_;
  HostAsk ask_;
  std::shared_ptr<ConnectionBudget> session_;
  std::shared_ptr<const CredentialProxying> credentials_;
  std::vector<CredentialUse> uses_;
  std::unique_ptr<ProxyServer> server_;
  std::thread receiver_;
  [[maybe_unused]] bool finished_ = false;
  [[maybe_unused]] int port_ = 0;
  std::vector<NetConnection> result_;
};

}  // namespace cordon
