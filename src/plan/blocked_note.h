// RES-2: a short note when a failed command's output shows a refusal the sandbox could cause.
#pragma once

#include <optional>
#include <string>

#include <vector>

#include "cordon/exec_result.h"
#include "plan/plan.h"

namespace cordon {

// `output` is the tail of the command's error output (and standard output when captured).
// Returns nothing for a command that simply failed for its own reasons.
std::optional<std::string> blocked_note(const Plan& plan, int exit_code,
                                        const std::string& output);

// AUD-2: the same reading as violations (source "output"): a refused write with its path when
// the output names one, a closed network (no host: the wording does not say which), a refused
// Unix socket, git's locked config. Empty where blocked_note says nothing.
std::vector<api::Violation> output_violations(const Plan& plan, int exit_code,
                                              const std::string& output);

}  // namespace cordon
