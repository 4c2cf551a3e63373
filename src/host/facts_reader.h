// Gathers the Facts the planner needs: the only layer that reads the host before launch.
#pragma once

#include <string>

#include "config/folders.h"
#include "config/policy.h"
#include "core/env.h"
#include "core/result.h"
#include "plan/facts.h"
#include "plan/request.h"

namespace cordon {

struct FactsInput {
  EnvMap env;
  Folders folders;
  std::string home;
  std::string cwd;           // real working folder
  std::string project;       // real project root
  std::string session_id;
  std::string session_tmp;   // exists
  std::string empty_file;    // exists
  std::string empty_dir;     // exists
  bool network = false;      // gather NET-3 credential files
  bool prepare_caches = false;  // make the project's package cache folders (PKG-2)
  // NET-12: the ssh route is on for this command: make the session's ssh folder, bound at
  // /tmp/.cordon-ssh (`ssh_bwrap`) or used where it is; `cordon_exe` is the connect helper.
  bool ssh_route = false;
  bool ssh_bwrap = true;
  std::string cordon_exe;
};

// The project root for a working folder: the nearest folder at or above it holding `.git`
// (a folder or a `gitdir:` file), else the working folder itself. Real paths.
std::string find_project_root(const std::string& cwd);

// Finds bwrap: $CORDON_BWRAP when set (tests), else /usr/bin/bwrap, else the PATH.
std::string find_bwrap(const EnvMap& env);

// Everything but the protected, git and credential facts, which have their own readers.
Facts gather_facts(const Policy& policy, const FactsInput& in);

}  // namespace cordon
