// LL-1: the Landlock ruleset of a command, built in cordon before the command's process is
// created: the ruleset is made and every rule added here (paths opened O_PATH), so the child
// only has to call landlock_restrict_self on it.
//
// Example:
//   auto fd = make_landlock_ruleset(rules, {.net = true});   // or its error, with the fix
//   ... in the child: prctl(PR_SET_NO_NEW_PRIVS, 1); landlock_restrict_self(fd, 0);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "plan/landlock_rules.h"
#include "process/process.h"

namespace cordon {

// The ABI the rules need: 4 (TCP bind and connect rules). With 6 signals to processes outside
// the sandbox are refused too.
inline constexpr int kLandlockAbiNeeded = 4;

// The running kernel's Landlock ABI: 0 when Landlock is off or absent (errno-based cause in
// `why`).
int landlock_abi(std::string* why = nullptr);

// Why the kernel's Landlock cannot serve (absent, off, or an ABI older than the rules need),
// and the fix; nullopt when it serves.
struct LandlockProblem {
  std::string cause, fix;
  std::string message() const;  // "the Landlock sandbox is unavailable: CAUSE. Fix: FIX"
};
std::optional<LandlockProblem> landlock_abi_problem();

struct LandlockNet {
  bool restrict = true;        // false: the command shares the machine's network (NET-3)
  std::vector<int> tcp_ports;  // ports it may connect to (the allowlist proxy's)
};

// The ruleset's descriptor (close-on-exec, >= 10). A grant whose path is gone is skipped; any
// other failure is an error naming the path.
Result<Fd> make_landlock_ruleset(const LandlockRules& rules, const LandlockNet& net);

// Runs in the child: no_new_privs, then restrict to `ruleset_fd` (closed after). Async-signal-
// safe. 0, or -1 with errno.
int landlock_restrict(int ruleset_fd);

}  // namespace cordon
