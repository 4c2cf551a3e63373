// Protected files and git auto-run files (PROT, GIT), and the credential files hidden from a
// networked command (NET-3): the planner's rules that add read-only and hiding mounts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/policy.h"
#include "plan/facts.h"
#include "plan/plan.h"
#include "plan/request.h"

namespace cordon {

// PROT-7 (a move that failed earlier) and PROT-8 (a protected link to the project or above):
// a refusal of every sandboxed command, naming the path.
std::optional<Refusal> protected_refusal(const Facts& facts);

// GIT-9, PROT-2: the folders inside the project that are bound onto themselves, so that a
// command cannot rename, remove or replace them: the git folder (or `.git` file), the real git
// folders inside the project, every existing protected folder and the folders on the way to a
// read-only protected entry. Absolute paths, parents first.
std::vector<std::string> pinned_paths(const Facts& facts);

// Adds the read-only mounts of PROT-1..5, PROT-9, GIT-1, GIT-2, GIT-5 and FS-10 to `p`.
// `coarse` makes every protected folder read-only whole (BUD-2).
void plan_protected(const Policy& policy, const Facts& facts, Plan& p, bool coarse);

// NET-3: a networked command gets the project's credential files hidden.
void plan_credentials(const Facts& facts, const Request& req, Plan& p);

}  // namespace cordon
