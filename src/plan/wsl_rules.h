// Windows through WSL2 (WSL-1, WSL-2): the planner's rules for Windows drives' Users folders.
#pragma once

#include <optional>
#include <string>

#include "plan/facts.h"
#include "plan/plan.h"

namespace cordon {

// WSL-2: a project or git folder inside a Windows Users folder makes the sandbox unavailable
// (MODE-4): hiding the folder would hide the project. `config` names the config file.
std::optional<Refusal> wsl_refusal(const Facts& facts, const std::string& config);

// WSL-1: every spelling of each drive's Users folder reads as an empty folder. Called after
// the writable binds, so a writable path cannot uncover one.
void plan_wsl(const Facts& facts, Plan& p);

}  // namespace cordon
