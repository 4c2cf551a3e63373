// The start-up probe for the Seatbelt backend (MAC-5, PROBE-1): sandbox-exec is there and
// applies a profile. What a profile denies is macOS's to enforce; MAC-3's golden profiles and
// the macOS CI workflow check that side.
#pragma once

#include <string>

#include "backend/linux/probe.h"
#include "core/env.h"

namespace cordon {

// Runs `SANDBOX_EXEC -p "(version 1) (allow default)" -- /bin/sh -c 'exit 0'` with `env`'s
// PATH only. Never cached: it costs one process.
ProbeReport run_seatbelt_probe(const std::string& sandbox_exec, const EnvMap& env);

}  // namespace cordon
