// What every CLI command starts from: environment, folders, config (host/host_context.h).
#pragma once

#include <string>

#include "host/host_context.h"

namespace cordon {

using CliContext = HostContext;

inline CliContext load_cli_context(char** envp) {
  return read_host_context(EnvMap::from_environ(envp));
}
// Reads and parses the config (CFG-2); a missing file means all defaults.
inline Result<Policy> load_policy(const CliContext& ctx) { return load_user_policy(ctx.folders); }

// Exit statuses (PROC-5).
inline constexpr int kExitRefused = 125;

}  // namespace cordon
