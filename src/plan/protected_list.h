// The protected list (PROT-1, PROT-9): paths that run code or steer an agent later.
#pragma once

#include <string>
#include <vector>

#include "config/policy.h"

namespace cordon {

struct ProtectEntry {
  std::string rel;        // project-relative, no trailing "/" (for `**/` entries: the file name)
  bool folder = false;    // written with a trailing "/"
  bool anywhere = false;  // a `**/NAME` entry: file tools only (FILE-6), not the sandbox
  std::string why;        // "default list" or "[sandbox] protect"
};

// One row of PROT-1's default list: the entry (a trailing `/` marks a folder, a leading `**/`
// an entry for the file tools only), whether the tools read it in any folder below the root too
// (then PROT-6 watches it there, planted_rules.h), and what reads it and runs or obeys it.
struct ProtectedRow {
  const char* entry;
  bool below_root;
  const char* read_by;
};

// PROT-1's default list as data, one row per entry (tested row by row).
const std::vector<ProtectedRow>& protected_rows();

// PROT-1's default list, in order, including the `**/` entries.
const std::vector<std::string>& default_protected_entries();

// The default list plus `[sandbox] protect` (PROT-9), parsed.
std::vector<ProtectEntry> protected_entries(const Policy& policy);

// True when `rel` (project-relative) is a protected path or lies inside a protected folder,
// including the `**/` entries (FILE-6). `.claude/worktrees/` is not protected (PROT-1).
bool is_protected_path(const std::vector<ProtectEntry>& entries, const std::string& rel);

}  // namespace cordon
