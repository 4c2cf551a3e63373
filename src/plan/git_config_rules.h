// FS-12: the global git config as commands see it, with its credentials removed.
//
// A user's ~/.gitconfig often carries a token: `http.extraHeader = Authorization: Bearer …`,
// `url."https://x-access-token:…@github.com/".insteadOf`, a `credential.helper` that echoes a
// password. Commands get a copy that keeps only the keys known to hold no secret (SEC-1,
// plan/global_git_keys.h: user.*, most of core.*, alias.*, includes, ...), so `git commit`
// keeps the user's identity and nothing else reaches them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// One entry of `git config --file F --list -z`: the key as git prints it (section and name
// lower-case, the subsection as written), the value; `has_value` is false for a bare key
// (`[core] bare` means true).
struct GitConfigEntry {
  std::string key;
  std::string value;
  bool has_value = true;
};

// Parses `git config --list -z` output ("key\nvalue\0" or "key\0" per entry).
std::vector<GitConfigEntry> parse_git_config_list(std::string_view z);

// A key's parts as git writes them: `section.sub.name`; section and name never hold a dot, the
// subsection (between them) may. Not lower-cased.
struct GitKeyParts {
  std::string section, sub, name;
};
GitKeyParts split_git_key(const std::string& key);

// Why the entry carries a credential (FS-12), or "" when it is kept:
//   http.extraheader / http.<url>.extraheader           -> "an HTTP header (Authorization)"
//   url.https://tok@github.com/.insteadof               -> "a URL with a user or token"
//   credential.helper = !f() { echo password=…; }; f    -> "a credential helper with a secret"
//   any value shaped like a well-known token (ghp_…)    -> "a GitHub personal token"
std::string git_config_credential(const GitConfigEntry& e);

// The key as cordon names it in `cordon policy`: a subsection that holds a credential (the
// URL of `url.<…>.insteadOf`) is shown as `<…>`, so that naming the key never prints the token.
std::string shown_git_config_key(const GitConfigEntry& e);

struct SanitizedGitConfig {
  std::string text;                  // the copy, in git's config syntax
  std::vector<std::string> removed;  // "http.extraheader (an HTTP header (Authorization))"
  bool credential = false;           // a removed key was a known credential
};

// The entries kept by `keep` (the reason a key goes, "" to keep it), written back in git's
// syntax (comments and layout are not kept; what git reads is). By default FS-12's allowlist
// (global_git_key_removal).
SanitizedGitConfig sanitize_git_config(const std::vector<GitConfigEntry>& entries,
                                       std::string (*removal)(const GitConfigEntry&) = nullptr);

// NET-3, FS-12: the project's own `.git/config` as commands see it when a URL in it carries a
// user and token (`remote.origin.url = https://x-access-token:ghp_…@github.com/o/r`): every key
// kept, each URL without its user and password (in values and in subsections such as
// `url.<base>.insteadOf`), and only what is a credential whatever its place removed (an HTTP
// header, a value shaped like a token). `removed` names each key changed or removed.
SanitizedGitConfig strip_git_config_credentials(const std::vector<GitConfigEntry>& entries);

// A quick look at the project's config text: false when no URL in it can hold a user and
// nothing else in it looks like a credential, so that git need not read it.
bool project_git_config_may_hold_credentials(std::string_view text);

}  // namespace cordon
