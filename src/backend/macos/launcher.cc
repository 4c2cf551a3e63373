#include "backend/macos/launcher.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace cordon {

std::vector<std::string> output_terminals() {
  std::vector<std::string> out;
  for (int fd : {1, 2}) {
    if (!::isatty(fd)) continue;
    if (const char* name = ::ttyname(fd)) {
      std::string t = name;
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
    }
  }
  return out;
}

Result<ProcessOutcome> launch_seatbelt(const Plan& plan, const std::string& profile,
                                       const std::string& sandbox_exec, const LaunchIo& io,
                                       const std::function<void(pid_t)>& on_started) {
  if (plan.refused()) return make_error("refused", plan.refusal->message);
  if (plan.runner != Runner::kSandbox || profile.empty() || plan.argv.empty())
    return make_error("invalid", "launch_seatbelt: the plan is not a sandboxed command");
  // sandbox-exec would say so in its own words, after the profile was applied: the command is
  // looked up in the plan's PATH first, so a missing one reads as it does everywhere else.
  if (resolve_command(plan.argv[0], plan.env, plan.cwd).empty())
    return make_error("exec", plan.argv[0] + ": command not found", plan.argv[0], ENOENT);
  return run_process(seatbelt_process_spec(plan, profile, sandbox_exec, io), on_started);
}

}  // namespace cordon
