// Git facts (GIT-1, GIT-2): where the real git folder is and which of its files run code.
#pragma once

#include <string>

#include "core/env.h"
#include "plan/facts.h"

namespace cordon {

GitFacts read_git_facts(const std::string& project, const EnvMap& env, const std::string& home);

}  // namespace cordon
