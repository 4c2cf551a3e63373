// FS-12 by allowlist (SEC-1): the keys of the user's global git config that commands see.
//
// A key is kept only when a row below says it holds no secret (and, for some, only with a value
// of a known kind); everything else is removed from the copy commands see and named in
// `cordon policy`. A key that names a program which could hand a secret to git (an askpass, a
// credential helper, an ssh command) or that points somewhere git would run from (a hooks
// folder, a template folder) is not on the list: inside the sandbox those programs cannot
// reach what they guard anyway (the keys, the agents' sockets and the credential stores are
// hidden), and a program's command line can itself carry a password.
//
//   global_git_key_row({"user.email", "ada@example.com", true}) != nullptr
//   global_git_key_row({"sendemail.smtppass", "hunter2", true}) == nullptr
#pragma once

#include <string>
#include <vector>

#include "plan/git_config_rules.h"

namespace cordon {

// What the value of a kept key must be.
enum class GlobalGitValue {
  kAny,            // any value (still: no credential shape, no URL with a user; see below)
  kGitLfsCommand,  // exactly what `git lfs install` writes (filter.lfs.*)
};

// Where a row's key may carry a subsection (`http.<url>.sslVerify`).
enum class GitSubsection { kNone, kAny, kOptional };

struct GlobalGitKeyRow {
  const char* section;  // lower case
  const char* name;     // lower case; "*" for any name
  GitSubsection sub;
  GlobalGitValue value;
  const char* why;  // why it holds no secret, and what needs it
};

// The allowlist, as data (tested row by row).
const std::vector<GlobalGitKeyRow>& global_git_key_rows();

// The row that keeps `e`, or nullptr. Whatever the row, a value shaped like a credential
// (ENV-1's shapes) or a URL with a user or password, in the value or the subsection, is never
// kept (git_config_credential).
const GlobalGitKeyRow* global_git_key_row(const GitConfigEntry& e);

// Why `e` is removed from the copy, "" when it is kept: a credential's description
// (git_config_credential) or "not on the list of keys known to hold no secret".
std::string global_git_key_removal(const GitConfigEntry& e);

}  // namespace cordon
