// LL-1: the backend a session runs with, settled by the probes. With `[sandbox] backend =
// "auto"` (BackendChoice::may_fall_back), a bubblewrap that is installed but cannot make its
// namespaces (a default Docker container, a CI runner) hands over to Landlock + seccomp when
// Landlock's own probe passes; the choice then says why (fallback_cause). Where bubblewrap is
// not installed there is no fallback: its refusal says to install it or to choose Landlock.
//
// bubblewrap's failure is kept for this boot (<cache>/probe-fallback-<uid>.json), keyed on
// everything that decides it (the programs, the user namespace the caller is in, its seccomp
// filters, the kernel's namespace settings), so that every command of a container does not pay
// a failing bwrap start (~20 ms); `cordon probe` always checks afresh.
//
// Example:
//   SettledBackend s = settle_backend(*choose_backend(env, false, policy.backend), in);
//   if (!s.probe.ok) refuse(s.probe.message());    // neither backend can run
//   run_with(s.choice);                            // kBwrap, or kLandlock with fallback_cause
#pragma once

#include "launch/linux/probe.h"
#include "render/backend_choice.h"

namespace cordon {

struct SettledBackend {
  BackendChoice choice;
  ProbeReport probe;  // the chosen backend's probe
  // A fallback: bubblewrap's failed probe, shown by `cordon probe` beside Landlock's.
  std::optional<ProbeReport> bwrap_probe;
};

// A Linux choice (bubblewrap or Landlock) settled; `in` is bubblewrap's probe input
// (in.use_cache false: check afresh and refresh the kept failure).
SettledBackend settle_backend(BackendChoice choice, const ProbeInput& in);

}  // namespace cordon
