#include "plan/budget.h"

#include <fmt/format.h>

#include "core/strings.h"

namespace cordon {

size_t command_line_bytes(const std::vector<std::string>& argv, const EnvMap& env) {
  size_t n = 0;
  for (const auto& a : argv) n += a.size() + 1 + sizeof(char*);
  for (const auto& [k, v] : env.vars) n += k.size() + 1 + v.size() + 1 + sizeof(char*);
  return n + 2 * sizeof(char*);
}

std::optional<Refusal> check_argument_budget(const std::vector<std::string>& argv,
                                             const EnvMap& env, const ArgumentBudget& b) {
  const std::string data_fix = fmt::format(
      "shorten them, or pass the data to the command through a file in the project or {}.",
      b.temp_folder);
  size_t prefix = 0, args = 0, envb = 0;
  for (const auto& a : b.prefix) prefix += a.size() + 1 + sizeof(char*);
  for (const auto& a : argv) {
    args += a.size() + 1 + sizeof(char*);
    if (b.max_string && a.size() + 1 > b.max_string)
      return Refusal{ErrorKind::kRefused,
                     fmt::format("one argument of the command is {} bytes, more than the "
                                 "system's limit for a single argument ({} bytes). Fix: pass "
                                 "the data to the command through a file in the project or {}.",
                                 a.size(), b.max_string, b.temp_folder)};
  }
  for (const auto& [k, v] : env.vars) {
    envb += k.size() + v.size() + 2 + sizeof(char*);
    if (b.max_string && k.size() + v.size() + 2 > b.max_string)
      return Refusal{ErrorKind::kRefused,
                     fmt::format("the environment variable {} is {} bytes, more than the "
                                 "system's limit for a single string ({} bytes). Fix: unset it "
                                 "before starting cordon, or pass its data through a file.",
                                 k, k.size() + v.size() + 1, b.max_string)};
  }
  for (const auto& [k, n] : b.extra_env) envb += k.size() + n + 2 + sizeof(char*);
  const size_t total = prefix + args + envb + 2 * sizeof(char*);
  const uint64_t usable = b.limit > b.reserve ? b.limit - b.reserve : 0;
  if (total <= usable) return std::nullopt;
  // The largest part, and the fix that shrinks it.
  std::string name = "the command's own arguments", fix = data_fix;
  size_t largest = args;
  if (envb > largest) {
    name = "the environment";
    largest = envb;
    fix =
        "unset large variables before starting cordon, or pass their data to the command "
        "through a file.";
  }
  if (prefix > largest && !b.prefix_fix.empty()) {
    name = b.prefix_name;
    largest = prefix;
    fix = b.prefix_fix;
  }
  return Refusal{ErrorKind::kRefused,
                 fmt::format("the sandbox for this command needs {} bytes of arguments and "
                             "environment, more than the system's argument limit ({} bytes, "
                             "{} of them kept for the system's own strings): the largest part "
                             "is {} ({} bytes). Fix: {}",
                             total, b.limit, b.reserve, name, largest, fix)};
}

const char* budget_list_name(BudgetList list) {
  switch (list) {
    case BudgetList::kHidden:
      return "hidden paths";
    case BudgetList::kProtected:
      return "protected paths and git files";
    case BudgetList::kCredential:
      return "credential files";
    case BudgetList::kWritable:
      return "writable paths";
    case BudgetList::kBase:
      return "cordon's own rules";
  }
  return "?";
}

std::string budget_list_fix(BudgetList list, const std::string& config) {
  switch (list) {
    case BudgetList::kHidden:
      return fmt::format(
          "shorten the [sandbox] hide list in {} (a glob counts once for each "
          "path it matches)",
          config);
    case BudgetList::kProtected:
      return fmt::format(
          "drop unneeded [sandbox] protect entries in {}, and remove git include "
          "files, worktrees or submodules you no longer need",
          config);
    case BudgetList::kCredential:
      return "move credential files the command does not need (.env files, *.pem, *.key, "
             "*.p12, *.pfx, .secrets folders) out of the project, or run the command without "
             "network";
    case BudgetList::kWritable:
      return fmt::format("drop unneeded [sandbox] writable entries in {}", config);
    case BudgetList::kBase:
      return "report this: cordon's own rules alone are over the budget";
  }
  return "";
}

size_t& BudgetCounts::at(BudgetList list) {
  switch (list) {
    case BudgetList::kHidden:
      return hidden;
    case BudgetList::kProtected:
      return protect;
    case BudgetList::kCredential:
      return credential;
    case BudgetList::kWritable:
      return writable;
    case BudgetList::kBase:
      break;
  }
  return base;
}

size_t BudgetCounts::at(BudgetList list) const { return const_cast<BudgetCounts*>(this)->at(list); }

BudgetList BudgetCounts::largest() const {
  BudgetList best = BudgetList::kHidden;
  for (BudgetList l : {BudgetList::kProtected, BudgetList::kCredential, BudgetList::kWritable})
    if (at(l) > at(best)) best = l;
  return best;
}

BudgetList mount_budget_list(const MountOp& m) {
  if (starts_with(m.why, "hidden:")) return BudgetList::kHidden;
  if (starts_with(m.why, "protected:") || starts_with(m.why, "git:")) return BudgetList::kProtected;
  if (starts_with(m.why, "credential:")) return BudgetList::kCredential;
  if (starts_with(m.why, "writable:")) return BudgetList::kWritable;
  return BudgetList::kBase;  // "base:", "cordon:": not for the user to shorten
}

}  // namespace cordon
