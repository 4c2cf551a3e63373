// Sensitive and denied paths for the command policy (CMD-3, CMD-5). Pure and lexical: the caller
// resolves symlinks and passes both forms.
//
// The four buckets of `[commands] sensitive`:
//   dirs        a folder: a bare name (".git", ".ssh") matches that name at any depth, a path
//               ("~/.config/gcloud", "/etc/ssl/private", "config/secrets") matches the folder and
//               everything below it (a relative path matches at any depth)
//   files       a file: a bare name (".bashrc", ".mcp.json", "id_rsa") matches the last component
//               of a path, a path ("~/.gem/credentials") that file (and anything below it)
//   prefixes    the start of a file name (".env." matches ".env.local")
//   extensions  the end of a file name (".pem" or "pem" matches "server.pem")
// Names may hold `*` and `?`.
//
//   SensitiveMatcher m(default_sensitive_paths(), "/home/u");
//   m.match("/home/u/.ssh/id_rsa");   // "~/.ssh (dirs)"
//   m.reaches("/home/u");             // "~/.ssh (dirs)": a folder holding a sensitive path
//   m.could_match("/home/u/proj/*");  // "id_rsa (files)": the glob could name one
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/policy.h"

namespace cordon {

// CMD-5 defaults: the hidden list of FS-4 under `~/`, credential folders by name anywhere, shell
// rc files, `.git`, `.mcp.json`, `.env`, private keys by name and by extension.
const SensitivePaths& default_sensitive_paths();

// Splits a path into its components, skipping empty ones and ".".
std::vector<std::string_view> path_components(std::string_view path);
// True when the text holds `*`, `?` or `[`.
bool has_glob_chars(std::string_view s);

class SensitiveMatcher {
 public:
  SensitiveMatcher(const SensitivePaths& paths, const std::string& home);

  // Each returns the entry matched ("~/.ssh (dirs)") or "" when none matches.
  // `abs` is absolute and normalized.
  std::string match(std::string_view abs) const;
  // `abs` is a folder that holds a sensitive path given as a path (reading it recursively would
  // reach it). Bare names are not considered: any folder may hold a `.git`.
  std::string reaches(std::string_view abs) const;
  // `pattern` is absolute, normalized, with shell globs: could its expansion name or hold a
  // sensitive path? Follows sh: `*` and `?` never match a leading dot.
  std::string could_match(std::string_view pattern) const;
  // The bare-name checks alone, on the components of a path as written ("../.ssh/x").
  std::string match_names(std::string_view written) const;

 private:
  struct Entry {
    std::vector<std::string> comps;
    std::vector<bool> literal;  // per component: no `*` or `?`, compare with ==
    std::string head;           // anchored: the literal folders before any glob ("/home/u")
    bool anchored = false;      // an absolute path (after `~` expansion)
    bool file = false;          // from the `files` bucket
    std::string display;
  };
  bool component_matches(const Entry& e, size_t i, std::string_view comp) const;
  std::vector<Entry> entries_;
  // Bare literal names, the common case, looked up directly: name -> display.
  std::unordered_map<std::string, std::string> dir_names_, file_names_;
  std::vector<std::string> prefixes_, extensions_;
};

// `[commands] denied_paths`, expanded and normalized.
class DeniedPaths {
 public:
  DeniedPaths(const std::vector<std::string>& entries, const std::string& home);
  // The entry `abs` lies within, or "".
  std::string within(std::string_view abs) const;
  // The entry that lies below the folder `abs`, or "".
  std::string reaches(std::string_view abs) const;
  // For a glob pattern: the entry its expansion could name (or lie below), and separately one
  // it could only reach.
  std::string could_name(std::string_view pattern) const;
  std::string could_reach(std::string_view pattern) const;
  // An entry named somewhere inside a word that expands at run time ("${X:-/srv/secret}").
  std::string mentioned_in(std::string_view text) const;
  bool empty() const { return paths_.empty(); }

 private:
  std::vector<std::string> paths_;
};

}  // namespace cordon
