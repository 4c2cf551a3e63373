// Protected paths as found in the project (PROT-1, PROT-5, PROT-9): lstat of each entry and,
// for folders, their entries up to the cap (never a walk of the whole project).
#pragma once

#include <string>
#include <vector>

#include "plan/facts.h"
#include "plan/protected_list.h"

namespace cordon {

inline constexpr size_t kProtectedFolderCap = 1000;  // PROT-5

std::vector<ProtectedFact> read_protected_facts(const std::vector<ProtectEntry>& entries,
                                                const std::string& project,
                                                const GitFacts& git);

}  // namespace cordon
