// What every CLI command starts from: environment, folders, config.
#pragma once

#include <string>

#include "config/folders.h"
#include "config/policy.h"
#include "core/env.h"
#include "core/result.h"

namespace cordon {

struct CliContext {
  EnvMap env;
  std::string home;
  std::string cwd;
  Folders folders;
  std::string exe;  // this program's real path
};

CliContext load_cli_context(char** envp);
// Reads and parses the config (CFG-2); a missing file means all defaults.
Result<Policy> load_policy(const CliContext& ctx);

// Exit statuses (PROC-5).
inline constexpr int kExitRefused = 125;

}  // namespace cordon
