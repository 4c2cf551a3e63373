#include "session/backend_launch.h"

#include <fmt/format.h>

#include "launch/linux/landlock_launcher.h"
#include "launch/seatbelt_launcher.h"

namespace cordon {

Result<ProcessOutcome> launch_planned(const BackendChoice& backend, const PlannedLaunch& what,
                                      const LaunchIo& io,
                                      const std::function<void(pid_t)>& on_started) {
  if (what.plan.runner != Runner::kSandbox) return launch_unconfined(what.plan, io, on_started);
  if (backend.backend == Backend::kSeatbelt)
    return launch_seatbelt(what.plan, what.profile, backend.sandbox_exec, io, on_started);
  if (backend.backend == Backend::kLandlock) {  // LL-1
    if (!what.landlock) return make_error(ErrorKind::kInvalid, "the Landlock rules are missing");
    return launch_landlock(what.plan, *what.landlock, what.cache_dir, io, on_started);
  }
  return launch_sandbox(what.plan, what.bwrap, what.cache_dir, io, on_started);
}

std::optional<std::string> seatbelt_failure_note(const BackendChoice& backend, const Plan& plan,
                                                 const ProcessOutcome& o, const std::string& err) {
  if (backend.backend != Backend::kSeatbelt || plan.runner != Runner::kSandbox) return {};
  if (o.timed_out || o.canceled) return {};
  auto words = seatbelt_apply_failure(o.exit_code, err);
  if (!words) return {};
  return fmt::format(
      "the sandbox may not have started: {} (exit {}). If the command did not "
      "run, check `cordon probe`, and run cordon outside any other sandbox; "
      "`cordon policy --seatbelt` shows the profile.",
      *words, o.exit_code);
}

}  // namespace cordon
