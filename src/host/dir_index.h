// GIT-8, PROT-6: the project's folders as last seen, to find what a command planted anywhere
// below the root without walking the project before and after each command (PERF-3).
//
// The index holds every folder of the project (not files) with its inode, its ctime and the
// watched names in it (planted_names()). It is built once per project by a walk of the folders
// and kept in cordon's cache folder. Around each command, each recorded folder is looked at
// with one fstatat from the root (its inode and ctime); only a folder that differs, is racy or
// holds a `.git` is opened (openat2, no link on the way) and listed again, and a new folder is
// walked. ctime changes with every entry added, removed or renamed in a folder, and
// with every utimes() on it, so a command cannot hide a change by putting the mtime back; a
// folder seen within the clock's granularity of its last change is listed again next time
// ("racy", as git does for its index).
//
// Cost per command: a stat per folder of the project (twice), plus the listing of what changed
// (about 1.3 ms for 1,100 folders here).
//   DirIndex idx = load_dir_index(beneath, cache_file);
//   DirRefresh r = refresh_dir_index(beneath, idx);   // r.changes: folders listed again
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "host/beneath.h"
#include "plan/planted_rules.h"

namespace cordon {

inline constexpr size_t kDirIndexCap = 200000;  // folders; past it the index is incomplete

struct DirIndex {
  std::vector<DirRecord> dirs;  // sorted by rel
  bool complete = true;         // false past kDirIndexCap folders
};

struct DirRefresh {
  DirIndex index;                  // the index as it is now
  std::vector<DirChange> changes;  // folders listed again (changed, racy or new)
  bool changed = false;            // the index differs from the one given
  // FS-10: folders that are there but cannot be listed (permission denied): what is below them
  // cannot be judged; the caller makes them read-only and says so.
  std::vector<std::string> unlistable;
};

// The cache file of a project's index.
std::string dir_index_file(const std::string& cache_dir, const std::string& project);

// Reads the index from `file`; builds it by a walk when the file is missing, damaged or for
// another folder (then `built` is set).
DirIndex load_dir_index(const Beneath& project, const std::string& file, bool* built = nullptr);

// GIT-8: the nested `.git` folders (project-relative, below the root) in the index saved in
// `file` for `project`, without walking anything; none when there is no such file.
std::vector<std::string> indexed_nested_git(const std::string& file, const std::string& project);

// Looks at every recorded folder again; lists the changed ones and walks the new ones.
DirRefresh refresh_dir_index(const Beneath& project, const DirIndex& index);

// Writes the index atomically (0600).
Status save_dir_index(const std::string& file, const std::string& project, const DirIndex& index);

}  // namespace cordon
