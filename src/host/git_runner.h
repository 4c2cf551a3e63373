// Running the git program on the host to read facts, safely in a hostile repository (REV-1,
// GIT-1): nothing the project's config or attributes name is ever run. Every call carries
// overrides for each setting that names a program (fsmonitor, hooks, pager, editor, ssh,
// askpass, credential helpers, external diff, proxies) and reads no system attributes; the
// callers use only commands that never apply a filter or textconv driver (ls-files, ls-tree,
// config, rev-parse, read-tree without -u, hash-object --no-filters, cat-file).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/result.h"

namespace cordon {

// The time bound of every host git call; past it git is ended and the call reports status 124.
inline constexpr std::chrono::milliseconds kHostGitTimeout{4000};

// `cordon review` (asked for by a person, on the whole change) may take longer.
inline constexpr std::chrono::milliseconds kReviewGitTimeout{30000};

struct GitOutput {
  int status = -1;
  std::string out, err;
};

// Runs `git <safe overrides> ARGS...` in `cwd` with GIT_OPTIONAL_LOCKS=0 and without
// variables that would point git at another repository. An error means git could not be run.
//   run_git({"ls-files", "-z"}, project, env);
Result<GitOutput> run_git(const std::vector<std::string>& args, const std::string& cwd,
                          const EnvMap& env,
                          const std::vector<std::pair<std::string, std::string>>& extra_env = {},
                          const std::string& input = {},
                          std::chrono::milliseconds timeout = kHostGitTimeout);

// The `-c` overrides every host git call carries (for tests and docs).
const std::vector<std::string>& safe_git_overrides();

// The git program's path, or "" when git is not installed.
std::string find_git(const EnvMap& env);

}  // namespace cordon
