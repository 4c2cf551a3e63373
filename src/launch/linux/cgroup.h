// Resource limits through a cgroup (PROC-6), where one can be made: the v2 hierarchy when it
// has the memory and pids controllers, else the v1 memory and pids hierarchies (this machine).
// rlimits are applied in every case by the launcher; a cgroup adds a limit over the whole
// process tree (a fork bomb counts its children; a memory bomb meets the OOM killer).
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "config/policy.h"
#include "core/result.h"

namespace cordon {

struct CgroupJoin {
  std::vector<std::string> dirs;   // the cgroups made for this command (removed afterwards)
  std::vector<int> procs_fds;      // their cgroup.procs, written "0" by the child before exec
  int v2_dir_fd = -1;              // the cgroup v2 folder (the only one), CLONE_INTO_CGROUP
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

// PROC-6 without a wait on the start's critical path (PERF-1): the command's cgroups are made
// before bwrap is started (a mkdir and a write each: tens of microseconds), and bwrap is in
// them from its first instruction: born there by clone3 on cgroup v2 (`prepare_birth` returns
// the folder), or, on cgroup v1, its child process writes "0" to each cgroup's `tasks` before
// it execs (procs_fds). Moving another process in (writing its pid) would wait for an RCU
// grace period, 9-14 ms on this machine's cgroup v1; a single thread moving itself does not.
// The cgroups are removed when this is dropped (after the process was collected).
//
//   CgroupAttach a;  spec.cgroup_fd = a.prepare_birth(limits);  spec.cgroup_procs_fds = a.procs_fds();
class CgroupAttach {
 public:
  CgroupAttach() = default;
  ~CgroupAttach();
  CgroupAttach(const CgroupAttach&) = delete;
  CgroupAttach& operator=(const CgroupAttach&) = delete;

  // Makes the cgroups (nothing without a memory or pids limit; where none can be made, an
  // unprivileged user here, the rlimits alone hold the limits, as with CgroupScope). Returns
  // the v2 folder for clone3's CLONE_INTO_CGROUP, or -1.
  int prepare_birth(const Limits& limits);
  // The files the child writes "0" to before it execs (v1's `tasks`; v2's cgroup.procs, the
  // fallback for a kernel without clone3).
  const std::vector<int>& procs_fds() const { return join_.procs_fds; }

 private:
  CgroupJoin join_;
};

// Whether make_cgroups would use cgroup v2 here (it has the memory and pids controllers and
// cordon may make a cgroup in its own).
bool cgroup_v2_usable();

}  // namespace cordon
