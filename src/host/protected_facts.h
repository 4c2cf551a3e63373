// Protected paths as found in the project (PROT-1, PROT-5, PROT-9).
#pragma once

#include <string>
#include <vector>

#include "config/policy.h"
#include "plan/facts.h"

namespace cordon {

std::vector<ProtectedFact> read_protected_facts(const Policy& policy, const std::string& project,
                                                const GitFacts& git);

}  // namespace cordon
