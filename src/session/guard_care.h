// LL-1, GIT-1, GIT-9, PROT-7: the content guard's part of aftercare. Under a backend that
// cannot keep git's auto-run files and protected files read-only (Landlock), what the command
// changed among them is moved aside and the user's bytes put back; what it planted in a guarded
// folder is moved aside (plan/content_guard.h decides, host/guard_reader.h reads and writes).
#pragma once

#include <set>
#include <string>

#include "session/aftercare.h"

namespace cordon {

// Runs after aftercare's other steps, on what they left; adds the moves and notes to `out`.
// Returns the absolute paths put back from the bytes kept.
std::set<std::string> run_guard_care(const ProtectedSnapshot& before, AftercareOutcome& out);

}  // namespace cordon
