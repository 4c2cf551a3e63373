// Reads what WSL-1 needs from the host: /proc/version, /proc/self/mountinfo and the roots of
// the Windows drives. The rules are pure (plan/wsl_detect.h); this only gathers.
#pragma once

#include <string>

#include "plan/facts.h"

namespace cordon {

struct WslFactsInput {
  std::string proc_version = "/proc/version";
  std::string mountinfo = "/proc/self/mountinfo";
};

// Fills machine.wsl, windows_drives, windows_users_dirs and wsl_error. A /proc/version that
// cannot be read means "not WSL"; a mount table that cannot be read under WSL sets wsl_error
// (the planner then refuses: the Users folders could not be found to hide them).
void read_wsl_facts(MachineFacts& machine, const WslFactsInput& in = {});

}  // namespace cordon
