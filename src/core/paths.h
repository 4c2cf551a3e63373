// Pure, lexical path operations (no filesystem access).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// Collapses `//`, `/./` and `/x/../`; keeps a leading `/`; never touches the disk.
// "" stays "", "/" stays "/".
std::string normalize_path(std::string_view p);
// a + "/" + b, normalized; b absolute wins.
std::string path_join(std::string_view a, std::string_view b);
// "/a/b" -> "/a"; "/a" -> "/"; "/" -> "/".
std::string path_parent(std::string_view p);
// "/a/b" -> "b".
std::string path_base(std::string_view p);
// True when `p` is `root` or lies below it (both absolute and normalized).
bool path_within(std::string_view p, std::string_view root);
// True when `p` is within one of `roots`.
bool path_within_any(std::string_view p, const std::vector<std::string>& roots);
// `p` relative to `root` ("" when equal); `p` itself, unchanged, when it is not within root.
std::string path_relative(std::string_view p, std::string_view root);
// Expands a leading `~` or `~/` with home; other paths unchanged.
std::string expand_home(std::string_view p, std::string_view home);
// Shows a path under home as ~/..., for messages.
std::string tilde_path(std::string_view p, std::string_view home);

}  // namespace cordon
