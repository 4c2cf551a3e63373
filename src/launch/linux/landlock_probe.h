// LL-1: the Landlock backend's start-up check: the kernel's Landlock ABI serves the rules.
#pragma once

#include "launch/linux/probe.h"

namespace cordon {

// One check, "landlock_abi" (its detail: "ABI 7"); failed with the cause and the fix.
ProbeReport run_landlock_probe();

}  // namespace cordon
