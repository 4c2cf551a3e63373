#include "plan/hidden_list.h"

#include "core/paths.h"

namespace cordon {

const std::vector<HiddenHomeRow>& hidden_home_rows() {
  // FS-4. Each row: what writes the path and what it holds (where that is documented). The
  // peers' lists were compared on 2026-07: nono's default profile
  // (crates/nono-cli/data/policy.json: deny_credentials, deny_keychains_linux,
  // deny_browser_data_linux, deny_shell_history); srt (anthropic-experimental/sandbox-runtime)
  // and codex's Linux sandbox hide no path by default. A shell's startup files, ~/.cargo's
  // config, Yarn's and pip's configs are not hidden: commands need what else they hold, so
  // they are seen as copies without their credentials (sanitized_home_rows()).
  static const std::vector<HiddenHomeRow> rows = {
      // Keys and cloud credentials.
      {".ssh", true, "OpenSSH: private keys, known hosts (ssh(1))"},
      {".gnupg", true, "GnuPG: private keys (gpg(1))"},
      {".aws", true, "AWS CLI: access keys in credentials (docs.aws.amazon.com/cli)"},
      {".azure", true, "Azure CLI: tokens (learn.microsoft.com/cli/azure)"},
      {".config/gcloud", true, "gcloud: OAuth tokens, application default credentials"},
      {".gcloud", true, "gcloud's old folder: tokens (nono deny_credentials)"},
      {".config/gh", true, "GitHub CLI: OAuth token in hosts.yml (cli.github.com/manual)"},
      {".config/hub", true, "hub: OAuth token (hub(1))"},
      {".config/glab-cli", true, "GitLab CLI: token in config.yml (docs.gitlab.com/cli)"},
      {".config/github-copilot", true,
       "GitHub Copilot (editor plugins, copilot-language-server): OAuth token in "
       "hosts.json/apps.json"},
      {".docker", true, "Docker: registry credentials in config.json (docs.docker.com)"},
      {".config/containers/auth.json", false,
       "Podman, Buildah, Skopeo: registry credentials (containers-auth.json(5))"},
      {".kube", true, "kubectl: cluster credentials in config (kubernetes.io/docs)"},
      {".minikube", true, "minikube: client keys and the cluster CA key"},
      {".oci", true, "Oracle Cloud CLI: API signing keys (docs.oracle.com)"},
      {".netrc", false, "curl, git, ftp, pip: passwords per host (netrc(5))"},
      {".git-credentials", false, "git credential-store: passwords (git-credential-store(1))"},
      {".config/git/credentials", false,
       "git credential-store's XDG file: passwords (git-credential-store(1), FILES)"},
      {".npmrc", false, "npm: registry tokens (docs.npmjs.com/cli/configuring-npm/npmrc)"},
      {".pypirc", false, "twine, setuptools: upload passwords (packaging.python.org)"},
      {".config/pypoetry/auth.toml", false,
       "Poetry: repository passwords when no keyring (python-poetry.org/docs/repositories)"},
      {".gem/credentials", false, "RubyGems: API key (guides.rubygems.org)"},
      {".terraform.d/credentials.tfrc.json", false, "Terraform: registry tokens"},
      {".terraformrc", false, "Terraform: credentials blocks (developer.hashicorp.com)"},
      {".vault-token", false, "Vault: token (developer.hashicorp.com/vault)"},
      {".password-store", true, "pass: encrypted passwords (passwordstore.org)"},
      {".local/share/keyrings", true, "GNOME Keyring: keyrings"},
      {".pki", true, "NSS database: client certificates and their keys (nono deny_credentials)"},
      {".credentials", true, "a common folder for credentials (nono deny_credentials)"},
      {".keys", true, "a common folder for keys (nono deny_credentials)"},
      {".secrets", true, "a common folder for secrets"},  // FILE-4
      {".config/op", true, "1Password CLI: account configuration (nono deny_keychains_linux)"},
      {".op", true, "1Password CLI's old folder (nono deny_keychains_linux)"},
      {".1password", true, "1Password: agent and data (nono deny_keychains_linux)"},
      {".cargo/credentials*", false, "Cargo: registry tokens (doc.rust-lang.org/cargo)"},
      {".gradle/gradle.properties", false, "Gradle: repository passwords, signing keys"},
      {".m2/settings.xml", false, "Maven: server passwords (maven.apache.org/settings.html)"},
      {".m2/settings-security.xml", false, "Maven: the master password"},
      {".pgpass", false,
       "libpq (psql, every PostgreSQL client): passwords (PostgreSQL docs, "
       "The Password File)"},
      {".my.cnf", false,
       "MySQL and MariaDB clients: password in [client] (MySQL docs, option "
       "files)"},
      {".mylogin.cnf", false,
       "mysql_config_editor: login paths, obfuscated not encrypted (MySQL docs)"},
      {".s3cfg", false, "s3cmd: access keys (s3tools.org)"},
      {".boto", false, "gsutil, boto: access keys (cloud.google.com/storage/docs/boto)"},
      {".databrickscfg", false, "Databricks CLI: tokens (docs.databricks.com)"},
      {".snowsql", true, "SnowSQL: password in config (docs.snowflake.com)"},
      {".config/rclone/rclone.conf", false, "rclone: remotes' credentials (rclone.org/docs)"},
      {".config/doctl", true, "DigitalOcean doctl: access token"},
      {".fly", true, "flyctl: access token in config.yml (fly.io/docs)"},
      {".config/.wrangler", true, "Cloudflare wrangler: OAuth token (developers.cloudflare.com)"},
      {".wrangler", true, "Cloudflare wrangler's old folder: OAuth token"},
      {".local/share/com.vercel.cli", true, "Vercel CLI: token in auth.json (vercel.com/docs)"},
      {".config/netlify", true, "Netlify CLI: token in config.json (docs.netlify.com)"},
      {".config/configstore", true,
       "configstore (firebase-tools and other npm CLIs): refresh tokens"},
      {".supabase", true, "Supabase CLI: access token (supabase.com/docs)"},
      {".pulumi/credentials.json", false, "Pulumi: access tokens (pulumi.com/docs)"},
      {".config/stripe", true, "Stripe CLI: API keys in config.toml (docs.stripe.com/stripe-cli)"},
      {".config/ngrok", true, "ngrok: authtoken in ngrok.yml (ngrok.com/docs)"},
      {".ngrok2", true, "ngrok's old folder: authtoken"},
      {".cache/huggingface/token", false, "Hugging Face hub: token (huggingface.co/docs)"},
      {".huggingface/token", false, "Hugging Face hub's old location: token"},
      {".kaggle/kaggle.json", false, "Kaggle API: key (github.com/Kaggle/kaggle-api)"},
      {".config/sops/age/keys.txt", false, "SOPS: age private keys (github.com/getsops/sops)"},
      {".env", false,
       "an environment file in the home folder (nono deny_shell_configs)"},  // FILE-4
      {".envrc", false, "direnv's file in the home folder: exported secrets (nono)"},
      // Browsers: cookies, saved passwords, sessions (nono deny_browser_data_linux).
      {".config/google-chrome", true, "Chrome: cookies, saved passwords"},
      {".config/chromium", true, "Chromium: cookies, saved passwords"},
      {".config/microsoft-edge", true, "Edge: cookies, saved passwords"},
      {".config/BraveSoftware", true, "Brave: cookies, saved passwords"},
      {".config/vivaldi", true, "Vivaldi: cookies, saved passwords"},
      {".config/opera", true, "Opera: cookies, saved passwords"},
      {".mozilla", true, "Firefox: cookies, saved passwords (nono: ~/.mozilla/firefox)"},
      {".thunderbird", true, "Thunderbird: mail and saved passwords"},
      // Agents' and editors' own credentials.
      {".claude", true, "Claude Code: OAuth credentials, transcripts"},
      {".claude.json", false, "Claude Code: account, MCP servers with their keys"},
      {".codex", true, "Codex: auth.json, transcripts"},
      {".gemini", true, "Gemini CLI: OAuth credentials"},
      {".local/share/opencode/auth.json", false,
       "opencode: provider API keys (opencode.ai/docs/providers)"},
      {".config/goose/secrets.yaml", false, "goose: API keys when no keyring"},
      {".continue", true, "Continue: config.json/config.yaml with API keys (docs.continue.dev)"},
      {".cursor/mcp.json", false, "Cursor: MCP servers with their keys (docs.cursor.com)"},
      {".codeium/windsurf/mcp_config.json", false,
       "Windsurf: MCP servers with their keys (docs.windsurf.com)"},
      // Histories: what was typed, passwords included.
      {".bash_history", false, "bash: history"},
      {".zsh_history", false, "zsh: history"},
      {".sh_history", false, "ksh, mksh: history"},
      {".history", false, "tcsh and others: history (nono deny_shell_history)"},
      {".local/share/fish/fish_history", false, "fish: history (fishshell.com/docs, history)"},
      {".python_history", false, "Python REPL: history"},
      {".psql_history", false, "psql: history"},
      {".mysql_history", false, "mysql: history (passwords typed in SQL)"},
      {".sqlite_history", false, "sqlite3: history"},
      {".rediscli_history", false, "redis-cli: history (AUTH passwords)"},
      {".dbshell", false, "mongo (old shell): history"},
      {".mongodb", true, "mongosh: history and config (mongodb.com/docs/mongodb-shell)"},
      {".node_repl_history", false, "Node.js REPL: history"},
      {".irb_history", false, "Ruby irb: history"},
      {".lesshst", false, "less: search history"},
      {".viminfo", false, "vim: command-line history and registers (yanked text)"},
      {".local/state/nvim/shada", true, "Neovim 0.8 on: history and registers (:help shada)"},
      {".local/share/nvim/shada", true, "Neovim before 0.8: history and registers"},
  };
  return rows;
}

const std::vector<std::string>& default_hidden_home_entries() {
  // FS-4. Trailing slashes are dropped: a folder entry hides whatever kind of path is there.
  static const std::vector<std::string> list = [] {
    std::vector<std::string> out;
    for (const auto& r : hidden_home_rows()) out.push_back(r.rel);
    return out;
  }();
  return list;
}

bool hidden_home_entry_is_folder(const std::string& rel) {
  for (const auto& r : hidden_home_rows())
    if (rel == r.rel) return r.folder;
  return false;
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
  for (const char* sub : {"logs", "sessions", "checkpoints", "audit"}) {  // FS-8, AUD-1
    std::string p = path_join(folders.data, sub);
    add(tilde_path(p, home), p, "cordon's own records");
  }
  // AUD-3: the key of cordon's CA for [credentials]. Its certificate, the CA bundle and the
  // placeholder files beside it hold nothing secret; the bundle is what commands trust.
  if (!folders.data.empty()) {
    const std::string ca_key = path_join(folders.data, "credentials/ca.key");
    add(tilde_path(ca_key, home), ca_key, "the key of cordon's CA ([credentials])");
  }
  // FS-13: the state folder holds other commands' leftover records (their command lines) and
  // session records; the cache holds every session's private /tmp. A command needs neither:
  // its own /tmp is bound at /tmp, and the placeholders hidden paths show are bind sources,
  // taken from the host before the mount namespace hides them.
  if (!folders.state.empty())
    add(tilde_path(folders.state, home), folders.state, "cordon's state folder");
  if (!folders.cache.empty())
    add(tilde_path(folders.cache, home), folders.cache, "cordon's cache folder");  // FS-13
  for (const auto& e : policy.hide) {
    std::string p = normalize_path(expand_home(e, home));
    add(e, p, "[sandbox] hide");
  }
  // AUD-3: a credential's file is never readable; under bubblewrap with the allowlist proxy a
  // placeholder file is bound over it afterwards.
  for (const auto& c : policy.credentials)
    if (!c.file.empty())
      add(c.file, normalize_path(expand_home(c.file, home)), "[credentials." + c.name + "] file");
  return out;
}

}  // namespace cordon
