#include "session/backend_launch.h"

#include <fmt/format.h>

#include "backend/macos/launcher.h"

namespace cordon {

Result<ProcessOutcome> launch_planned(const BackendChoice& backend, const PlannedLaunch& what,
                                      const LaunchIo& io,
                                      const std::function<void(pid_t)>& on_started) {
  if (what.plan.runner != Runner::kSandbox) return launch_unconfined(what.plan, io, on_started);
  if (backend.backend == Backend::kSeatbelt)
    return launch_seatbelt(what.plan, what.profile, backend.sandbox_exec, io, on_started);
  return launch_sandbox(what.plan, what.bwrap, what.cache_dir, io, on_started);
}

std::optional<Refusal> seatbelt_start_refusal(const BackendChoice& backend, const Plan& plan,
                                              const ProcessOutcome& o) {
  if (backend.backend != Backend::kSeatbelt || plan.runner != Runner::kSandbox) return {};
  if (o.timed_out || o.canceled) return {};
  auto words = seatbelt_apply_failure(o.exit_code, o.err);
  if (!words) return {};
  return Refusal{"unavailable",
                 fmt::format("the sandbox could not start: {}. Fix: run cordon outside any other "
                             "sandbox (one cannot be nested in another), and check `cordon "
                             "probe`; `cordon policy --seatbelt` shows the profile.",
                             *words)};
}

}  // namespace cordon
