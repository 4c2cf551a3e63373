// JOB-2: a session's network for its sandboxed commands: one loopback that all its
// commands and background jobs share (made at the first command that needs it, kept until the
// session goes), and the allowlist proxy's port for each command, unique among the commands
// running in that loopback at once (each command has its own proxy, NET-7).
//
// Example:
//   SessionNetwork net(true);
//   if (const SessionLoopback* lo = net.loopback()) io.join_namespaces = lo->join();
//   SessionNetwork::Port port = net.take_port();   // released when `port` goes
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "launch/linux/session_loopback.h"

namespace cordon {

class SessionNetwork {
 public:
  // `wanted`: the face keeps the session alive across commands (serve, mcp, the C++ API). A
  // one-shot `cordon run` keeps a loopback per command.
  // Where the session's namespaces come from: made by `cordon_exe` (cordon's program,
  // SessionLoopback::create), or, when `holder` is set, joined through the holder another
  // cordon of this session keeps (its session keeper's; nothing is made when it is gone).
  struct Source {
    std::string cordon_exe;
    std::optional<std::pair<int, long long>> holder;  // pid, start time
    // Told the holder's pid and start time once the namespaces are made here.
    std::function<void(int pid, long long start)> on_made;
  };
  SessionNetwork(bool wanted, Source source) : wanted_(wanted), source_(std::move(source)) {}

  // The session's namespaces, made at the first call; null when not wanted or when they cannot
  // be made here (why: fallback_reason()). Thread-safe.
  const SessionLoopback* loopback();
  // What each command gets: "session" (one loopback for the session), "command" (its own).
  // `why` says why a wanted session loopback is not in use; empty otherwise.
  std::string kind() const;
  std::string fallback_reason() const;

  // A port for one command's proxy, held until the Port goes. In the session's loopback, the
  // lowest free one from kProxyPort up (another running command's, or a job's own server on
  // it, would refuse the proxy's listening socket); in a loopback of its own, kProxyPort.
  class Port {
   public:
    Port() = default;
    Port(SessionNetwork* owner, int port) : owner_(owner), port_(port) {}
    Port(Port&& o) noexcept : owner_(o.owner_), port_(o.port_) { o.owner_ = nullptr; }
    Port& operator=(Port&& o) noexcept;
    Port(const Port&) = delete;
    Port& operator=(const Port&) = delete;
    ~Port() { release(); }
    int value() const { return port_; }

   private:
    void release();
    SessionNetwork* owner_ = nullptr;
    int port_ = 0;
  };
  Port take_port(bool in_session_loopback);

 private:
  Result<SessionLoopback> make() const;
  const bool wanted_;
  const Source source_;
  mutable std::mutex mu_;
  bool tried_ = false;
  std::optional<SessionLoopback> loopback_;
  std::string failure_;
  std::set<int> ports_;  // held by running commands in the session's loopback
};

}  // namespace cordon
