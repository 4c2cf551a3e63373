// JOB-2: the session's own loopback. A user namespace and a network namespace with
// only `lo` (up), made once per session and held by two descriptors (no process keeps them):
// each sandboxed command of the session that does not share the host's network joins them in
// its child, before bwrap starts (ProcessSpec::join_namespaces), and bwrap then keeps that
// network namespace (--share-net) while it makes every other namespace as usual. A server a
// background job starts on 127.0.0.1 is reachable by the session's next command, and by nothing
// else: the machine and other sessions are in other network namespaces.
//
// Why descriptors and setns rather than a bwrap option: bwrap has --userns (join a user
// namespace) but no way to join a network namespace; joining one needs CAP_SYS_ADMIN over its
// owner, which a plain user has only inside the user namespace made with it. So both are made
// together by a short-lived child and joined together, user namespace first. The child is cordon's
// own program run afresh (`cordon __session-loopback`), not a fork of this process: it writes its
// own identity maps, which needs its /proc files to be the user's, and a fork of cordon is not
// dumpable (host/self_protection.h) for good reason.
//
// Example:
//   auto lo = SessionLoopback::create();   // an error where user namespaces are refused
//   spec.join_namespaces = lo->join();     // the command's child joins before exec
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "process/process.h"  // Fd

namespace cordon {

inline constexpr const char* kLoopbackChildWord = "__session-loopback";
// The child's main (cordon __session-loopback, descriptors 3 and 4 from create()).
int loopback_child_main();

class SessionLoopback {
 public:
  // Makes the namespaces with `cordon_exe` (cordon's program; about two milliseconds). Fails
  // where a user namespace cannot be made (the callers then keep a loopback per command), or
  // where the result would be the caller's own network namespace. The maker stays, doing
  // nothing, while this object lives (holder_pid()): another cordon of the user's joins the
  // session's namespaces through it (join_holder: a foreground `cordon run --session S` beside
  // the session keeper's jobs). It ends when this object goes or when its maker dies.
  static Result<SessionLoopback> create(const std::string& cordon_exe);
  // The namespaces of the holder `pid`, which started at `start` (clock ticks since boot, as
  // /proc/PID/stat says): checked to be a cordon session-loopback holder, still the same
  // process once its namespaces are open, and not in this process's own network.
  static Result<SessionLoopback> join_holder(int pid, long long start);

  SessionLoopback() = default;
  SessionLoopback(SessionLoopback&& o) noexcept;
  SessionLoopback& operator=(SessionLoopback&& o) noexcept;
  ~SessionLoopback();
  // The holder's pid (-1 for namespaces joined through another's holder).
  int holder_pid() const { return holder_; }

  // (descriptor, CLONE_NEWUSER), then (descriptor, CLONE_NEWNET): the order a child joins.
  std::vector<std::pair<int, int>> join() const;
  // The network namespace's inode: equal for every command of the session.
  unsigned long net_inode() const { return net_inode_; }

 private:
  void end_holder();
  Fd user_, net_;
  unsigned long net_inode_ = 0;
  int holder_ = -1;                   // the maker, kept while we live
  Fd release_;                        // its end of input: closed, the holder exits
  ProcessRegistration registration_;  // it is ours, not an unconfined command's (NET-4)
};

}  // namespace cordon
