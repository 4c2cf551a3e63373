// Where cordon keeps its config, state, data and cache (CFG-1).
#pragma once

#include <string>

#include "core/env.h"

namespace cordon {

struct Folders {
  std::string config_file;  // .../config.toml
  std::string config_dir;   // the folder holding it (hidden from commands, FS-4)
  std::string state;        // leftover records, session records
  std::string data;         // logs/, sessions/, checkpoints/, audit/ (hidden, FS-8, AUD-1)
  std::string cache;        // sandbox-tmp/, probe and facts caches
  std::string cordon_home;  // CORDON_HOME when set (FS-6), else empty
};

// Pure: computes the folders from the environment. `home_fallback` is the home folder to use
// when HOME is unset (from the password database); `cwd` resolves a relative CORDON_HOME.
Folders resolve_folders(const EnvMap& env, const std::string& home_fallback,
                        const std::string& cwd);

}  // namespace cordon
