#include "config/folders.h"

#include "core/paths.h"

namespace cordon {

namespace {
// XDG variables must be absolute to count (XDG Base Directory spec); otherwise the default.
std::string xdg(const EnvMap& env, const char* name, const std::string& fallback) {
  auto v = env.get(name);
  if (v && !v->empty() && (*v)[0] == '/') return normalize_path(*v);
  return fallback;
}
}  // namespace

Folders resolve_folders(const EnvMap& env, const std::string& home_fallback,
                        const std::string& cwd) {
  Folders f;
  std::string home = env.value("HOME");
  if (home.empty() || home[0] != '/') home = home_fallback;
  home = normalize_path(home);
  auto ch = env.get("CORDON_HOME");
  if (ch && !ch->empty()) {
    std::string root = normalize_path(expand_home(*ch, home));
    if (root[0] != '/') root = path_join(cwd, root);
    f.cordon_home = root;
    f.config_dir = root;
    f.config_file = path_join(root, "config.toml");
    f.state = path_join(root, "state");
    f.data = path_join(root, "data");
    f.cache = path_join(root, "cache");
    return f;
  }
  f.config_dir = path_join(xdg(env, "XDG_CONFIG_HOME", path_join(home, ".config")), "cordon");
  f.config_file = path_join(f.config_dir, "config.toml");
  f.state = path_join(xdg(env, "XDG_STATE_HOME", path_join(home, ".local/state")), "cordon");
  f.data = path_join(xdg(env, "XDG_DATA_HOME", path_join(home, ".local/share")), "cordon");
  f.cache = path_join(xdg(env, "XDG_CACHE_HOME", path_join(home, ".cache")), "cordon");
  return f;
}

}  // namespace cordon
