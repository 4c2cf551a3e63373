// Resource limits through a cgroup (PROC-6), where one can be made: the v2 hierarchy when it
// has the memory and pids controllers, else the v1 memory and pids hierarchies (this machine).
// rlimits are applied in every case by the launcher; a cgroup adds a limit over the whole
// process tree (a fork bomb counts its children; a memory bomb meets the OOM killer).
#pragma once

#include <map>
#include <string>
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

}  // namespace cordon
