// Running the git program to read facts, safely in a hostile repository: no fsmonitor, no
// optional locks, no hooks (none of the commands used runs one), bounded time and output.
#pragma once

#include <string>
#include <vector>

#include "core/env.h"
#include "core/result.h"

namespace cordon {

struct GitOutput {
  int status = -1;
  std::string out, err;
};

// Runs `git -c core.fsmonitor=false ARGS...` in `cwd` with GIT_OPTIONAL_LOCKS=0 and without
// variables that would point git at another repository. An error means git could not be run.
Result<GitOutput> run_git(const std::vector<std::string>& args, const std::string& cwd,
                          const EnvMap& env, const std::vector<std::pair<std::string, std::string>>&
                                                 extra_env = {});

// The git program's path, or "" when git is not installed.
std::string find_git(const EnvMap& env);

}  // namespace cordon
