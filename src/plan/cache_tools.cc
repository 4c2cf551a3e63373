#include "plan/cache_tools.h"

#include <fmt/format.h>

#include <functional>

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

namespace {

CacheTool var(std::string tool, std::string folder, std::string variable, std::string home_path) {
  CacheTool t;
  t.tool = std::move(tool);
  t.folder = std::move(folder);
  t.way = CacheWay::kVariable;
  t.variable = std::move(variable);
  t.home_path = std::move(home_path);
  return t;
}

CacheTool mount(std::string tool, std::string folder, std::string home_path, std::string anchor) {
  CacheTool t;
  t.tool = std::move(tool);
  t.folder = std::move(folder);
  t.way = CacheWay::kMount;
  t.home_path = std::move(home_path);
  t.anchor = std::move(anchor);
  return t;
}

std::string replace_braces(const std::string& pattern, const std::string& dir) {
  std::string out = pattern;
  size_t at = out.find("{}");
  if (at != std::string::npos) out.replace(at, 2, dir);
  return out;
}

}  // namespace

const std::vector<CacheTool>& cache_tools() {
  static const std::vector<CacheTool> list = [] {
    std::vector<CacheTool> l = {
        var("npm", "npm", "npm_config_cache", "~/.npm"),
        // pnpm 9+ reads pnpm_config_*; npm_config_store_dir would make npm 11 warn on every run.
        var("pnpm", "pnpm-store", "pnpm_config_store_dir", "~/.local/share/pnpm/store"),
        var("yarn (v1)", "yarn", "YARN_CACHE_FOLDER", "~/.cache/yarn"),
        // Berry's global cache (enableGlobalCache, the default since v4) lives in its global
        // folder.
        var("yarn (berry)", "yarn-berry", "YARN_GLOBAL_FOLDER", "~/.yarn/berry"),
        var("bun", "bun", "BUN_INSTALL_CACHE_DIR", "~/.bun/install/cache"),
        var("pip", "pip", "PIP_CACHE_DIR", "~/.cache/pip"),
        var("uv", "uv", "UV_CACHE_DIR", "~/.cache/uv"),
        var("poetry", "pypoetry", "POETRY_CACHE_DIR", "~/.cache/pypoetry"),
        // cargo has no variable for its download caches alone (CARGO_HOME moves its config and
        // installed programs too): a folder of cordon's is mounted over each.
        mount("cargo (registry)", "cargo-registry", "~/.cargo/registry", "~/.cargo"),
        mount("cargo (git)", "cargo-git", "~/.cargo/git", "~/.cargo"),
        var("go (modules)", "go-mod", "GOMODCACHE", "~/go/pkg/mod"),
        var("go (build)", "go-build", "GOCACHE", "~/.cache/go-build"),
        var("maven", "maven", "MAVEN_OPTS", "~/.m2/repository"),
        // Gradle's home also holds gradle.properties (credentials): a fresh one leaves them out.
        var("gradle", "gradle", "GRADLE_USER_HOME", "~/.gradle"),
        var("ccache", "ccache", "CCACHE_DIR", "~/.cache/ccache"),
        var("sccache", "sccache", "SCCACHE_DIR", "~/.cache/sccache"),
        // node-gyp 10.3+ (npm 11) reads its own prefix; npm_config_devdir makes npm 11 warn.
        var("node-gyp", "node-gyp", "npm_package_config_node_gyp_devdir", "~/.cache/node-gyp"),
    };
    for (auto& t : l)
      if (t.tool == "maven") {
        t.value = "-Dmaven.repo.local={}";
        t.append = true;
      }
    return l;
  }();
  return list;
}

std::string project_cache_root(const std::string& cache_folder, const std::string& project) {
  std::string base = path_base(project);
  if (base.empty() || base == "/") base = "root";
  return path_join(cache_folder,
                   fmt::format("packages/{}-{:016x}", base, std::hash<std::string>{}(project)));
}

std::string project_cache_tools(const std::string& cache_folder, const std::string& project) {
  return path_join(project_cache_root(cache_folder, project), "tools");
}

std::string tool_cache_folder(const std::string& tools_dir, const CacheTool& t) {
  return path_join(tools_dir, t.folder);
}

void set_cache_variables(CacheMode mode, const std::string& tools_dir, EnvMap& env) {
  if (mode != CacheMode::kProject || tools_dir.empty()) return;
  for (const auto& t : cache_tools()) {
    if (t.way != CacheWay::kVariable) continue;
    std::string v = replace_braces(t.value, tool_cache_folder(tools_dir, t));
    std::string had = env.value(t.variable);
    if (t.append && !trim(had).empty()) v = had + " " + v;
    env.set(t.variable, v);
  }
}

}  // namespace cordon
