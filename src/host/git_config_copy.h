// FS-12: sanitized copies of the global git config and of the files it includes.
#pragma once

#include <string>
#include <vector>

#include "core/env.h"
#include "plan/facts.h"

namespace cordon {

// For each global config file, and each file they include (transitively, at most 64), that
// holds a credential: writes the sanitized copy under `<cache_dir>/git-config/` (named by its
// content) and returns where it is and which keys were removed. Files without credentials are
// not listed (commands see them as they are); `copy` is empty when it could not be written. A file
// git cannot parse, or when git is missing, is copied as an empty file (what a command would learn
// from it is then nothing).
std::vector<GitConfigCopyFact> sanitized_git_configs(const EnvMap& env, const std::string& home,
                                                     const std::string& cache_dir);

}  // namespace cordon
