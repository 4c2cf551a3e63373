// Budgets checked before launch (BUD-1, BUD-2, MAC-2): the argument limit of the system, and
// the lists that cost the sandbox something (mounts on Linux, path filters on macOS). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/env.h"
#include "plan/plan.h"

namespace cordon {

// BUD-1: what the command line handed to the kernel holds, and what it may hold.
struct ArgumentBudget {
  uint64_t limit = 2097152;  // sysconf(_SC_ARG_MAX) on Linux; 1 MiB on macOS
  // The kernel copies strings of its own into the same space (Linux: the program's path,
  // which it places on the new stack; macOS: the apple[] strings such as executable_path),
  // so this much is kept back from `limit`.
  uint64_t reserve = 4096;
  size_t max_string = 0;  // the largest single string (Linux MAX_ARG_STRLEN); 0: no limit
  // The backend's own arguments before the command ({"bwrap", "--args", "3", "--"}, or
  // {"sandbox-exec", "-p", PROFILE, "--"}) and what to call them in a refusal.
  std::vector<std::string> prefix;
  std::string prefix_name = "the sandbox's own arguments";
  std::string prefix_fix;
  // Variables a launcher adds to the environment (NAME, value length): counted, not shown.
  std::vector<std::pair<std::string, size_t>> extra_env;
  std::string temp_folder = "/tmp";  // where the fix tells a command to keep its data
};

// Linux: one argv or envp string may not exceed this (MAX_ARG_STRLEN, 32 pages).
inline constexpr size_t kLinuxMaxArgString = 131072;
// macOS: kern.argmax.
inline constexpr uint64_t kMacArgMax = 1048576;

// Bytes the kernel counts for a command line and environment: each string with its NUL and
// the pointer to it, and the two terminating null pointers.
size_t command_line_bytes(const std::vector<std::string>& argv, const EnvMap& env);

// BUD-1: a refusal naming the largest part (the command's own arguments, the environment, or
// the backend's own arguments such as the Seatbelt profile) and the fix, or nothing when the
// command line fits `budget.limit - budget.reserve`.
std::optional<Refusal> check_argument_budget(const std::vector<std::string>& argv,
                                             const EnvMap& env, const ArgumentBudget& budget);

// The lists a sandbox pays for, in the order a refusal prefers them when two are as large.
enum class BudgetList { kHidden, kProtected, kCredential, kWritable, kBase };

// "hidden paths", "protected paths and git files", ...
const char* budget_list_name(BudgetList list);

// What the user changes on the host to shorten `list`; `config` names their config file.
std::string budget_list_fix(BudgetList list, const std::string& config);

// How much of a budget each list takes.
struct BudgetCounts {
  size_t hidden = 0, protect = 0, credential = 0, writable = 0, base = 0;

  size_t total() const { return hidden + protect + credential + writable + base; }
  size_t& at(BudgetList list);
  size_t at(BudgetList list) const;
  // The largest list a user can shorten (never kBase); ties go to the earlier list.
  BudgetList largest() const;
};

// The list a mount belongs to, from the planner's `why` ("hidden: ~/.ssh" -> kHidden).
BudgetList mount_budget_list(const MountOp& mount);

}  // namespace cordon
