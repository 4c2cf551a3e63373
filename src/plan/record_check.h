// Checks on what cordon reads back from its own state folder (SES-1, SES-3): a session id, and a
// leftover record's snapshot before resume acts on it. The state folder lies outside the
// sandbox, but anything on the machine may have edited it: a record is data from an attacker
// until every field is checked. Pure.
//
//   valid_session_id("0123456789abcdef");   // true
//   valid_session_id("../../x");            // false
//   snapshot_problem(snap, {"/p", entries, "/p/.git"});
//   // "" when every field fits the session, else why not ("an entry `../x` is not ...")
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plan/aftercare_rules.h"
#include "plan/protected_list.h"

namespace cordon {

// SES-1: exactly 16 lowercase hex digits.
bool valid_session_id(std::string_view id);

// A project-relative path that stays beneath the project: not empty, not absolute, no empty,
// `.` or `..` component, no NUL or newline.
bool clean_relative_path(std::string_view rel);

struct SnapshotExpectations {
  std::string project;                // the session's project root
  std::vector<ProtectEntry> entries;  // the current protected list (PROT-1, PROT-9)
  std::string git_dir;                // the project's real git folder now; "" when none
  std::string common_dir;             // its common folder now (worktrees share it); "" when none
  std::string dir_index;              // the directory index file cordon keeps for the project
};

// Why the snapshot cannot be trusted, or "" when it fits: its project is the session's, every
// entry names a path of the protected list (its children, and a link on its way, lie beneath
// it), the git and common folders and the directory index are the project's, every identity
// is rooted at the project or one of its git folders with a clean relative path, and every
// other path is absolute and normalized.
std::string snapshot_problem(const ProtectedSnapshot& s, const SnapshotExpectations& want);

}  // namespace cordon
