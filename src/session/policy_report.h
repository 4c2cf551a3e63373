// The policy resolved for a session's project, in the stable machine-readable form of
// `cordon policy --json` and the server's `policy` method (CFG-6).
#pragma once

#include <nlohmann/json.hpp>

#include "config/policy.h"
#include "plan/plan.h"
#include "render/seatbelt_plan.h"

namespace cordon {

class Session;

// The plan with every name it shows (hidden and protected paths, notices, the refusal) made
// printable (control characters as \xNN), for `cordon policy` and the server's `policy`.
Plan printable_plan(Plan plan);

// `plan` is the session's plan for a plain command (`true`) in the project; `seatbelt` its
// Seatbelt plan when that is the session's backend (MAC-5: the profile's size and path filters).
nlohmann::json policy_json(const Policy& policy, const Session& session, const Plan& plan,
                           const SeatbeltPlan* seatbelt = nullptr);

// NET-11: the allow and deny lists, what unknown hosts get, the refused address ranges and the
// proxy's address inside each sandbox (null when commands get no proxy).
nlohmann::json allowlist_json(const Policy& policy, const Plan& plan);

// Issue 30 (NET-1): who shares a sandboxed command's loopback: {"shared_by": "session" (the
// session's commands and jobs) or "command" (each its own), "why": why a session's could not be
// made, or null}.
nlohmann::json loopback_json(const Session& session);

// The backend part of `cordon policy` (MAC-5): which backend, its program, and for Seatbelt the
// profile's size and path filters against MAC-2's cap.
nlohmann::json backend_json(const Session& session, const SeatbeltPlan* seatbelt);

}  // namespace cordon
