#include "net/linux/command_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "config/policy.h"
#include "core/paths.h"
#include "host/own_networks.h"
#include "net/linux/net_stage.h"
#include "sys/fd_passing.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// The numbers the stage's descriptors get in the sandbox (bwrap's own are 3 to 5).
constexpr int kChildSock = 6;
constexpr int kChildExe = 7;

Result<NetRules> rules_of(const Policy& policy, const std::string& home) {
  return parse_net_rules(policy.network.allow, policy.network.deny,
                         policy.network.ask_unknown ? NetUnknown::kAsk : NetUnknown::kRefuse,
                         policy.source_file.empty() ? std::string("~/.config/cordon/config.toml")
                                                    : tilde_path(policy.source_file, home));
}

// LL-1: a listening socket on 127.0.0.1, on a port the kernel picks; -1 (errno set) on failure.
int listen_on_loopback(int& port) {
  int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(l, 1024) != 0 ||
      getsockname(l, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    int e = errno;
    close(l);
    errno = e;
    return -1;
  }
  port = ntohs(a.sin_port);
  return l;
}

}  // namespace

Result<std::unique_ptr<CommandProxy>> CommandProxy::start(
    const ProcessPart& part, LaunchIo& io, const NetRules& rules, HostAsk ask,
    std::shared_ptr<ConnectionBudget> session, std::shared_ptr<const CredentialProxying> credentials) {
  if (!part.proxy_port) return std::unique_ptr<CommandProxy>();
  std::unique_ptr<CommandProxy> p(new CommandProxy());
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return make_error(
        ErrorKind::kNet,
        std::string("the network proxy could not start: socketpair: ") + std::strerror(errno));
  p->sock_ = sv[0];
  p->child_sock_ = high_fd(sv[1]);
  p->exe_ = high_fd(open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
  if (p->child_sock_ < 0 || p->exe_ < 0)
    return make_error(ErrorKind::kNet,
                      std::string("the network proxy could not start: cordon's own "
                                  "program could not be opened: ") +
                          std::strerror(errno));
  p->rules_ = rules;
  p->ask_ = std::move(ask);
  p->session_ = std::move(session);
  p->credentials_ = std::move(credentials);
  io.extra_fds.push_back({p->child_sock_, kChildSock});
  io.extra_fds.push_back({p->exe_, kChildExe});
  // First: a later stage (JOB-3's terminal) is run by this one.
  const std::vector<std::string> words = {"/proc/self/fd/" + std::to_string(kChildExe),
                                          kNetStageWord,
                                          std::to_string(kChildSock),
                                          std::to_string(kChildExe),
                                          std::to_string(*part.proxy_port),
                                          "--"};
  io.argv_prefix.insert(io.argv_prefix.begin(), words.begin(), words.end());
  CommandProxy* self = p.get();
  p->receiver_ = std::thread([self] {
    int l = receive_fd(self->sock_, false);
    if (l < 0) return;
    self->server_ = std::make_unique<ProxyServer>(l, self->rules_, own_networks(), ProxyLimits{},
                                                  self->ask_, self->session_);
    if (self->credentials_) self->server_->use_credentials(self->credentials_);  // AUD-3
    self->server_->start();
  });
  return p;
}

Result<std::unique_ptr<CommandProxy>> CommandProxy::start(
    const ProcessPart& part, LaunchIo& io, const Policy& policy, const std::string& home,
    HostAsk ask, std::shared_ptr<ConnectionBudget> session,
    std::shared_ptr<const CredentialProxying> credentials) {
  if (!part.proxy_port) return std::unique_ptr<CommandProxy>();
  auto rules = rules_of(policy, home);
  if (!rules.ok()) return rules.error();
  return start(part, io, rules.value(), std::move(ask), std::move(session),
               std::move(credentials));
}

Result<std::unique_ptr<CommandProxy>> CommandProxy::start_on_loopback(
    const Policy& policy, const std::string& home, const std::string& password, HostAsk ask,
    std::shared_ptr<ConnectionBudget> session) {
  auto rules = rules_of(policy, home);
  if (!rules.ok()) return rules.error();
  int port = 0;
  int l = listen_on_loopback(port);
  if (l < 0)
    return make_error(ErrorKind::kNet,
                      std::string("the network proxy could not listen on 127.0.0.1: ") +
                          std::strerror(errno));
  std::unique_ptr<CommandProxy> p(new CommandProxy());
  p->port_ = port;
  p->server_ = std::make_unique<ProxyServer>(l, rules.value(), own_networks(), ProxyLimits{},
                                             std::move(ask), std::move(session));
  p->server_->require_password(kProxyUser, password);
  p->server_->start();
  return p;
}

std::vector<NetConnection> CommandProxy::finish() {
  if (finished_) return result_;
  finished_ = true;
  if (sock_ >= 0) shutdown(sock_, SHUT_RDWR);  // wakes the receiver when no socket came
  if (receiver_.joinable()) receiver_.join();
  if (server_) {
    result_ = server_->stop();
    uses_ = server_->credential_uses();
  }
  server_.reset();
  for (int* fd : {&sock_, &child_sock_, &exe_})
    if (*fd >= 0) {
      close(*fd);
      *fd = -1;
    }
  return result_;
}

CommandProxy::~CommandProxy() { (void)finish(); }

}  // namespace cordon
