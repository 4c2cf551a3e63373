// The mount list as bwrap applies it (issue 15 item 3): in order, each mount on top of what
// is there, so a later mount at a destination covers an earlier one there ("later mount
// wins"). FS-12 relies on it: the sanitized copy of a git config file is ro-bound over the
// path GIT-1 also locks (read-only either way; the copy is what commands read).
#pragma once

#include <optional>
#include <vector>

#include "plan/plan.h"

namespace cordon {

// The de-duplication pass: an earlier mount at the same destination as a later one is dropped
// (the later one covers it) unless a mount between them lies below that destination (it may
// need the earlier one to exist). A conflicting duplicate is refused ("invalid"): a writable
// bind of a host path onto itself, over that path made read-only or hidden by an earlier
// mount, would undo that protection.
std::optional<Refusal> dedupe_mounts(std::vector<MountOp>& mounts);

// The conflicting duplicate of dedupe_mounts, found in a list as given (check_plan's).
std::optional<Refusal> conflicting_mount(const std::vector<MountOp>& mounts);

}  // namespace cordon
