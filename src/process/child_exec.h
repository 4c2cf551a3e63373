// What a child does between fork (or clone) and execve, for both process primitives
// (process/linux/process.cc, process_posix/process.cc): joins its cgroups, takes its standard
// streams and passed descriptors, closes ours, sets its limits and folder, and execs.
//
// Example:
//   StdPipes pipes;  open_std_pipes(spec, pipes);
//   ChildPlan plan(spec, pipes);                   // before fork: it allocates
//   ... in the child:  int step = child_exec(plan.exec);  // returns only on failure
//                      report(step, errno); _exit(127);
//   ... in the parent: return child_exec_failure(step, err, spec.path);
#pragma once

#include <sys/resource.h>

#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "process/process.h"

namespace cordon {

struct ChildLimit {
  int resource;
  rlim_t value;
  bool soft_only = false;  // sets the soft limit (at most the hard one), not both
};

// The rlimits of PROC-6's limits (memory, cpu, processes, file size, open files); without an
// open-files limit, the soft one cordon started with (sys/open_files.h), so a command never
// inherits the higher limit cordon raised for its proxy.
std::vector<ChildLimit> rlimits_of(const Limits& limits);

// Everything the child reads, prepared before it starts: it may only make async-signal-safe
// calls (no allocation), so every field points at memory the parent keeps.
struct ChildExec {
  bool is_target[10] = {};  // descriptors 3..9 the child is handed (pass_fds)
  int in_fd = -1, out_fd = -1, err_fd = -1;
  const char* path = nullptr;
  const char* cwd = nullptr;
  bool new_group = false;
  const std::pair<int, int>* pass = nullptr;
  size_t npass = 0;
  const ChildLimit* lims = nullptr;
  size_t nlims = 0;
  const int* cgroup_fds = nullptr;
  size_t ncgroup = 0;
  const std::pair<int, int>* namespaces = nullptr;  // ProcessSpec::join_namespaces
  size_t nnamespaces = 0;
  int (*confine)(const void*) = nullptr;  // ProcessSpec::confine
  const void* confine_arg = nullptr;
  char** argv = nullptr;
  char** envp = nullptr;
  // Closes the parent's descriptors >= 10 in the child (Linux: close_range; POSIX: the list
  // taken before fork). Must be async-signal-safe.
  void (*close_from_10)(const ChildExec&) = nullptr;
  const int* close_fds = nullptr;
  size_t nclose = 0;
  // The POSIX primitive's pipe for a failure before exec: one of close_fds, left open.
  int report_fd = -1;
};

// The steps child_exec reports: what it was doing when it failed.
enum ChildStep {
  kChildCgroup,
  kChildNamespace,
  kChildStreams,
  kChildPass,
  kChildLimits,
  kChildFolder,
  kChildExec,
  kChildConfine
};

// The child's ends of its standard streams and ours, as `spec` asks: /dev/null or a pipe for
// input, a pipe for each captured or forwarded output; none where it inherits ours.
struct StdPipes {
  Fd in_child, in_ours, out_r, out_w, err_r, err_w;
};
Status open_std_pipes(const ProcessSpec& spec, StdPipes& p);

// A ChildExec for `spec` with the child's ends of `pipes`, and the memory it points at.
// Neither copied nor moved: the pointers are into itself.
class ChildPlan {
 public:
  ChildPlan(const ProcessSpec& spec, const StdPipes& pipes);
  ChildPlan(const ChildPlan&) = delete;
  ChildPlan& operator=(const ChildPlan&) = delete;
  ChildExec exec;

 private:
  std::vector<std::string> env_strings_;
  std::vector<char*> argv_, envp_;
  std::vector<ChildLimit> lims_;
};

// Runs in the child: every step, then execve. Returns only when a step failed: that step,
// with errno as the failing call left it.
int child_exec(const ChildExec& a);

// The "exec" error for a child that failed at `step` with `err`.
Error child_exec_failure(int step, int err, const std::string& path);

}  // namespace cordon
