// RES-2: a short note when a failed command's output shows a refusal the sandbox could cause.
#pragma once

#include <optional>
#include <string>

#include "plan/plan.h"

namespace cordon {

// `output` is the tail of the command's error output (and standard output when captured).
// Returns nothing for a command that simply failed for its own reasons.
std::optional<std::string> blocked_note(const Plan& plan, int exit_code,
                                        const std::string& output);

}  // namespace cordon
