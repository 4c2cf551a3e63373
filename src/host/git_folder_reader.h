// GIT-8: reading a git folder a command created or changed, for plan/git_folder_rules.h.
// Every file is opened beneath a trusted root without following any link, O_NONBLOCK, and read
// only when it is a regular file (a FIFO is reported as such, never waited on); each config is
// listed by git itself from what was read (`git config --file - --list -z --no-includes`,
// time-bounded), so the BOM, quoting and continuations count exactly as git counts them.
//
//   auto b = Beneath::open(project);
//   GitFolderFacts f = read_git_folder(*b, "vendor/lib/.git", common_dir, env);
#pragma once

#include <optional>
#include <string>

#include "core/env.h"
#include "host/beneath.h"
#include "plan/git_folder_rules.h"

namespace cordon {

// The folder `rel` beneath `root`. `common_dir` (real path, "" when none) is where a worktree's
// commondir must lead.
GitFolderFacts read_git_folder(const Beneath& root, const std::string& rel,
                               const std::string& common_dir, const EnvMap& env);

// One config file beneath `root`, listed by git.
GitConfigFact read_git_config(const Beneath& root, const std::string& rel, const EnvMap& env);

// The hooks folder `rel` beneath `root`: its kind, whether it could be listed, its entries.
void read_git_hooks(const Beneath& root, const std::string& rel, Kind& kind, bool& listed,
                    std::vector<std::pair<std::string, Kind>>& entries);

// A small regular file beneath `root` (no link anywhere, never waiting on a FIFO); nullopt when
// it is missing or not a regular file.
std::optional<std::string> read_regular_beneath(const Beneath& root, const std::string& rel,
                                                size_t max_bytes = 1 << 20);

}  // namespace cordon
