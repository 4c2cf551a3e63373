// What every face starts from: the environment, the home and working folders, cordon's own
// folders (CFG-1) and the user's config (CFG-2). Reads the host; the parsing itself is pure
// (config/config_file.h).
#pragma once

#include <string>

#include "config/folders.h"
#include "config/policy.h"
#include "core/env.h"
#include "core/result.h"

namespace cordon {

struct HostContext {
  EnvMap env;
  std::string home;
  std::string cwd;
  Folders folders;
  std::string exe;  // this program's real path (the probe's checker)
};

// From an environment: HOME (else the password database), the working folder (`cwd`, or this
// process's when empty), the folders and /proc/self/exe.
HostContext read_host_context(EnvMap env, const std::string& cwd = "");

// This program's own file (Linux: /proc/self/exe; macOS: _NSGetExecutablePath), or "cordon".
std::string own_executable();

// Reads and parses the config (CFG-2); a missing file means all defaults. Errors have code
// "config" and name the file.
Result<Policy> load_user_policy(const Folders& folders);

}  // namespace cordon
