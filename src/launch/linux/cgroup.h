// Resource limits through a cgroup (PROC-6), where one can be made: the v2 hierarchy when it
// has the memory and pids controllers, else the v1 memory and pids hierarchies (this machine).
// rlimits are applied in every case by the launcher; a cgroup adds a limit over the whole
// process tree (a fork bomb counts its children; a memory bomb meets the OOM killer).
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "config/policy.h"
#include "core/result.h"

namespace cordon {

struct CgroupJoin {
  std::vector<std::string> dirs;   // the cgroups made for this command (removed afterwards)
  std::vector<int> procs_fds;      // their cgroup.procs, written "0" by the child before exec
  std::map<std::string, std::string> mechanism;  // limit name -> "rlimit and cgroup v1 ..."
  bool empty() const { return dirs.empty(); }
};

// How each set limit would be held on this machine now ("rlimit", "rlimit and cgroup v1"...),
// without making anything (cordon policy).
std::map<std::string, std::string> limit_mechanisms(const Limits& limits);

// Makes the cgroups for one command (named `name`) with the limits set. An error only means no
// cgroup: the caller falls back to rlimits and says so.
Result<CgroupJoin> make_cgroups(const Limits& limits, const std::string& name);

// Closes the descriptors and removes the cgroups (once their processes are gone).
void remove_cgroups(CgroupJoin& join);

// PROC-6: one command's cgroups, made before it starts and removed after it ended. Without
// one (an unprivileged user here, or macOS), the rlimits alone hold the limits.
//   CgroupScope cg(plan.limits);  spec.cgroup_procs_fds = cg.join.procs_fds;
struct CgroupScope {
  CgroupJoin join;
  explicit CgroupScope(const Limits& limits, const std::string& name) {
    if (!limits.memory && !limits.cgroup_pids()) return;
    auto r = make_cgroups(limits, name);
    if (r.ok()) join = std::move(*r);
  }
  ~CgroupScope() { remove_cgroups(join); }
  CgroupScope(const CgroupScope&) = delete;
  CgroupScope& operator=(const CgroupScope&) = delete;
};

// PROC-6 off the start's critical path (PERF-1): a move into a cgroup waits for an RCU grace
// period (about 9 ms on this machine's cgroup v1), so it is not made by the child before its
// exec but here, on a thread of its own, while cordon plans and bwrap sets up. It applies to a
// process that cannot start the command before `finish` returns: bwrap, which waits for its
// options and then for its seccomp program (the gate) before its pid 1 forks the command. The
// thread moves bwrap, then every child bwrap made before that move (its pid 1; what it forks
// later is born in the cgroup); the gate opens only after `finish`, so the limit holds from
// the command's first instruction.
//
//   CgroupAttach a; a.start(bwrap_pid, cg.join.procs_fds);  ...  if (!a.finish().ok()) abort
class CgroupAttach {
 public:
  CgroupAttach() = default;
  ~CgroupAttach();
  CgroupAttach(const CgroupAttach&) = delete;
  CgroupAttach& operator=(const CgroupAttach&) = delete;

  // Nothing to do when `procs_fds` is empty. The descriptors stay the caller's.
  void start(pid_t pid, std::vector<int> procs_fds);
  // Waits for the moves; an error names the cgroup write that failed (then the command must not
  // be released: it would run without its limits).
  Status finish();

 private:
  std::thread thread_;
  Status result_ = ok_status();
};

}  // namespace cordon
