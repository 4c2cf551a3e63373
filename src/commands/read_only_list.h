// The built-in read-only list of CMD-2 (see read_only_list.cc for what belongs there).
#pragma once

#include <string_view>
#include <vector>

namespace cordon {

// Entries such as "ls", "git status", "docker image ls": a binary and up to two arguments.
const std::vector<std::string_view>& builtin_read_only_entries();

}  // namespace cordon
