// Which folders cannot be a project (FS-4, FS-7, FS-8): a project is writable by every command,
// so a project that is (or lies inside) a credential folder, a system folder or the home folder
// would hand those to the command.
#pragma once

#include <optional>

#include "plan/facts.h"
#include "plan/plan.h"

namespace cordon {

// The refusal for a project that must not be one, naming the rule, or nullopt. Examples:
//   project ~/.ssh           -> refused: it is the hidden path ~/.ssh (FS-4)
//   project ~/.aws/sub       -> refused: it lies inside the hidden path ~/.aws (FS-4)
//   project /etc, /, ~       -> refused: a system folder / the home folder
//   project ~/.claude/wt/x   -> allowed: the harness-config case of FS-7 (stays visible)
std::optional<Refusal> project_refusal(const Facts& facts);

}  // namespace cordon
