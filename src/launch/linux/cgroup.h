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
  std::vector<std::string> dirs;  // the cgroups made for this command (removed afterwards)
  std::vector<int> procs_fds;     // their cgroup.procs, written "0" by the child before exec
  int v2_dir_fd = -1;             // the cgroup v2 folder (the only one), CLONE_INTO_CGROUP
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
// The empty cgroups earlier commands left beside this one's (older than a minute): when a
// one-shot command's own are removed after its exit (host/quick_exit.h), while it runs.
void sweep_stale_cgroups(const CgroupJoin& join);

// PROC-6: one command's cgroups, made before its process starts and removed after it was
// collected. Without one (an unprivileged user here, or macOS), the rlimits alone hold the
// limits. The process is in them from its first instruction and no process is moved in
// (PERF-1): born there by clone3 on cgroup v2 (`join.v2_dir_fd` as ProcessSpec::cgroup_fd), or,
// on cgroup v1, its child writes "0" to each cgroup's `tasks` before it execs
// (`join.procs_fds`). Writing another process's pid would wait for an RCU grace period, 9-14 ms
// on this machine's cgroup v1; a single thread moving itself does not.
//   CgroupScope cg(plan.limits, name);  spec.cgroup_procs_fds = cg.join.procs_fds;
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

}  // namespace cordon
