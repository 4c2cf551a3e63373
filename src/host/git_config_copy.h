// FS-12: sanitized copies of the global git config and of the files it includes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/env.h"
#include "plan/facts.h"

namespace cordon {

// For each global config file, and each file they include (transitively, at most 64), that
// holds a key not on FS-12's allowlist (plan/global_git_keys.h): writes the copy with only the
// allowlisted keys under `<cache_dir>/git-config/` (named by its content) and returns where it
// is and which keys were removed. Files of allowlisted keys only are not listed (commands see
// them as they are); git's reading of each file is kept in the cache under the file's content
// (PERF-1: no git call while the file does not change); `copy` is empty when it could not be
// written. A file git cannot parse, or when git is missing, is copied as an empty file (what a
// command would learn from it is then nothing).
std::vector<GitConfigCopyFact> sanitized_git_configs(const EnvMap& env, const std::string& home,
                                                     const std::string& cache_dir);

// NET-3, FS-12: the project's own git config (`<common_dir>/config`) when a URL in it carries a
// user and token: a copy with every key but without them (strip_git_config_credentials),
// bound over it for every command. nullopt when it holds none (or is not a regular file).
std::optional<GitConfigCopyFact> sanitized_project_git_config(const std::string& common_dir,
                                                              const std::string& project,
                                                              const EnvMap& env,
                                                              const std::string& cache_dir);

}  // namespace cordon
