// launch_unconfined (launch/linux/launcher.h): a command that runs without a sandbox, on
// every system (mode off/external, or an approved outside-sandbox command, NET-4); and
// run_direct, which it and the Landlock launcher start their command with.
#include <cerrno>

#include "launch/linux/cgroup.h"
#include "launch/linux/launcher.h"
#include "process/process.h"
#include "sys/fs_util.h"

namespace cordon {

Result<ProcessOutcome> launch_unconfined(const Plan& plan, const LaunchIo& io,
                                         const std::function<void(pid_t)>& on_started) {
  return run_direct(plan, io, on_started);
}

Result<ProcessOutcome> run_direct(const Plan& plan, const LaunchIo& io,
                                  const std::function<void(pid_t)>& on_started,
                                  const std::function<void(ProcessSpec&)>& adjust) {
  ProcessSpec spec;
  FoundCommand found = find_command(plan.argv[0], plan.env, plan.cwd);
  if (found.path.empty())
    return make_error(ErrorKind::kExec, plan.argv[0] + ": command not found", plan.argv[0], ENOENT);
  if (!found.runnable)  // RES-4: found, but it cannot be run
    return make_error(ErrorKind::kExec, plan.argv[0] + ": cannot run it (Permission denied)",
                      found.path, EACCES);
  spec.path = found.path;
  spec.argv = plan.argv;
  spec.env = plan.env;
  spec.cwd = plan.cwd;
  spec.new_process_group = true;
  spec.end_group_on_exit = true;  // NET-4, PROC-1: its process group ends with it
  spec.marker = "CORDON_RUN=" + random_hex16();
  spec.env.set("CORDON_RUN", spec.marker.substr(11));
  spec.limits = plan.limits;
  apply_io(spec, io);
  spec.timeout = plan.timeout;
  CgroupScope cg(plan.limits, random_hex16());
  spec.cgroup_procs_fds = cg.join.procs_fds;
  if (adjust) adjust(spec);
  return run_process(spec, [&](pid_t pid) {
    if (on_started) on_started(pid);
    sweep_stale_cgroups(cg.join);  // while the command runs
  });
}

}  // namespace cordon
