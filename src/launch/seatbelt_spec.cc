// The pure half of the Seatbelt launcher (launcher.h): the process to start and the reading of
// sandbox-exec's own failure.
#include <cstdlib>

#include "core/strings.h"
#include "launch/seatbelt_launcher.h"

namespace cordon {

ProcessSpec seatbelt_process_spec(const Plan& plan, const std::string& profile,
                                  const std::string& sandbox_exec, const LaunchIo& io) {
  ProcessSpec spec;
  spec.path = sandbox_exec;
  spec.argv = {sandbox_exec, "-p", profile, "--"};
  spec.argv.insert(spec.argv.end(), plan.argv.begin(), plan.argv.end());
  spec.env = plan.env;  // ENV-5: the plan's environment only
  spec.cwd = plan.cwd;
  spec.new_process_group = true;
  // sandbox-exec becomes the command: its group ends with it. Without a pid namespace, a
  // process that called setsid() left the group: launch_seatbelt finds it by a marker.
  spec.end_group_on_exit = true;
  spec.limits = plan.limits;
  apply_io(spec, io);
  spec.timeout = plan.timeout;
  return spec;
}

std::optional<std::string> seatbelt_apply_failure(int exit_code, const std::string& err) {
  if (exit_code != 65 && exit_code != 71) return std::nullopt;
  const size_t at = err.rfind("sandbox-exec: ");
  if (at == std::string::npos) return std::nullopt;
  std::string line = err.substr(at);
  return trim(line.substr(0, line.find('\n')));
}

}  // namespace cordon
