#include "plan/hidden_list.h"

#include "core/paths.h"

namespace cordon {

const std::vector<std::string>& default_hidden_home_entries() {
  // FS-4. Trailing slashes are dropped: a folder entry hides whatever kind of path is there.
  static const std::vector<std::string> list = {
      ".ssh",
      ".gnupg",
      ".aws",
      ".azure",
      ".config/gcloud",
      ".config/gh",
      ".config/hub",
      ".docker",
      ".kube",
      ".netrc",
      ".git-credentials",
      ".npmrc",
      ".pypirc",
      ".gem/credentials",
      ".terraform.d/credentials.tfrc.json",
      ".vault-token",
      ".password-store",
      ".local/share/keyrings",
      ".secrets",
      ".cargo/credentials*",
      ".gradle/gradle.properties",
      ".m2/settings.xml",
      ".m2/settings-security.xml",
      ".bash_history",
      ".zsh_history",
      ".python_history",
      ".psql_history",
      ".mysql_history",
      ".node_repl_history",
      ".claude",
      ".claude.json",
      ".codex",
      ".gemini",
  };
  return list;
}

const std::vector<std::string>& harness_config_home_entries() {
  static const std::vector<std::string> list = {".claude", ".claude.json", ".codex", ".gemini"};
  return list;
}

const std::vector<std::string>& default_hidden_system_entries() {
  // FS-4: the machine's own secrets, readable when cordon runs as root. The `-` files are the
  // copies passwd and vipw keep; ssh_host_*_key matches the private host keys, not `.pub`.
  static const std::vector<std::string> list = {
      "/etc/shadow",   "/etc/shadow-",          "/etc/gshadow",
      "/etc/gshadow-", "/etc/security/opasswd", "/etc/ssh/ssh_host_*_key",
  };
  return list;
}

namespace {
bool has_glob(const std::string& p) {
  std::string base = path_base(p);
  return base.find_first_of("*?") != std::string::npos;
}
}  // namespace

std::vector<HideEntry> hide_entries(const Policy& policy, const Folders& folders,
                                    const std::string& home) {
  std::vector<HideEntry> out;
  auto add = [&](std::string entry, std::string path, std::string why) {
    bool g = has_glob(path);
    out.push_back(HideEntry{std::move(entry), std::move(path), std::move(why), g});
  };
  for (const auto& rel : default_hidden_home_entries())
    add("~/" + rel, path_join(home, rel), "default list");
  for (const auto& abs : default_hidden_system_entries()) add(abs, abs, "system secrets");
  if (!folders.cordon_home.empty() && folders.cordon_home != normalize_path(home)) {
    // FS-6: CORDON_HOME acts like a home folder of its own.
    for (const auto& rel : default_hidden_home_entries())
      add(path_join(folders.cordon_home, rel), path_join(folders.cordon_home, rel),
          "default list, inside CORDON_HOME");
  }
  // With CORDON_HOME the config "folder" is CORDON_HOME itself, which also holds state and
  // cache; hide the config file there, and the whole config folder otherwise.
  if (!folders.cordon_home.empty())
    add(tilde_path(folders.config_file, home), folders.config_file, "cordon's config file");
  else
    add(tilde_path(folders.config_dir, home), folders.config_dir, "cordon's config folder");
  for (const char* sub : {"logs", "sessions", "checkpoints"}) {
    std::string p = path_join(folders.data, sub);
    add(tilde_path(p, home), p, "cordon's own records");
  }
  // FS-13: the state folder holds other commands' leftover records (their command lines) and
  // session records; the cache holds every session's private /tmp. A command needs neither:
  // its own /tmp is bound at /tmp, and the placeholders hidden paths show are bind sources,
  // taken from the host before the mount namespace hides them.
  if (!folders.state.empty())
    add(tilde_path(folders.state, home), folders.state, "cordon's state folder (FS-13)");
  if (!folders.cache.empty())
    add(tilde_path(folders.cache, home), folders.cache, "cordon's cache folder (FS-13)");
  for (const auto& e : policy.hide) {
    std::string p = normalize_path(expand_home(e, home));
    add(e, p, "[sandbox] hide");
  }
  return out;
}

}  // namespace cordon
