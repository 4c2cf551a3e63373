#include "host/glob_expander.h"

#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>

#include "commands/sensitive_paths.h"
#include "core/paths.h"

namespace cordon {

namespace {

// Folder entries read, over the whole expansion, before giving up.
constexpr size_t kMaxEntries = 200000;

bool has_glob_char(const std::string& c) { return c.find_first_of("*?[") != std::string::npos; }

bool is_dir(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

struct Walk {
  size_t limit = 0;
  size_t entries = 0;
  Expander::Matches out;

  // Expands components[i..] below `dir`.
  void step(const std::string& dir, const std::vector<std::string>& comps, size_t i,
            bool dirs_only) {
    if (!out.complete) return;
    if (i == comps.size()) {
      if (dirs_only && !is_dir(dir)) return;
      if (out.paths.size() >= limit) {
        out.complete = false;
        return;
      }
      out.paths.push_back(dir);
      return;
    }
    const std::string& c = comps[i];
    if (!has_glob_char(c)) {
      std::string next = path_join(dir, c);
      struct stat st;
      if (lstat(next.c_str(), &st) != 0) return;  // no such path: no match
      step(next, comps, i + 1, dirs_only);
      return;
    }
    DIR* d = opendir(dir.c_str());
    if (!d) {
      // A folder that does not exist matches nothing; one that cannot be read is unknown.
      if (is_dir(dir)) out.complete = false;
      return;
    }
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      if (++entries > kMaxEntries) {
        out.complete = false;
        break;
      }
      std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      // Leading dots are matched too (dotglob may be on): a stricter answer, never a looser one.
      if (fnmatch(c.c_str(), n.c_str(), 0) == 0) names.push_back(n);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const auto& n : names) step(path_join(dir, n), comps, i + 1, dirs_only);
  }
};

}  // namespace

Expander::Matches HostExpander::glob(const std::string& pattern, size_t limit) const {
  Walk w;
  w.limit = limit;
  if (pattern.empty() || pattern[0] != '/') {
    w.out.complete = false;
    return w.out;
  }
  const bool dirs_only = pattern.size() > 1 && pattern.back() == '/';
  std::vector<std::string> comps;
  for (auto c : path_components(pattern)) comps.emplace_back(c);
  w.step("/", comps, 0, dirs_only);
  if (dirs_only)
    for (auto& p : w.out.paths) p += "/";
  return w.out;
}

const Expander* host_expander() {
  static const HostExpander e;
  return &e;
}

}  // namespace cordon
