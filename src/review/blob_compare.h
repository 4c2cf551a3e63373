// REV-1: which tracked files differ from a commit, decided by cordon itself from blob ids.
//
// `git diff` against the work tree hashes changed files through the clean/process filters that
// the project's config and attributes name, so a planted `[filter "x"] clean = prog` would run
// on the host. Here the work tree's bytes are hashed as they are (`hash-object --no-filters`),
// links are compared by their text, and no driver of any kind is consulted.
#pragma once

#include <string>
#include <vector>

#include "core/env.h"
#include "core/result.h"

namespace cordon {

// One entry of `git ls-tree -r -z`.
struct TreeEntry {
  std::string mode;  // "100644", "100755", "120000", "160000"
  std::string id;    // blob (or commit) id
  std::string path;  // repository-relative
};

// Parses `git ls-tree -r -z --full-tree` output; malformed records are skipped.
std::vector<TreeEntry> parse_ls_tree(const std::string& out);

// "M path", "D path", "T path" for each tracked file of `commit` that the work tree changed,
// in the tree's order. Submodules (160000) are not compared.
Result<std::vector<std::string>> changed_since(const std::string& project,
                                               const std::string& commit, const EnvMap& env);

}  // namespace cordon
