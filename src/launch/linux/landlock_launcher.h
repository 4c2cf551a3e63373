// LL-1: a sandboxed plan through Landlock and seccomp, for machines where bubblewrap cannot
// make namespaces. No bwrap: the command's own process is confined between fork and exec
// (no_new_privs, the Landlock ruleset, no capabilities, cordon's seccomp program plus a
// refusal of UDP sockets), with the plan's environment (ENV-1), in a process group of its
// own that ends with it, and every process it left ended after it (PROC-3).
//
// Example:
//   LandlockRules rules = landlock_rules(input);          // plan/landlock_rules.h
//   auto outcome = launch_landlock(plan, rules, cache_dir, io, on_started);
#pragma once

#include <functional>

#include "launch/linux/launcher.h"
#include "plan/landlock_rules.h"

namespace cordon {

// `cache_dir` keeps the compiled seccomp program between runs, as for bwrap.
Result<ProcessOutcome> launch_landlock(const Plan& plan, const LandlockRules& rules,
                                       const std::string& cache_dir, const LaunchIo& io,
                                       const std::function<void(pid_t)>& on_started = {});

}  // namespace cordon
