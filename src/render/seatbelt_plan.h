// The macOS plan (MAC-1, MAC-2, BUD-1): the planner's decisions for Backend::kSeatbelt, the
// Seatbelt profile written from them, the path-filter cap, and the argument limit that the
// profile, passed to sandbox-exec as an argument, counts against. Pure.
//
// Example:
//   SeatbeltPlan sp = make_seatbelt_plan(policy, facts, request);
//   if (sp.plan.refused()) return sp.plan.refusal->message;
//   run seatbelt_command_line(sp) with sp.plan.env in sp.plan.cwd:
//     {"/usr/bin/sandbox-exec", "-p", "(version 1)\n...", "--", "make", "test"}
#pragma once

#include <string>
#include <vector>

#include "config/policy.h"
#include "plan/budget.h"
#include "plan/facts.h"
#include "plan/plan.h"
#include "plan/request.h"

namespace cordon {

struct SeatbeltOptions {
  size_t max_path_filters = 1000;  // MAC-2: Seatbelt compiles more too slowly to start a command
  uint64_t arg_max = kMacArgMax;   // BUD-1: kern.argmax
  std::string sandbox_exec = "/usr/bin/sandbox-exec";
  std::string shell = "/bin/sh";  // runs `-c SCRIPT`
  // The terminals cordon's standard output and error are (ttyname(1), ttyname(2)): the
  // command inherits them and may write there, never read (render_seatbelt_profile).
  std::vector<std::string> terminals;
};

struct SeatbeltPlan {
  Plan plan;  // env (TMPDIR is the private temp folder), cwd, argv, notices, refusal
  // The profile of a sandboxed command; also kept when a budget refused it (MAC-2, BUD-1), so
  // `cordon policy --seatbelt` can show it. Never run a refused plan.
  std::string profile;
  BudgetCounts filters;  // the profile's path filters per list
};

// Past the cap, protected folders judged file by file become read-only whole (as BUD-2 does
// past the mount budget), and if the profile is still too large the command is refused,
// naming the largest list and the fix (MAC-2).
SeatbeltPlan make_seatbelt_plan(const Policy& policy, const Facts& facts, const Request& request,
                                const SeatbeltOptions& options = {});

// {sandbox_exec, "-p", PROFILE, "--", COMMAND...}.
std::vector<std::string> seatbelt_command_line(const SeatbeltPlan& sp,
                                               const SeatbeltOptions& options = {});

}  // namespace cordon
