// Reading one path's facts from the filesystem (lstat, readlink, realpath).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "plan/facts.h"

namespace cordon {

// The Kind of an st_mode (a link is kSymlink).
Kind kind_of(mode_t m);

PathInfo read_path_info(const std::string& path);
// Expands a glob in the last component (`*`, `?`) against the folder's entries, sorted.
// A path without a glob gives itself, whether or not it exists.
std::vector<std::string> expand_last_glob(const std::string& pattern);
// realpath() of the longest existing prefix, with the rest appended lexically.
std::string real_or_lexical(const std::string& path);
// The home folder from the password database (for when HOME is unset).
std::string passwd_home();
// True when a process of this user, holding no capabilities, can search (x) the folder.
bool searchable_without_caps(const PathInfo& info, uint32_t euid, uint32_t egid);

}  // namespace cordon
