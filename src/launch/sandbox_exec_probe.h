// The start-up probe for the Seatbelt backend (MAC-5, PROBE-1): sandbox-exec is there and
// applies a profile. What a profile denies is macOS's to enforce; MAC-3's golden profiles and
// the macOS CI workflow check that side.
#pragma once

#include <string>

#include "core/env.h"
#include "launch/linux/probe.h"

namespace cordon {

struct SeatbeltProbeInput {
  std::string sandbox_exec;
  EnvMap env;             // only its PATH reaches the probe's command
  std::string cache_dir;  // where this boot's success is kept ("" keeps none)
  bool use_cache = true;  // false: check afresh (and refresh the cache), as `cordon probe` does
};

// Runs `SANDBOX_EXEC -p "(version 1) (allow default)" -- /bin/sh -c 'exit 0'` with `env`'s
// PATH only, or returns this boot's cached success for the same sandbox-exec file and cordon
// version (PROBE-1: a later session pays no process for it).
ProbeReport run_seatbelt_probe(const SeatbeltProbeInput& in);

// The same, never cached (the session's call until it passes its cache folder).
ProbeReport run_seatbelt_probe(const std::string& sandbox_exec, const EnvMap& env);

}  // namespace cordon
