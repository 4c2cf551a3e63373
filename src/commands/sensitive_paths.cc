#include "commands/sensitive_paths.h"

#include <algorithm>

#include "core/paths.h"
#include "core/strings.h"
#include "plan/hidden_list.h"

namespace cordon {

namespace {

// Hidden-list entries that are folders (the rest are files); only the bucket shown changes.
bool hidden_entry_is_dir(const std::string& e) { return hidden_home_entry_is_folder(e); }

// sh pathname expansion of one component: `*`, `?` and `[...]` never match a leading dot.
bool glob_component_could_match(std::string_view pattern, std::string_view name) {
  if (!name.empty() && name[0] == '.' && (pattern.empty() || pattern[0] != '.')) return false;
  if (pattern.find('[') != std::string_view::npos) return true;  // classes: assume it could
  return glob_match(pattern, name);
}

// Either side may be a glob (the entry from config, the pattern from the command line).
bool components_could_match(std::string_view pattern, std::string_view entry) {
  bool pg = has_glob_chars(pattern), eg = has_glob_chars(entry);
  if (!pg && !eg) return pattern == entry;
  if (pg && !eg) return glob_component_could_match(pattern, entry);
  if (!pg && eg) return glob_match(entry, pattern);
  return true;
}

std::string_view literal_head(std::string_view glob) {
  size_t k = glob.find_first_of("*?[");
  return k == std::string_view::npos ? glob : glob.substr(0, k);
}
std::string_view literal_tail(std::string_view glob) {
  size_t k = glob.find_last_of("*?[]");
  return k == std::string_view::npos ? glob : glob.substr(k + 1);
}

}  // namespace

const SensitivePaths& default_sensitive_paths() {
  static const SensitivePaths paths = [] {
    SensitivePaths p;
    for (const auto& e : default_hidden_home_entries())
      (hidden_entry_is_dir(e) ? p.dirs : p.files).push_back("~/" + e);
    // The same credential folders wherever they are (another user's home, a copy in /tmp).
    for (const char* d : {".git", ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker",
                          ".password-store", ".secrets", ".claude", ".codex", ".gemini"})
      p.dirs.push_back(d);
    // System secrets, for commands run outside the sandbox.
    for (const char* d : {"/etc/ssl/private", "/etc/sudoers.d", "/run/secrets", "/var/run/secrets"})
      p.dirs.push_back(d);
    for (const char* f : {"/etc/shadow", "/etc/gshadow", "/etc/sudoers"}) p.files.push_back(f);
    for (const char* f : {".bashrc",      ".bash_profile", ".bash_login",
                          ".bash_logout", ".profile",      ".zshrc",
                          ".zshenv",      ".zprofile",     ".zlogin",
                          ".zlogout",     ".cshrc",        ".tcshrc",
                          ".kshrc",       ".mkshrc",       ".envrc",
                          ".mcp.json",    ".netrc",        ".git-credentials",
                          ".npmrc",       ".pypirc",       ".pgpass",
                          ".env",         "id_rsa",        "id_dsa",
                          "id_ecdsa",     "id_ed25519",    "~/.config/fish/config.fish"})
      p.files.push_back(f);
    p.prefixes = {".env."};
    p.extensions = {".pem", ".key", ".p12", ".pfx"};
    return p;
  }();
  return paths;
}

std::vector<std::string_view> path_components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view c = path.substr(i, j - i);
    if (!c.empty() && c != ".") out.push_back(c);
    i = j + 1;
  }
  return out;
}

bool has_glob_chars(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

SensitiveMatcher::SensitiveMatcher(const SensitivePaths& paths, const std::string& home) {
  auto add = [&](const std::string& raw, bool file) {
    std::string e = raw;
    while (e.size() > 1 && e.back() == '/') e.pop_back();
    if (e.empty()) return;
    Entry entry;
    entry.file = file;
    entry.display = raw + (file ? " (files)" : " (dirs)");
    if (e == "~" || starts_with(e, "~/")) {
      entry.anchored = true;
      e = normalize_path(expand_home(e, home));
    } else if (e[0] == '/') {
      entry.anchored = true;
      e = normalize_path(e);
    }
    for (auto c : path_components(e)) {
      if (c == "..") continue;
      entry.comps.emplace_back(c);
      entry.literal.push_back(c.find_first_of("*?") == std::string_view::npos);
    }
    if (entry.comps.empty() && !entry.anchored) return;
    if (entry.anchored) {
      std::string head;
      for (size_t i = 0; i < entry.comps.size() && entry.literal[i]; ++i) {
        head.push_back('/');
        head.append(entry.comps[i]);
      }
      entry.head = head.empty() ? std::string(1, '/') : std::move(head);
    }
    if (!entry.anchored && entry.comps.size() == 1 && entry.literal[0]) {
      auto& names = file ? file_names_ : dir_names_;
      names.emplace(entry.comps[0], entry.display);
      // Still kept below, for could_match and match_names with globs.
    }
    entries_.push_back(std::move(entry));
  };
  for (const auto& d : paths.dirs) add(d, false);
  for (const auto& f : paths.files) add(f, true);
  for (const auto& p : paths.prefixes)
    if (!p.empty()) prefixes_.push_back(p);
  for (const auto& x : paths.extensions)
    if (!x.empty()) extensions_.push_back(x[0] == '.' ? x : "." + x);
}

bool SensitiveMatcher::component_matches(const Entry& e, size_t i, std::string_view comp) const {
  return e.literal[i] ? e.comps[i] == comp : glob_match(e.comps[i], comp);
}

std::string SensitiveMatcher::match(std::string_view abs) const {
  auto comps = path_components(abs);
  // Paths first (the most precise answer), then bare literal names, one lookup per component.
  for (const auto& e : entries_) {
    if (!e.anchored || comps.size() < e.comps.size()) continue;
    if (!path_within(abs, e.head)) continue;  // one comparison rules most entries out
    bool ok = true;
    for (size_t i = 0; i < e.comps.size() && ok; ++i) ok = component_matches(e, i, comps[i]);
    if (ok) return e.display;
  }
  for (auto c : comps) {
    auto it = dir_names_.find(std::string(c));
    if (it != dir_names_.end()) return it->second;
  }
  if (!comps.empty()) {
    auto it = file_names_.find(std::string(comps.back()));
    if (it != file_names_.end()) return it->second;
  }
  for (const auto& e : entries_) {
    const size_t m = e.comps.size();
    if (e.anchored || (m == 1 && e.literal[0])) {
      continue;  // checked above
    } else if (e.file && m == 1) {
      if (!comps.empty() && component_matches(e, 0, comps.back())) return e.display;
    } else {
      for (size_t k = 0; k + m <= comps.size(); ++k) {
        bool ok = true;
        for (size_t i = 0; i < m && ok; ++i) ok = component_matches(e, i, comps[k + i]);
        if (ok) return e.display;
      }
    }
  }
  if (comps.empty()) return "";
  std::string_view last = comps.back();
  for (const auto& p : prefixes_)
    if (starts_with(last, p)) return p + " (prefixes)";
  for (const auto& x : extensions_)
    if (ends_with(last, x)) return x + " (extensions)";
  return "";
}

std::string SensitiveMatcher::match_names(std::string_view written) const {
  std::vector<std::string_view> comps;
  for (auto c : path_components(written))
    if (c != "..") comps.push_back(c);
  for (const auto& e : entries_) {
    if (e.anchored) continue;
    const size_t m = e.comps.size();
    if (e.file && m == 1) {
      if (!comps.empty() && glob_match(e.comps[0], comps.back())) return e.display;
      continue;
    }
    for (size_t k = 0; k + m <= comps.size(); ++k) {
      bool ok = true;
      for (size_t i = 0; i < m && ok; ++i) ok = glob_match(e.comps[i], comps[k + i]);
      if (ok) return e.display;
    }
  }
  return "";
}

std::string SensitiveMatcher::reaches(std::string_view abs) const {
  auto comps = path_components(abs);
  for (const auto& e : entries_) {
    if (!e.anchored || comps.size() >= e.comps.size()) continue;
    if (!path_within(abs, e.head) && !path_within(e.head, abs)) continue;
    bool ok = true;
    for (size_t i = 0; i < comps.size() && ok; ++i) ok = component_matches(e, i, comps[i]);
    if (ok) return e.display;
  }
  return "";
}

std::string SensitiveMatcher::could_match(std::string_view pattern) const {
  auto comps = path_components(pattern);
  for (const auto& e : entries_) {
    const size_t m = e.comps.size();
    if (e.anchored) {
      // The pattern names the entry, lies below it, or is a folder above it.
      size_t n = std::min(m, comps.size());
      bool ok = true;
      for (size_t i = 0; i < n && ok; ++i) ok = components_could_match(comps[i], e.comps[i]);
      if (ok) return e.display;
    } else if (e.file && m == 1) {
      if (!comps.empty() && components_could_match(comps.back(), e.comps[0])) return e.display;
    } else {
      for (size_t k = 0; k + m <= comps.size(); ++k) {
        bool ok = true;
        for (size_t i = 0; i < m && ok; ++i) ok = components_could_match(comps[k + i], e.comps[i]);
        if (ok) return e.display;
      }
    }
  }
  if (comps.empty()) return "";
  std::string_view last = comps.back();
  bool glob = has_glob_chars(last);
  for (const auto& p : prefixes_) {
    if (!glob) {
      if (starts_with(last, p)) return p + " (prefixes)";
      continue;
    }
    if (p[0] == '.' && last[0] != '.') continue;
    std::string_view head = literal_head(last);
    if (starts_with(head, p) || starts_with(p, head)) return p + " (prefixes)";
  }
  for (const auto& x : extensions_) {
    if (!glob) {
      if (ends_with(last, x)) return x + " (extensions)";
      continue;
    }
    std::string_view tail = literal_tail(last);
    if (ends_with(tail, x) || ends_with(x, tail)) return x + " (extensions)";
  }
  return "";
}

DeniedPaths::DeniedPaths(const std::vector<std::string>& entries, const std::string& home) {
  for (const auto& e : entries) {
    if (e.empty()) continue;
    std::string p = normalize_path(expand_home(e, home));
    // The config loader refuses "/" and relative entries; refuse them here too, whatever the
    // caller passed, rather than deny everything or guess a base.
    if (p.empty() || p[0] != '/' || p == "/") continue;
    paths_.push_back(p);
  }
}

std::string DeniedPaths::within(std::string_view abs) const {
  for (const auto& p : paths_)
    if (path_within(abs, p)) return p;
  return "";
}

std::string DeniedPaths::reaches(std::string_view abs) const {
  for (const auto& p : paths_)
    if (p != abs && path_within(p, abs)) return p;
  return "";
}

std::string DeniedPaths::could_name(std::string_view pattern) const {
  auto comps = path_components(pattern);
  for (const auto& p : paths_) {
    auto e = path_components(p);
    if (comps.size() < e.size()) continue;
    bool ok = true;
    for (size_t i = 0; i < e.size() && ok; ++i) ok = components_could_match(comps[i], e[i]);
    if (ok) return p;
  }
  return "";
}

std::string DeniedPaths::could_reach(std::string_view pattern) const {
  auto comps = path_components(pattern);
  for (const auto& p : paths_) {
    auto e = path_components(p);
    if (comps.size() >= e.size()) continue;
    bool ok = true;
    for (size_t i = 0; i < comps.size() && ok; ++i) ok = components_could_match(comps[i], e[i]);
    if (ok) return p;
  }
  return "";
}

std::string DeniedPaths::mentioned_in(std::string_view text) const {
  for (const auto& p : paths_) {
    size_t at = 0;
    while ((at = text.find(p, at)) != std::string_view::npos) {
      size_t end = at + p.size();
      if (end == text.size() || text[end] == '/' || text[end] == '}' || text[end] == '"' ||
          text[end] == ' ')
        return p;
      ++at;
    }
  }
  return "";
}

}  // namespace cordon
