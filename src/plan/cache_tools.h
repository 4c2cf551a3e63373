// PKG-1..4: package managers' caches in the sandbox. The tools are data: one row each, with the
// variable that moves its cache (the way, PKG-3) or, where a tool has none, the path in the home
// that a folder of cordon's is mounted over. Pure: the host layer makes the folders.
#pragma once

#include <string>
#include <vector>

#include "config/policy.h"
#include "core/env.h"

namespace cordon {

enum class CacheWay { kVariable, kMount };

struct CacheTool {
  std::string tool;    // as users name it: "npm", "cargo (registry)"
  std::string folder;  // its folder inside the project's sandbox cache: "npm"
  CacheWay way = CacheWay::kVariable;
  std::string variable;  // kVariable: the tool's own variable (`npm_config_cache`)
  // kVariable: the value, `{}` standing for the folder ("-Dmaven.repo.local={}"); appended to
  // a value the user already has, after a space, when `append` is set.
  std::string value = "{}";
  bool append = false;
  // The user's own cache, `~/...`: what "shared" makes writable, and for kMount the path the
  // project's folder is mounted over.
  std::string home_path;
  // kMount: the tool's folder in the home (`~/.cargo`); without it the user has not the tool
  // and nothing is mounted (PKG-3).
  std::string anchor;
};

// Every tool, in a fixed order (`cordon policy`, the facts, the tests).
const std::vector<CacheTool>& cache_tools();

// The project's sandbox cache under cordon's cache folder (CFG-1), the same for every command
// and session of the project (PKG-2):
//   project_cache_root("/home/u/.cache/cordon", "/home/u/proj")
//     == "/home/u/.cache/cordon/packages/proj-<16 hex digits>"
std::string project_cache_root(const std::string& cache_folder, const std::string& project);
// The folder commands may write: `<root>/tools` (the root also holds cordon's own notes).
std::string project_cache_tools(const std::string& cache_folder, const std::string& project);
// A tool's folder in it.
std::string tool_cache_folder(const std::string& tools_dir, const CacheTool& t);

// PKG-3: the variables of a sandboxed command's environment in "project" mode, set over `env`
// (the user's own values of these variables are replaced; `append` ones are extended).
void set_cache_variables(CacheMode mode, const std::string& tools_dir, EnvMap& env);

}  // namespace cordon
