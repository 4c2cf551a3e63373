// The result of one command as Session::run returns it: the public result (RES-1), which every
// face prints or sends as it is, and what only the session's caller needs besides.
#pragma once

#include <optional>

#include "cordon/exec_result.h"
#include "plan/plan.h"

namespace cordon {

using QuarantineMove = api::Moved;  // a path aftercare moved aside (PROT-7)

struct CommandResult {
  // The public result. Its notes are in their final order (the withheld note first, then the
  // RES-1 notes, the timeout note, the blocked-command note); a face only adds its own before
  // them (approvals worth telling).
  api::ExecResult out;
  bool ran = false;                // false: refused (or failed) before the command started
  std::optional<Refusal> refusal;  // why it did not run, or (out.withheld) why it is withheld
};

}  // namespace cordon
