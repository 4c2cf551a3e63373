// Which folders cannot be a project (FS-4, FS-7, FS-8): a project is writable by every command,
// so a project that is (or lies inside) a credential folder, a system folder or the home folder
// would hand those to the command.
#pragma once

#include <optional>
#include <string>

#include "plan/facts.h"
#include "plan/plan.h"

namespace cordon {

// The refusal for a project that must not be one, naming the rule, or nullopt. Examples:
//   project ~/.ssh           -> refused: it is the hidden path ~/.ssh (FS-4)
//   project ~/.aws/sub       -> refused: it lies inside the hidden path ~/.aws (FS-4)
//   project /etc, /, ~       -> refused: a system folder / the home folder
//   project ~/.claude/wt/x   -> allowed: the harness-config case of FS-7 (stays visible)
std::optional<Refusal> project_refusal(const Facts& facts);

// FS-5, FS-7: why the target of a link inside a hidden folder stays visible, or "" when it is
// hidden. A target that is or holds the home folder, the project or a system folder (`/`,
// `/usr`, ...) is never hidden: that would hide the machine or the project itself.
//   ~/dotfiles/gh/hosts.yml -> ""     /usr -> "it is a system folder"     ~ -> "it holds ..."
std::string link_target_kept_because(const std::string& target, const std::string& home,
                                     const std::string& project);

}  // namespace cordon
