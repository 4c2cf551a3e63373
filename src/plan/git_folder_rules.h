// GIT-3, GIT-4, GIT-8: whether a git folder that a command created or changed is known clean —
// a nested repository (`git clone`, `git init` below the root), a submodule's git folder
// (.git/modules/<x>), a linked worktree's admin folder (.git/worktrees/<x>), the project's own
// hooks folder or config.worktree that did not exist at session start. Allowlist: what is not
// known to run nothing is unclean, and moved aside (PROT-7) by the caller.
//
// The host reads the folder (host/git_folder_reader.h) without following links and has git
// itself list each config (`git config --file - --list -z --no-includes`: the BOM, quoting and
// continuation lines read exactly as git reads them); the decisions here are pure.
//
//   std::string why = git_folder_unclean(facts, GitFolderRole::kNested);
//   if (!why.empty()) move aside, note "… (" + why + ")";
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plan/facts.h"
#include "plan/git_config_rules.h"

namespace cordon {

// One allowlisted config key: `pattern` is the key as git lists it with `*` for a subsection
// (`remote.*.url`); `value` how its value is judged; `why` the one-line justification.
enum class GitFolderValue { kAny, kBoolean, kUrl, kRebase };
struct AllowedGitKey {
  const char* pattern;
  GitFolderValue value;
  const char* why;
};
// The allowlist (data, one test per row): keys that name no program and point nowhere.
const std::vector<AllowedGitKey>& allowed_git_folder_keys();

// Which git folder is judged: what it may hold beyond a plain repository's files.
enum class GitFolderRole {
  kNested,     // a repository below the root (or the root's own, made by `git init`)
  kSubmodule,  // .git/modules/<x>: may name its checkout (core.worktree)
  kWorktree,   // .git/worktrees/<x>: has commondir (leading back home) and gitdir
};

// A config file as read: its kind (kMissing when absent) and git's listing of it.
struct GitConfigFact {
  Kind kind = Kind::kMissing;
  bool listed = false;  // git listed it (false: unreadable, or git refused its syntax)
  std::vector<GitConfigEntry> entries;
};

// What the host saw of one git folder.
struct GitFolderFacts {
  Kind kind = Kind::kMissing;  // of the folder itself (kDir expected)
  GitConfigFact config, config_worktree;
  Kind hooks_kind = Kind::kMissing;
  bool hooks_listed = true;                           // the hooks folder could be listed
  std::vector<std::pair<std::string, Kind>> hooks;    // its entries
  Kind commondir_kind = Kind::kMissing;
  bool commondir_leads_home = false;  // commondir resolves to the project's common git folder
  Kind gitdir_kind = Kind::kMissing;
};

// Why a config key is not known clean ("" when allowlisted): `extensions.worktreeconfig` is
// allowed (its config.worktree is judged by the same list), `include.path` never is.
//   remote.origin.url = https://github.com/o/r   -> ""
//   remote.origin.url = ext::sh -c evil         -> "remote.origin.url names a program transport"
//   core.fsmonitor = ./x                         -> "core.fsmonitor is not a key known to run nothing"
std::string git_key_unclean(const GitConfigEntry& e, GitFolderRole role);

// Whether a remote URL is plain: https://, http://, ssh://, git://, file:// (and git+ssh://),
// an scp-like `[user@]host:path`, or a local path; no `<transport>::` helper, no other scheme
// (git runs git-remote-<scheme> for those), no leading `-`, no control character.
bool plain_git_url(std::string_view url);

// Why the folder is not known clean, "" when it is: the first finding, in words for a note.
std::string git_folder_unclean(const GitFolderFacts& f, GitFolderRole role);

// Why a hooks folder is not known clean ("" when it holds only regular `*.sample` files).
std::string git_hooks_unclean(Kind kind, bool listed,
                              const std::vector<std::pair<std::string, Kind>>& entries);

// Why a config file is not known clean ("" when absent, or a regular file of allowlisted keys).
std::string git_config_unclean(const GitConfigFact& c, std::string_view name, GitFolderRole role);

// GIT-8: a `.git` file read whole, as git reads it: exactly one `gitdir: <path>` line (one
// trailing newline allowed). Sets `gitdir` to the path; returns why not, "" when it is one.
std::string git_file_unclean(std::string_view text, std::string* gitdir);

}  // namespace cordon
