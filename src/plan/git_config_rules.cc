#include "plan/git_config_rules.h"

#include "core/strings.h"
#include "plan/config_copy_rules.h"
#include "plan/env_filter.h"
#include "plan/global_git_keys.h"

namespace cordon {

namespace {

// A URL's user part (`scheme://USER[:PASS]@host`), scp-like `user@host:` has none of interest.
bool url_has_secret_user(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return false;
  std::string_view rest = url.substr(scheme + 3);
  std::string_view authority = rest.substr(0, rest.find('/'));
  size_t at = authority.rfind('@');
  if (at == std::string_view::npos || at == 0) return false;
  std::string_view user = authority.substr(0, at);
  if (user.find(':') != std::string_view::npos) return true;  // a password
  // A user alone is a login name for ssh (git@github.com) but a token for http(s).
  std::string s = to_lower(std::string(url.substr(0, scheme)));
  return !(s == "ssh" || s == "git+ssh" || s == "ssh+git");
}

std::string quoted(std::string_view v, bool sub) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (!sub && c == '\n') {
      out += "\\n";
    } else if (!sub && c == '\t') {
      out += "\\t";
    } else if (!sub && c == '\b') {
      out += "\\b";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

GitKeyParts split_git_key(const std::string& key) {
  GitKeyParts k;
  size_t first = key.find('.'), last = key.rfind('.');
  if (first == std::string::npos) return {key, "", ""};
  k.section = key.substr(0, first);
  k.name = key.substr(last + 1);
  if (last > first) k.sub = key.substr(first + 1, last - first - 1);
  return k;
}

std::vector<GitConfigEntry> parse_git_config_list(std::string_view z) {
  std::vector<GitConfigEntry> out;
  size_t p = 0;
  while (p < z.size()) {
    size_t end = z.find('\0', p);
    if (end == std::string_view::npos) end = z.size();
    std::string_view kv = z.substr(p, end - p);
    p = end + 1;
    if (kv.empty()) continue;
    GitConfigEntry e;
    size_t nl = kv.find('\n');
    e.key = std::string(kv.substr(0, nl));
    e.has_value = nl != std::string_view::npos;
    if (e.has_value) e.value = std::string(kv.substr(nl + 1));
    out.push_back(std::move(e));
  }
  return out;
}

std::string git_config_credential(const GitConfigEntry& e) {
  GitKeyParts k = split_git_key(e.key);
  std::string section = to_lower(k.section), name = to_lower(k.name);
  if (section == "http" && name == "extraheader") return "an HTTP header (Authorization)";
  if (section == "url" && (url_has_secret_user(k.sub) || url_has_secret_user(e.value)))
    return "a URL with a user or token";
  if (section == "credential") {
    std::string l = to_lower(e.value);
    bool inline_helper = name == "helper" && starts_with(l, "!");
    if (inline_helper &&
        (l.find("password") != std::string::npos || l.find("token") != std::string::npos ||
         l.find("secret") != std::string::npos))
      return "a credential helper with a secret";
    if (url_has_secret_user(k.sub)) return "a URL with a user or token";
  }
  if (url_has_secret_user(k.sub)) return "a URL with a user or token";
  if (std::string what = value_credential(e.value); !what.empty()) return what;
  if (url_has_secret_user(e.value)) return "a URL with a user or token";
  return "";
}

std::string shown_git_config_key(const GitConfigEntry& e) {
  GitKeyParts k = split_git_key(e.key);
  if (k.name.empty()) return e.key;
  if (k.sub.empty()) return k.section + "." + k.name;
  bool secret = url_has_secret_user(k.sub) || !value_credential(k.sub).empty();
  return k.section + "." + (secret ? std::string("<…>") : k.sub) + "." + k.name;
}

SanitizedGitConfig sanitize_git_config(const std::vector<GitConfigEntry>& entries,
                                       std::string (*removal)(const GitConfigEntry&)) {
  SanitizedGitConfig s;
  s.text = "# cordon: your git config, only the keys known to hold no secret\n";  // FS-12
  std::string header;
  for (const auto& e : entries) {
    if (std::string why = removal ? removal(e) : global_git_key_removal(e); !why.empty()) {
      s.removed.push_back(shown_git_config_key(e) + " (" + why + ")");
      s.credential |= !git_config_credential(e).empty();
      continue;
    }
    GitKeyParts k = split_git_key(e.key);
    if (k.name.empty()) continue;  // not a key git could have printed
    std::string h = "[" + k.section + (k.sub.empty() ? "" : " " + quoted(k.sub, true)) + "]\n";
    if (h != header) s.text += header = h;
    s.text += "\t" + k.name + (e.has_value ? " = " + quoted(e.value, false) : "") + "\n";
  }
  return s;
}

SanitizedGitConfig strip_git_config_credentials(const std::vector<GitConfigEntry>& entries) {
  SanitizedGitConfig s;
  s.text = "# cordon: this repository's config without the users and tokens in its URLs\n";
  std::string header;
  for (const auto& original : entries) {
    GitConfigEntry e = original;
    GitKeyParts k = split_git_key(e.key);
    if (k.name.empty()) continue;
    bool changed = strip_url_users(k.sub);
    changed |= strip_url_users(e.value);
    std::string why;
    if (to_lower(k.section) == "http" && to_lower(k.name) == "extraheader")
      why = "an HTTP header (Authorization)";
    else if (std::string what = value_credential(e.value); !what.empty())
      why = what;
    if (!why.empty() || changed) {
      s.credential = true;
      s.removed.push_back(shown_git_config_key(original) +
                          (why.empty() ? " (the user and token of its URL)" : " (" + why + ")"));
      if (!why.empty()) continue;
    }
    std::string h = "[" + k.section + (k.sub.empty() ? "" : " " + quoted(k.sub, true)) + "]\n";
    if (h != header) s.text += header = h;
    s.text += "\t" + k.name + (e.has_value ? " = " + quoted(e.value, false) : "") + "\n";
  }
  return s;
}

bool project_git_config_may_hold_credentials(std::string_view text) {
  std::string l = to_lower(std::string(text));
  if (l.find("extraheader") != std::string::npos) return true;
  // A URL's user ends at '@', which git's syntax cannot escape or split across lines.
  if (l.find('@') != std::string::npos) return true;
  return !value_credential(text).empty();
}

}  // namespace cordon
