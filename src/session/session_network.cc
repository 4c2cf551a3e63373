#include "session/session_network.h"

#include "plan/net_rules.h"

namespace cordon {

const SessionLoopback* SessionNetwork::loopback() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!wanted_) return nullptr;
  if (!tried_) {
    tried_ = true;
    auto lo = make();
    if (lo.ok())
      loopback_.emplace(std::move(*lo));
    else
      failure_ = lo.error().message;
  }
  return loopback_ ? &*loopback_ : nullptr;
}

Result<SessionLoopback> SessionNetwork::make() const {
  if (source_.holder) return SessionLoopback::join_holder(source_.holder->first, source_.holder->second);
  auto lo = SessionLoopback::create(source_.cordon_exe);
  if (lo.ok() && source_.on_made)
    if (auto st = read_proc_stat(lo->holder_pid())) source_.on_made(lo->holder_pid(), st->start);
  return lo;
}

std::string SessionNetwork::kind() const {
  std::lock_guard<std::mutex> lock(mu_);
  return wanted_ && (loopback_ || !tried_) ? "session" : "command";
}

std::string SessionNetwork::fallback_reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_;
}

SessionNetwork::Port SessionNetwork::take_port(bool in_session_loopback) {
  if (!in_session_loopback) return Port(nullptr, kProxyPort);
  std::lock_guard<std::mutex> lock(mu_);
  int p = kProxyPort;
  while (ports_.count(p)) ++p;
  ports_.insert(p);
  return Port(this, p);
}

SessionNetwork::Port& SessionNetwork::Port::operator=(Port&& o) noexcept {
  if (this != &o) {
    release();
    owner_ = o.owner_;
    port_ = o.port_;
    o.owner_ = nullptr;
  }
  return *this;
}

void SessionNetwork::Port::release() {
  if (!owner_) return;
  std::lock_guard<std::mutex> lock(owner_->mu_);
  owner_->ports_.erase(port_);
  owner_ = nullptr;
}

}  // namespace cordon
