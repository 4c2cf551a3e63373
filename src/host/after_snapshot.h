// The snapshot after a command (aftercare): the same paths as before, read again. No git.
#pragma once

#include "plan/aftercare_rules.h"

namespace cordon {

ProtectedSnapshot read_snapshot_after(const ProtectedSnapshot& before);

}  // namespace cordon
