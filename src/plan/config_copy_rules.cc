#include "plan/config_copy_rules.h"

#include <fmt/format.h>

#include <cctype>

#include "core/strings.h"
#include "plan/env_filter.h"

namespace cordon {

const std::vector<SanitizedHomeRow>& sanitized_home_rows() {
  using F = ConfigFormat;
  static const std::vector<SanitizedHomeRow> rows = {
      // Shell startup files: where users export their tokens (nono hides them whole; cordon
      // keeps the rest, which login shells inside the sandbox need: PATH, version managers).
      {".profile", F::kShell, "sh, dash, bash login shells (bash(1), INVOCATION)"},
      {".bash_profile", F::kShell, "bash login shells (bash(1), INVOCATION)"},
      {".bash_login", F::kShell, "bash login shells (bash(1), INVOCATION)"},
      {".bashrc", F::kShell, "bash interactive shells (bash(1), INVOCATION)"},
      {".bash_logout", F::kShell, "bash at logout (bash(1), INVOCATION)"},
      {".zshenv", F::kShell, "every zsh (zsh(1), STARTUP/SHUTDOWN FILES)"},
      {".zprofile", F::kShell, "zsh login shells (zsh(1), STARTUP/SHUTDOWN FILES)"},
      {".zshrc", F::kShell, "zsh interactive shells (zsh(1), STARTUP/SHUTDOWN FILES)"},
      {".zlogin", F::kShell, "zsh login shells (zsh(1), STARTUP/SHUTDOWN FILES)"},
      {".zlogout", F::kShell, "zsh at logout (zsh(1), STARTUP/SHUTDOWN FILES)"},
      {".kshrc", F::kShell, "ksh interactive shells (ksh(1), ENV)"},
      {".mkshrc", F::kShell, "mksh interactive shells (mksh(1), FILES)"},
      {".cshrc", F::kShell, "csh, tcsh (tcsh(1), Startup and shutdown; setenv NAME value)"},
      {".tcshrc", F::kShell, "tcsh (tcsh(1), Startup and shutdown; setenv NAME value)"},
      {".config/fish/config.fish", F::kShell,
       "fish (fishshell.com/docs, Configuration files; set -gx NAME value)"},
      {".config/fish/fish_variables", F::kShell,
       "fish universal variables, `set -Ux` (fishshell.com/docs, Universal variables)"},
      // Package managers' configs: settings builds need, and sometimes a token.
      {".cargo/config.toml", F::kToml,
       "Cargo: build settings, and `registry.token` / `registries.<name>.token` "
       "(doc.rust-lang.org/cargo/reference/config.html)"},
      {".cargo/config", F::kToml, "Cargo's old name for config.toml (same keys)"},
      {".config/uv/uv.toml", F::kToml,
       "uv: index URLs, which may carry a user and password (docs.astral.sh/uv, "
       "Configuration files)"},
      {".yarnrc.yml", F::kYaml,
       "Yarn 2 and on: settings, and `npmAuthToken` / `npmAuthIdent` "
       "(yarnpkg.com/configuration/yarnrc)"},
      {".yarnrc", F::kIni,
       "Yarn 1: settings, and `//registry/:_authToken` lines "
       "(classic.yarnpkg.com/en/docs/yarnrc)"},
      {".config/pip/pip.conf", F::kIni,
       "pip: index-url / extra-index-url, which may carry a user and password "
       "(pip.pypa.io, Configuration)"},
      {".pip/pip.conf", F::kIni, "pip's old location of pip.conf (pip.pypa.io, Configuration)"},
  };
  return rows;
}

namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view ltrim(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::string unquote(std::string s) {
  s = trim(s);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    s = s.substr(1, s.size() - 2);
  return s;
}

// The next word of a shell line (up to a blank), and the rest after it.
std::string_view take_word(std::string_view& s) {
  s = ltrim(s);
  size_t end = 0;
  while (end < s.size() && s[end] != ' ' && s[end] != '\t') ++end;
  std::string_view w = s.substr(0, end);
  s = ltrim(s.substr(end));
  return w;
}

// The variable a shell line gives a value to, or "": `export NAME=…`, `NAME=…`,
// `declare -x NAME=…`, `setenv NAME …` (csh), `set -gx NAME …` (fish),
// `SETUVAR --export NAME:…` (fish_variables).
std::string shell_assigned_name(std::string_view line) {
  std::string_view s = ltrim(line);
  bool spaced = false;   // the value follows a blank (setenv, set), not '='
  bool keyword = false;  // a keyword came before: its options are skipped
  for (int guard = 0; guard < 8; ++guard) {
    std::string_view rest = s;
    std::string_view w = take_word(rest);
    if (w == "export" || w == "declare" || w == "typeset" || w == "readonly" || w == "local") {
      s = rest;
      keyword = true;
    } else if (w == "setenv" || w == "set" || w == "SETUVAR") {
      s = rest;
      keyword = spaced = true;
    } else if (keyword && !w.empty() && w[0] == '-') {
      s = rest;
    } else {
      break;
    }
  }
  size_t n = 0;
  if (s.empty() || !is_name_start(s[0])) return "";
  while (n < s.size() && is_name_char(s[n])) ++n;
  if (n == s.size()) return "";  // no value given
  char next = s[n];
  if (next == '=' || (spaced && (next == ' ' || next == '\t' || next == ':')))
    return std::string(s.substr(0, n));
  return "";
}

// The key of a config line, "" for a comment, a table header or a line without one.
std::string config_key(std::string_view line, ConfigFormat f) {
  std::string_view s = ltrim(line);
  if (s.empty() || s[0] == '#' || s[0] == ';' || s[0] == '[') return "";
  std::string key;
  if (f == ConfigFormat::kYaml) {
    if (s.substr(0, 2) == "- ") s = ltrim(s.substr(2));
    size_t colon = s.find(':');
    while (colon != std::string_view::npos && colon + 1 < s.size() && s[colon + 1] != ' ' &&
           s[colon + 1] != '\t')
      colon = s.find(':', colon + 1);
    if (colon == std::string_view::npos) return "";
    key = unquote(std::string(s.substr(0, colon)));
  } else {
    size_t eq = s.find('=');
    if (eq == std::string_view::npos && f == ConfigFormat::kIni) {
      // Yarn 1's "key value" lines.
      std::string_view rest = s;
      key = unquote(std::string(take_word(rest)));
    } else if (eq == std::string_view::npos) {
      return "";
    } else {
      key = unquote(std::string(s.substr(0, eq)));
    }
  }
  // The name proper: after npm's `//host/:` prefix, after a TOML dotted path.
  size_t cut = key.find_last_of(f == ConfigFormat::kToml ? ".:" : ":");
  if (cut != std::string::npos) key = key.substr(cut + 1);
  return unquote(key);
}

bool key_names_secret(const std::string& key) {
  if (key.empty()) return false;
  std::string upper = to_upper(key);
  for (char& c : upper)
    if (c == '-') c = '_';
  if (upper == "NPMAUTHIDENT") return true;  // Yarn: "user:password" in base64
  return name_is_credential(upper, {}) && !name_is_certificate_path(upper);
}

// An inline TOML table that sets a token (`x = { index = "…", token = "…" }`).
bool toml_inline_secret(std::string_view line) {
  std::string l = to_lower(std::string(line));
  for (const char* word : {"token", "password"}) {
    for (size_t p = l.find(word); p != std::string::npos; p = l.find(word, p + 1)) {
      size_t end = p + std::string_view(word).size();
      if (p > 0 && (is_name_char(l[p - 1]) || l[p - 1] == '-')) continue;
      std::string_view after = ltrim(std::string_view(l).substr(end));
      if (!after.empty() && after[0] == '=') return true;
    }
  }
  return false;
}

bool begins_private_key(std::string_view line) {
  size_t b = line.find("-----BEGIN ");
  return b != std::string_view::npos && line.find("PRIVATE KEY", b) != std::string_view::npos;
}

}  // namespace

bool project_credential_format(std::string_view name, ConfigFormat* format) {
  std::string l = to_lower(name);
  ConfigFormat f;
  if (l == ".npmrc" || l == ".yarnrc")
    f = ConfigFormat::kIni;
  else if (l == ".yarnrc.yml")
    f = ConfigFormat::kYaml;
  else
    return false;
  if (format) *format = f;
  return true;
}

bool strip_url_users(std::string& line) {
  bool changed = false;
  size_t pos = 0;
  while ((pos = line.find("://", pos)) != std::string::npos) {
    size_t scheme = pos;
    while (scheme > 0 &&
           (std::isalnum(static_cast<unsigned char>(line[scheme - 1])) || line[scheme - 1] == '+' ||
            line[scheme - 1] == '-' || line[scheme - 1] == '.'))
      --scheme;
    std::string name = to_lower(line.substr(scheme, pos - scheme));
    size_t start = pos + 3;
    size_t end = line.find_first_of("/ \t\"'`,;)]}>", start);
    if (end == std::string::npos) end = line.size();
    size_t at = line.rfind('@', end == 0 ? 0 : end - 1);
    bool ssh = name == "ssh" || name == "git+ssh" || name == "ssh+git";
    if (at != std::string::npos && at >= start && at < end) {
      bool has_password = line.substr(start, at - start).find(':') != std::string::npos;
      if (!ssh || has_password) {
        line.erase(start, at + 1 - start);
        changed = true;
      }
    }
    pos = start;
  }
  return changed;
}

SanitizedText sanitize_config_text(std::string_view text, ConfigFormat f) {
  SanitizedText out;
  const std::string blank = f == ConfigFormat::kShell
                                ? "true  # cordon: a line with a credential was removed"  // FS-4
                                : "# cordon: a line with a credential was removed";
  std::vector<std::string> lines = split(std::string(text), '\n');
  bool in_key = false;  // inside a private key block
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string& line = lines[i];
    std::string why;
    if (in_key) {
      why = "a private key";
      if (line.find("-----END") != std::string::npos) in_key = false;
    } else if (begins_private_key(line)) {
      why = "a private key";
      size_t end = line.find("-----END");
      in_key = end == std::string::npos || end < line.find("-----BEGIN ");
    }
    if (why.empty() && strip_url_users(line))
      out.removed.push_back(fmt::format("line {} (a URL's user and password)", i + 1));
    if (why.empty() && f == ConfigFormat::kShell) {
      std::string name = shell_assigned_name(line);
      if (!name.empty() && key_names_secret(name)) why = "a credential's name: " + name;
    } else if (why.empty()) {
      std::string key = config_key(line, f);
      if (key_names_secret(key))
        why = "a token or password key: " + key;
      else if (f == ConfigFormat::kToml && toml_inline_secret(line))
        why = "a token or password key";
    }
    if (why.empty()) why = value_credential(line);
    if (why.empty()) continue;
    out.removed.push_back(fmt::format("line {} ({})", i + 1, why));
    // The indentation stays (YAML reads it); the line's text goes.
    size_t indent = line.size() - ltrim(line).size();
    line = line.substr(0, f == ConfigFormat::kYaml ? indent : 0) + blank;
  }
  out.text = join(lines, "\n");
  return out;
}

}  // namespace cordon
