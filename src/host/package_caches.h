// PKG-1..5 on the host: making the project's sandbox cache folder, reading the facts the planner
// needs about each tool's cache, and listing and removing the caches (`cordon cache`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/folders.h"
#include "config/policy.h"
#include "core/env.h"
#include "core/result.h"
#include "plan/facts.h"

namespace cordon {

struct CacheFactsInput {
  CacheMode mode = CacheMode::kProject;
  Folders folders;
  std::string home;
  std::string project;   // real
  EnvMap env;            // the user's environment (a variable names the user's own cache)
  bool prepare = false;  // make the folders (a sandboxed command is about to run)
};

// With `prepare` in "project" mode: makes `<cache>/packages/<project>/tools`, one folder in it
// per mounted tool whose cache already exists in the home (PKG-3: nothing is made there), the
// view FS-13 shows, and records the project and the time of use.
CacheFacts read_cache_facts(const CacheFactsInput& in);

// PKG-5: one project's sandbox caches.
struct ProjectCache {
  std::string root;       // <cache>/packages/<name>
  std::string project;    // as recorded ("" when unknown)
  uint64_t bytes = 0;     // disk use
  int64_t last_used = 0;  // seconds since the epoch, 0 when unknown
};
std::vector<ProjectCache> list_project_caches(const Folders& folders);
// Removes one project's caches (`project` real path) or, with an empty `project`, all of them.
// Returns how many were removed. Never follows a link out of cordon's cache folder.
Result<size_t> remove_project_caches(const Folders& folders, const std::string& project);

}  // namespace cordon
