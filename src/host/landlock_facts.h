// LL-1: what the Landlock rules need read on the host: the entries of every folder that holds
// a hidden path (plan/landlock_rules.h).
//
// Example:
//   LandlockInput in = read_landlock_input(hidden, plan.writable_roots);
//   LandlockRules rules = landlock_rules(in);
#pragma once

#include <string>
#include <vector>

#include "plan/landlock_rules.h"

namespace cordon {

// `hidden` (with landlock_machine_private() added) and `writable` as the plan holds them; the
// listings of the folders landlock_folders_to_list() names (a folder that cannot be read is left
// out), and the default devices.
LandlockInput read_landlock_input(const std::vector<std::string>& hidden,
                                  const std::vector<std::string>& writable);

}  // namespace cordon
