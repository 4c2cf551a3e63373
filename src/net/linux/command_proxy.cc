#include "net/linux/command_proxy.h"

#include <fcntl.h>
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

}  // namespace

Result<std::unique_ptr<CommandProxy>> CommandProxy::start(
    const ProcessPart& part, LaunchIo& io, const NetRules& rules, HostAsk ask,
    std::shared_ptr<ConnectionBudget> session) {
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
    self->server_->start();
  });
  return p;
}

Result<std::unique_ptr<CommandProxy>> CommandProxy::start(
    const ProcessPart& part, LaunchIo& io, const Policy& policy, const std::string& home,
    HostAsk ask, std::shared_ptr<ConnectionBudget> session) {
  if (!part.proxy_port) return std::unique_ptr<CommandProxy>();
  auto rules =
      parse_net_rules(policy.network.allow, policy.network.deny,
                      policy.network.ask_unknown ? NetUnknown::kAsk : NetUnknown::kRefuse,
                      policy.source_file.empty() ? std::string("~/.config/cordon/config.toml")
                                                 : tilde_path(policy.source_file, home));
  if (!rules.ok()) return rules.error();
  return start(part, io, rules.value(), std::move(ask), std::move(session));
}

std::vector<NetConnection> CommandProxy::finish() {
  if (finished_) return result_;
  finished_ = true;
  if (sock_ >= 0) shutdown(sock_, SHUT_RDWR);  // wakes the receiver when no socket came
  if (receiver_.joinable()) receiver_.join();
  if (server_) result_ = server_->stop();
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
