#include "host/protected_facts.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "core/paths.h"
#include "core/strings.h"
#include "host/path_info.h"

namespace cordon {

namespace {

// A folder a command holding no capabilities could not list or search (FS-10). Root reads it
// anyway, so the permission bits decide, not whether opendir works for us.
bool unreadable_dir(const std::string& abs) {
  PathInfo info = read_path_info(abs);
  if (info.real_kind != Kind::kDir) return false;
  return !searchable_without_caps(info, geteuid(), getegid());
}

// Lists a folder's entries recursively (links not followed), stopping past `cap`.
void walk(const std::string& abs, const std::string& rel, size_t cap, ProtectedFact& f) {
  if (unreadable_dir(abs)) {
    f.unreadable = true;
    f.unreadable_dirs.push_back(rel);
    return;
  }
  DIR* d = opendir(abs.c_str());
  if (!d) {
    f.unreadable = true;
    f.unreadable_dirs.push_back(rel);
    return;
  }
  std::vector<std::pair<std::string, unsigned char>> entries;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    entries.push_back({n, e->d_type});
  }
  closedir(d);
  std::sort(entries.begin(), entries.end());
  for (const auto& [name, type_hint] : entries) {
    if (f.entry_count > cap) return;
    std::string child_abs = path_join(abs, name), child_rel = rel + "/" + name;
    struct stat st;
    Kind k = Kind::kOther;
    if (lstat(child_abs.c_str(), &st) == 0)
      k = S_ISREG(st.st_mode)   ? Kind::kFile
          : S_ISDIR(st.st_mode) ? Kind::kDir
          : S_ISLNK(st.st_mode) ? Kind::kSymlink
                                : Kind::kOther;
    (void)type_hint;
    ++f.entry_count;
    ChildFact c{child_rel, k, ""};
    if (k == Kind::kSymlink) c.link_target = read_path_info(child_abs).link_target;
    f.children.push_back(std::move(c));
    if (k == Kind::kDir) walk(child_abs, child_rel, cap, f);
  }
}

}  // namespace

std::vector<ProtectedFact> read_protected_facts(const std::vector<ProtectEntry>& entries,
                                                const std::string& project,
                                                const GitFacts& git) {
  std::vector<ProtectedFact> out;
  for (const auto& e : entries) {
    if (e.anywhere) continue;  // `**/` entries are for the file tools only (PROT-1)
    ProtectedFact f;
    f.rel = e.rel;
    f.folder = e.folder;
    f.why = e.why;
    f.info = read_path_info(path_join(project, e.rel));
    // A parent folder the command made unsearchable hides the entry (FS-10).
    std::string parent = path_parent(e.rel);
    while (parent != "." && !parent.empty()) {
      if (unreadable_dir(path_join(project, parent))) {
        f.unreadable = true;
        f.unreadable_dirs.push_back(parent);
      }
      parent = path_parent(parent);
    }
    if (f.info.kind == Kind::kDir) walk(f.info.path, e.rel, kProtectedFolderCap, f);
    for (const auto& t : git.tracked)
      if (t == e.rel || starts_with(t, e.rel + "/")) f.tracked.push_back(t);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace cordon
