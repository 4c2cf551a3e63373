// The seccomp rule set of PROC-7 and NET-2, as data. The BPF is compiled by the Linux backend.
#pragma once

#include <vector>

#include "plan/plan.h"

namespace cordon {

// Every refusal returns EPERM (never kills), and argument comparisons use the low 32 bits
// with a mask so junk in the upper bits cannot slip through.
std::vector<SeccompRule> default_seccomp_rules();

}  // namespace cordon
