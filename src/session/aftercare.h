// Aftercare: after each command, move aside what it planted (PROT-6, PROT-7, GIT-3) and
// collect the notes. Nothing is ever deleted: a move is a rename that never replaces.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "plan/aftercare_rules.h"
#include "session/command_result.h"

namespace cordon {

class PlantWatch;

struct AftercareOutcome {
  std::vector<QuarantineMove> moved;
  std::vector<std::string> notes;
  std::vector<std::string> failed;  // paths that could not be moved (PROT-7 refuses on them)
  std::vector<std::string> newly_unreadable;
};

// Compares `before` with the project now and performs the moves (beneath the project, never
// following a link: FS-2, PROT-7) and the restores of GIT-9.
//
// `watch` (GIT-8, PROT-6 below the root) is the plant watch begun before the command; without
// one, the snapshot's directory index on disk is the baseline (a command that was interrupted).
AftercareOutcome run_aftercare(const ProtectedSnapshot& before, PlantWatch* watch = nullptr);

}  // namespace cordon
