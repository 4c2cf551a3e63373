// FS-4: configuration files in the home folder that commands need but that may hold a
// credential — a shell's startup files (`export GITHUB_TOKEN=…`), Cargo's config (a registry
// `token`), Yarn's `.yarnrc.yml` (`npmAuthToken`), pip's config (an index URL with a
// password). Hiding them would break builds and shells; commands see a copy without the lines
// that hold a credential instead (as FS-12 does for the global git config).
//
//   SanitizedText s = sanitize_config_text("export GH_TOKEN=ghp_…\nexport PATH=…\n",
//                                          ConfigFormat::kShell);
//   // s.text: "true  # cordon: …\nexport PATH=…\n"; s.removed: {"line 1 (…)"}
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cordon {

enum class ConfigFormat {
  kShell,  // sh, bash, zsh, fish startup files; fish_variables
  kIni,    // key = value (pip.conf, .yarnrc v1)
  kYaml,   // key: value (.yarnrc.yml)
  kToml,   // key = value, [tables] (Cargo's config.toml, uv.toml)
};

// One home-relative file seen as a copy without its credentials: the tool that reads it and
// where that is documented.
struct SanitizedHomeRow {
  const char* rel;
  ConfigFormat format;
  const char* holds;
};

// The rows, as data (tested row by row).
const std::vector<SanitizedHomeRow>& sanitized_home_rows();

struct SanitizedText {
  std::string text;
  // What was removed, never the secret: "line 3 (a token key: npmAuthToken)".
  std::vector<std::string> removed;
};

// The text with each line that holds a credential replaced by a comment (a no-op `true` in
// shell files, so an `if … fi` around it stays valid), and the user and password part of each
// URL removed (`https://u:p@host/` -> `https://host/`). A private key block goes whole. A line
// holds a credential when:
//   - it assigns a variable whose name is a credential's by ENV-1's rules (kShell),
//   - its key names a token or password (`_authToken`, `npmAuthToken`, `token`, `password`),
//   - its value has a credential's shape (ENV-1: ghp_…, sk-…, a JWT, a private key).
SanitizedText sanitize_config_text(std::string_view text, ConfigFormat format);

// Removes the user and password part of each URL in `text` (`https://u:p@host/` ->
// `https://host/`; an ssh URL keeps a user alone, a login name). True when it removed any.
bool strip_url_users(std::string& text);

// NET-3: the format of a project file that holds credentials but that commands need the rest
// of (`.npmrc`: registry and install settings; `.yarnrc.yml`; `.yarnrc`), matched in any case;
// false when such a file is hidden whole.
bool project_credential_format(std::string_view name, ConfigFormat* format);

}  // namespace cordon
