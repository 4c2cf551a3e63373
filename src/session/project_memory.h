// What cordon remembers about a project between commands, in files of its own folders: the
// protected paths aftercare could not move aside (PROT-7: sandboxed commands are refused until
// they are gone), and the stripped variable names already said (ENV-4 "on first use").
#pragma once

#include <string>
#include <vector>

#include "config/folders.h"

namespace cordon {

// PROT-7: the paths of `project` that could not be moved aside and are still there.
std::vector<std::string> pending_quarantine(const Folders& folders, const std::string& project);

// Adds `failed` to the paths pending_quarantine lists (dropping those that are gone). Two
// callers must not rewrite the file at once: the caller keeps them apart.
void remember_failed_moves(const Folders& folders, const std::string& project,
                           const std::vector<std::string>& failed);

// ENV-4: true when `names` holds a name not said before in `project` (and remembers them all
// in `cache_dir`), so the list of stripped names is said once, and again only when it grows.
bool stripped_names_changed(const std::string& cache_dir, const std::string& project,
                            const std::vector<std::string>& names);

}  // namespace cordon
