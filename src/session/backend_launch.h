// The launch of a command planned before it starts, in the backend the session chose (MAC-5):
// sandbox-exec with the plan's profile, bwrap (when it was not started early), or the command
// itself when it runs unconfined. One place, so Session::run has one path for every backend.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "backend/backend_choice.h"
#include "backend/linux/launcher.h"
#include "plan/plan.h"

namespace cordon {

struct PlannedLaunch {
  const Plan& plan;
  const std::string& profile;  // Seatbelt's (MAC-1)
  std::string bwrap;           // bwrap's path
  std::string cache_dir;       // bwrap's filter cache
};

Result<ProcessOutcome> launch_planned(const BackendChoice& backend, const PlannedLaunch& what,
                                      const LaunchIo& io,
                                      const std::function<void(pid_t)>& on_started);

// Seatbelt: sandbox-exec could not apply the profile, so nothing of the command ran: the
// refusal that says so in its words (PROBE-4's shape: cause, then fix).
std::optional<Refusal> seatbelt_start_refusal(const BackendChoice& backend, const Plan& plan,
                                              const ProcessOutcome& o);

}  // namespace cordon
