// Which sandbox backend runs a sandboxed command: chosen here and nowhere else (MAC-5). macOS
// uses Seatbelt (sandbox-exec), Linux bubblewrap; `CORDON_BACKEND=seatbelt` forces Seatbelt
// anywhere, so the whole macOS path can be tested on Linux with a stand-in for sandbox-exec
// (`CORDON_SANDBOX_EXEC`, honoured only then: it never silently replaces bwrap). Pure.
//
// Example:
//   auto c = choose_backend(env);                 // env: cordon's own environment
//   if (!c.ok()) return c.error();                // CORDON_BACKEND=foo
//   if (c->backend == Backend::kSeatbelt) run c->sandbox_exec -p PROFILE -- COMMAND...
#pragma once

#include <string>

#include "config/policy.h"
#include "core/env.h"
#include "core/result.h"
#include "plan/planner.h"

namespace cordon {

// CORDON_MACOS_BUILD: the macOS configuration, also when built on Linux as a check
// (CMakeLists.txt: CORDON_PRETEND_MACOS), which has no bubblewrap backend.
#if defined(__APPLE__) || defined(CORDON_MACOS_BUILD)
inline constexpr bool kOnMacos = true;
#else
inline constexpr bool kOnMacos = false;
#endif

inline constexpr const char* kSandboxExec = "/usr/bin/sandbox-exec";

struct BackendChoice {
  Backend backend = Backend::kBwrap;
  bool forced = false;            // CORDON_BACKEND named it
  bool configured = false;        // `[sandbox] backend` named it (LL-1)
  // LL-1: `[sandbox] backend = "auto"` on Linux, nothing forced: a bwrap that cannot make
  // namespaces hands over to Landlock (settle_backend, launch/backend_probe.h).
  bool may_fall_back = false;
  std::string fallback_cause;     // LL-1: why bwrap was not used ("" when it was not a fallback)
  std::string sandbox_exec;       // Seatbelt: the program run as sandbox-exec
  bool stand_in = false;          // sandbox_exec is CORDON_SANDBOX_EXEC's stand-in (tests)
  bool stand_in_ignored = false;  // CORDON_SANDBOX_EXEC is set but Seatbelt was not forced
};

// `on_macos` is the system cordon was built for (a parameter so tests can pretend);
// `setting` the config's `[sandbox] backend` (LL-1): "landlock" picks the Landlock + seccomp
// backend on Linux; "bwrap" keeps bubblewrap and its refusal where it cannot run; "auto" starts
// from bubblewrap and may fall back (may_fall_back: the probes decide, settle_backend).
// CORDON_BACKEND, when set, wins over the setting.
Result<BackendChoice> choose_backend(const EnvMap& env, bool on_macos = kOnMacos,
                                     BackendSetting setting = BackendSetting::kAuto);

// "Seatbelt (sandbox-exec)", "bubblewrap (Linux)" or "Landlock + seccomp (Linux)", for `cordon
// policy` and `cordon probe`; a fallback says why.
std::string backend_title(const BackendChoice& c);

// LL-1: the choice after bubblewrap failed its probe for `cause`: Landlock, saying why.
BackendChoice fall_back_to_landlock(BackendChoice c, const std::string& cause);

// "seatbelt", "landlock" or "bubblewrap": the backend's name in JSON.
const char* backend_name(Backend b);

}  // namespace cordon
