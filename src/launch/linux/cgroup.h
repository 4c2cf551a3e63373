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
  int v2_dir_fd = -1;              // the cgroup v2 folder (the only one), CLONE_INTO_CGROUP
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

// Removes the empty cgroups of earlier commands (named cordon-*, older than a minute) that
// could not be removed when they ended (still busy then, or cordon was killed).
void sweep_leftover_cgroups(const Limits& limits);

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

// PROC-6 off the start's critical path (PERF-1): making a cgroup and moving a process into it
// (which waits for an RCU grace period, about 9 ms on this machine's cgroup v1) are not done by
// the child before its exec but here, on a thread of its own, while cordon plans and bwrap sets
// up. It applies to a process that cannot start the command before `finish` returns: bwrap,
// which waits for its options and then for its seccomp program (the gate) before its pid 1
// forks the command. The thread makes the cgroups, moves bwrap, then every child bwrap made
// before that move (its pid 1; what it forks later is born in the cgroup); the gate opens only
// after `finish`, so the limit holds from the command's first instruction. The cgroups are
// removed when this is dropped (after the process was collected).
//
//   CgroupAttach a; a.start(bwrap_pid, limits);  ...  if (!a.finish().ok()) abort
class CgroupAttach {
 public:
  CgroupAttach() = default;
  ~CgroupAttach();
  CgroupAttach(const CgroupAttach&) = delete;
  CgroupAttach& operator=(const CgroupAttach&) = delete;

  // PERF-1: where cgroup v2 has the controllers, the cgroup is made now (no move: cheap) and
  // its folder returned, for the process to be born in (ProcessSpec::cgroup_fd); `start` then
  // has nothing to move. -1 elsewhere (cgroup v1: made and moved into by `start`).
  int prepare_birth(const Limits& limits);
  const std::vector<int>& procs_fds() const { return join_.procs_fds; }
  // Nothing to do without a memory or pids limit. Where no cgroup can be made (an unprivileged
  // user here), the rlimits alone hold the limits, as with CgroupScope.
  void start(pid_t pid, const Limits& limits);
  // Waits for the moves; an error names the cgroup write that failed (then the command must not
  // be released: it would run without its limits).
  Status finish();

 private:
  std::thread thread_;
  Status result_ = ok_status();
  CgroupJoin join_;
  bool born_ = false;  // prepare_birth made the cgroup
};

// Whether make_cgroups would use cgroup v2 here (it has the memory and pids controllers and
// cordon may make a cgroup in its own).
bool cgroup_v2_usable();

}  // namespace cordon
