#include "plan/cache_rules.h"

#include <fmt/format.h>

#include "core/paths.h"
#include "plan/cache_tools.h"

namespace cordon {

namespace {

std::string how(const CacheTool& t) {
  return t.way == CacheWay::kVariable ? t.variable : "mounted over " + t.home_path;
}

const PathInfo* fact_at(const std::vector<PathInfo>& v, size_t i) {
  return i < v.size() ? &v[i] : nullptr;
}

bool is_dir(const PathInfo* info) {
  return info && info->exists() && !info->real.empty() && info->real_kind == Kind::kDir;
}

void plan_project(const Facts& facts, Plan& p, bool can_mount) {
  const CacheFacts& c = facts.caches;
  if (c.tools_dir.empty()) {
    // Made before each sandboxed command; `cordon policy` alone does not make it.
    if (!c.error.empty())
      p.warnings.push_back("package caches are read-only for this command: " + c.error);
    std::string root = project_cache_tools(facts.folders.cache, facts.project);
    for (const auto& t : cache_tools())
      p.caches.push_back({t.tool, how(t), tilde_path(tool_cache_folder(root, t), facts.home),
                          c.error.empty() ? "project (made at the first command)"
                                          : "read-only (the folder could not be made)"});
    return;
  }
  p.mounts.push_back({MountKind::kBind, c.tools_dir, c.tools_dir,
                      "writable: the project's package caches"});  // PKG-2
  p.writable_roots.push_back(c.tools_dir);
  const auto& tools = cache_tools();
  for (size_t i = 0; i < tools.size(); ++i) {
    const CacheTool& t = tools[i];
    std::string folder = tool_cache_folder(c.tools_dir, t);
    std::string shown = tilde_path(folder, facts.home);
    if (t.way == CacheWay::kVariable) {
      p.caches.push_back({t.tool, how(t), shown, "project"});
      continue;
    }
    if (!can_mount) {
      // PKG-2: never the user's own cache writable; Seatbelt cannot put another in its place.
      p.caches.push_back({t.tool, how(t), t.home_path,
                          fmt::format("read-only: macOS cannot mount a folder over {} (set "
                                      "[sandbox] caches = \"shared\" to let {} write its own)",
                                      t.home_path, t.tool)});
      continue;
    }
    // PKG-3: mounted only over a cache the user already has (no mount point is made).
    const PathInfo* anchor = fact_at(c.anchors, i);
    const PathInfo* own = fact_at(c.own, i);
    if (!is_dir(anchor) || !is_dir(own)) {
      p.caches.push_back(
          {t.tool, how(t), shown, fmt::format("not used: no {} folder here", t.home_path)});
      continue;
    }
    p.mounts.push_back(
        {MountKind::kBind, folder, own->real, "writable: the project's package caches"});  // PKG-2
    p.caches.push_back({t.tool, how(t), shown, "project"});
  }
}

void plan_shared(const Facts& facts, Plan& p) {
  const auto& tools = cache_tools();
  for (size_t i = 0; i < tools.size(); ++i) {
    const CacheTool& t = tools[i];
    const PathInfo* own = fact_at(facts.caches.own, i);
    std::string shown = own ? tilde_path(own->path, facts.home) : t.home_path;
    if (!is_dir(own)) {
      p.caches.push_back({t.tool, "its own", shown, "read-only (absent: not created)"});
      continue;
    }
    p.mounts.push_back({MountKind::kBind, own->real, own->real,
                        "writable: [sandbox] caches = \"shared\""});  // PKG-4
    p.writable_roots.push_back(own->real);
    p.caches.push_back({t.tool, "its own", shown, "shared (writable)"});
  }
}

}  // namespace

std::string cache_mode_summary(CacheMode mode) {
  switch (mode) {
    case CacheMode::kProject:
      return "project: each project has package caches of its own under cordon's cache folder, "
             "writable by its sandboxed commands and kept across commands and sessions; your "
             "own caches are never written (`cordon cache` lists them)";
    case CacheMode::kShared:
      return "shared: your own package caches are writable inside the sandbox. Faster, but a "
             "sandboxed command can then poison your caches: a package or build it plants "
             "there is trusted later by your builds outside the sandbox";
    case CacheMode::kOff:
      return "off: package caches are read-only inside the sandbox; installs that need to write "
             "one fail";
  }
  return "";
}

void plan_project_caches(const Policy& policy, const Facts& facts, Plan& p, bool can_mount) {
  if (policy.caches == CacheMode::kProject) plan_project(facts, p, can_mount);
}

std::string hidden_dir_source(const Facts& facts, const std::string& path) {
  const CacheFacts& c = facts.caches;
  if (!c.view.empty() && !c.tools_dir.empty() && path == c.cache_real) return c.view;
  return facts.empty_dir;
}

void plan_caches(const Policy& policy, const Facts& facts, Plan& p) {
  switch (policy.caches) {
    case CacheMode::kProject:
      return;  // plan_project_caches, after the hidden paths
    case CacheMode::kShared:
      return plan_shared(facts, p);
    case CacheMode::kOff:
      for (const auto& t : cache_tools())
        p.caches.push_back({t.tool, "its own", t.home_path, "read-only"});
      return;
  }
}

}  // namespace cordon
