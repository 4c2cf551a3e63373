// PKG-1..4: the mounts and report lines that give package managers a writable cache.
#pragma once

#include "config/policy.h"
#include "plan/facts.h"
#include "plan/plan.h"

namespace cordon {

// Appends the cache mounts and writable roots to `p` and fills `p.caches`. "project": one
// writable folder of cordon's (the variables point into it, sandbox_process_part sets them)
// plus a folder mounted over each mounted tool's path the user has; "shared": the user's own
// caches that exist, writable; "off": nothing (they stay read-only).
// "shared" binds go before the hidden paths (a hidden file inside stays hidden); "project"
// ones after them, since cordon's cache folder, which holds them, is itself hidden (FS-13).
// `can_mount` false (Seatbelt, which has no mounts): a tool whose cache has no variable keeps
// its own cache read-only, and `cordon policy` says so, rather than a mount that cannot be.
void plan_caches(const Policy& policy, const Facts& facts, Plan& p);
void plan_project_caches(const Policy& policy, const Facts& facts, Plan& p, bool can_mount = true);

// The folder a hidden folder `path` shows: the view of cordon's cache folder in "project"
// mode, else the empty folder.
std::string hidden_dir_source(const Facts& facts, const std::string& path);

// PKG-4: one sentence on what a mode means, for `cordon policy`; "shared" says plainly that a
// sandboxed command can then poison the user's caches.
std::string cache_mode_summary(CacheMode mode);

}  // namespace cordon
