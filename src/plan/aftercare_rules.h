// Aftercare, the pure part: a snapshot of the protected paths and git's auto-run files before a
// command, compared with one taken after it, gives the moves and notes of PROT-6, PROT-7,
// GIT-3, GIT-4, GIT-6 and FS-10. The host layer takes the snapshots and performs the moves.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plan/content_guard.h"
#include "plan/facts.h"
#include "plan/plan.h"

namespace cordon {

struct SnapshotEntry {
  std::string rel;  // project-relative protected entry
  Kind kind = Kind::kMissing;
  std::string link_target;
  uint64_t dev = 0, ino = 0;
  bool tracked = false;       // the entry itself is tracked (a file)
  bool file_by_file = false;  // a folder judged file by file: new entries are moved aside
  std::vector<ChildFact> children;  // for file-by-file folders
  std::vector<std::string> tracked_children;
  std::string via_link;  // FS-2: a link on the way to the entry (project-relative), and its text
  std::string via_link_target;
  bool operator==(const SnapshotEntry&) const = default;
};

// GIT-9: a path whose identity must not change: the git folder, git's auto-run files.
struct IdentityEntry {
  std::string root;  // trusted absolute folder the path is resolved beneath (no links)
  std::string rel;   // root-relative
  Kind kind = Kind::kMissing;
  uint64_t dev = 0, ino = 0;
  std::string what;  // "the project's git folder", "repository config", ...
  bool operator==(const IdentityEntry&) const = default;
};

struct ProtectedSnapshot {
  std::string project;
  std::vector<SnapshotEntry> entries;
  std::vector<std::pair<std::string, bool>> git_candidates;  // path, exists (GIT-4)
  std::vector<std::pair<std::string, std::string>> git_links;  // link, target (GIT-6)
  std::string git_dir;
  bool commondir_exists = false;  // GIT-3
  std::vector<std::string> unreadable;  // FS-10
  std::vector<IdentityEntry> identities;  // GIT-9 (after: as found now, kMissing when gone)
  std::string common_dir;  // the project's common git folder (GIT-8: submodule checkouts)
  std::string dir_index;   // GIT-8, PROT-6: the directory index file ("" when not watched)
  // LL-1, GIT-1: under a backend that cannot make them read-only, the paths the plan would
  // have, bytes and all (plan/content_guard.h); empty otherwise.
  std::vector<GuardedEntry> guarded;
};

// Builds a snapshot from facts (before: with the plan's decisions; after: re-read facts).
ProtectedSnapshot snapshot_of(const Facts& facts, const Plan* plan);

struct QuarantineAction {
  std::string path;      // absolute path to move aside
  std::string dest_dir;  // absolute folder to move it into (beside it, or the project root)
  std::string shown;     // project-relative path for the note
  // The trusted folder both are resolved beneath, without following links (FS-2, PROT-7);
  // the project, or a git folder outside it.
  std::string root;
};

// GIT-9: put the user's original back where it was, once what replaced it is moved aside. The
// original is looked for in the same folder by its identity (a rename keeps it).
struct RestoreAction {
  std::string root;
  std::string rel;  // where the original belongs (root-relative)
  uint64_t dev = 0, ino = 0;
  std::string shown;
  // Its kind: a removed file's inode number can be reused by what the command made next (a
  // link in its place), which is then not the original.
  Kind kind = Kind::kMissing;
};

struct AftercareReport {
  std::vector<QuarantineAction> moves;
  std::vector<RestoreAction> restores;  // after the moves
  std::vector<std::string> notes;   // GIT-4, GIT-6, FS-10 and others
  std::vector<std::string> newly_unreadable;  // FS-10: remember for the session
  // GIT-4: git files (hooks folder, config.worktree, include files) inside the project or a git
  // folder that did not exist at session start and do now: the host judges each (GIT-8).
  std::vector<std::string> created_git_files;
};

// GIT-9: the identities to check after each command: `.git` itself and git's auto-run files
// that lie inside the project or a git folder (outside, commands cannot change them).
std::vector<IdentityEntry> git_identities(const Facts& facts);

AftercareReport compare_snapshots(const ProtectedSnapshot& before, const ProtectedSnapshot& after);

// The note for a quarantine move (PROT-7).
std::string quarantine_note(const std::string& shown, const std::string& moved_to);

// GIT-7: when a git command that updates the work tree stopped short because a read-only path
// could not be updated, the files and the command that finishes the job outside the sandbox.
std::optional<std::string> git_stopped_short_note(const std::vector<std::string>& argv,
                                                  int exit_code, const std::string& output);

// The quarantine name of PROT-7: <name>.cordon-quarantined-<16 lowercase hex>.
std::string quarantine_name(const std::string& base, const std::string& hex16);

}  // namespace cordon
