// The policy resolved for a session's project, in the stable machine-readable form of
// `cordon policy --json` and the server's `policy` method (CFG-6).
#pragma once

#include <nlohmann/json.hpp>

#include "config/policy.h"
#include "plan/plan.h"

namespace cordon {

class Session;

// The plan with every name it shows (hidden and protected paths, notices, the refusal) made
// printable (control characters as \xNN), for `cordon policy` and the server's `policy`.
Plan printable_plan(Plan plan);

// `plan` is the session's plan for a plain command (`true`) in the project.
nlohmann::json policy_json(const Policy& policy, const Session& session, const Plan& plan);

}  // namespace cordon
