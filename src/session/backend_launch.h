// The launch of a command planned before it starts, in the backend the session chose (MAC-5):
// sandbox-exec with the plan's profile, bwrap (when it was not started early), or the command
// itself when it runs unconfined. One place, so Session::run has one path for every backend.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "launch/linux/launcher.h"
#include "plan/landlock_rules.h"
#include "plan/plan.h"
#include "render/backend_choice.h"

namespace cordon {

struct PlannedLaunch {
  const Plan& plan;
  const std::string& profile;  // Seatbelt's (MAC-1)
  std::string bwrap;           // bwrap's path
  std::string cache_dir;       // bwrap's filter cache
  const LandlockRules* landlock = nullptr;  // LL-1: the Landlock backend's rules
};

Result<ProcessOutcome> launch_planned(const BackendChoice& backend, const PlannedLaunch& what,
                                      const LaunchIo& io,
                                      const std::function<void(pid_t)>& on_started);

// Seatbelt: sandbox-exec said it could not apply the profile (exit 65 or 71 with its words).
// A note, never a refusal that skips aftercare: a command can print the same words and exit
// the same way, so what it may have planted is still checked.
// `err`: the command's standard error as captured, or its tail.
std::optional<std::string> seatbelt_failure_note(const BackendChoice& backend, const Plan& plan,
                                                 const ProcessOutcome& o, const std::string& err);

}  // namespace cordon
