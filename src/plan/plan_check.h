// A validated plan (issue 15, sandbox2-style): what the planner hands to a backend is checked
// before anything is rendered. The renderer joins bwrap's options with NUL bytes, so a NUL
// inside a path, an argument, a variable or the working folder would end one option and start
// another: `cwd = "<project>/sub\0--bind\0/victim\0/victim"` passed `stat()` (it sees the text
// before the NUL) and gave bwrap an extra, writable bind of a host folder.
#pragma once

#include <optional>
#include <string>

#include "plan/plan.h"
#include "plan/request.h"

namespace cordon {

// The request's own text: argv (or the script), the working folder, the environment the
// caller adds. An "invalid" refusal naming the field, or nullopt.
std::optional<Refusal> check_request(const Request& req);

// The plan as a backend will render it: no NUL anywhere (argv, environment, working folder,
// mount paths), absolute mount paths, a non-empty environment name without `=`, an absolute
// working folder, and no writable bind over a destination an earlier mount made read-only or
// hid (mount_order.h). An "invalid" refusal naming what is wrong, or nullopt.
std::optional<Refusal> check_plan(const Plan& plan);

}  // namespace cordon
