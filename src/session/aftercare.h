// Aftercare: after each command, move aside what it planted (PROT-6, PROT-7, GIT-3) and
// collect the notes. Nothing is ever deleted: a move is a rename that never replaces.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "plan/aftercare_rules.h"
#include "session/command_result.h"

namespace cordon {

struct AftercareOutcome {
  std::vector<QuarantineMove> moved;
  std::vector<std::string> notes;
  std::vector<std::string> failed;  // paths that could not be moved (PROT-7 refuses on them)
  std::vector<std::string> newly_unreadable;
};

// Compares `before` with the project now and performs the moves.
AftercareOutcome run_aftercare(const ProtectedSnapshot& before);

// Renames `path` into `dest_dir` as <name>.cordon-quarantined-<16 hex>, never replacing
// anything; returns the new path or an error.
Result<std::string> quarantine(const std::string& path, const std::string& dest_dir);

}  // namespace cordon
