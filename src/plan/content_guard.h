// LL-1, GIT-1, GIT-9, PROT-7: the content guard of a backend that cannot make files read-only
// inside the project (Landlock: a grant on a folder covers everything below it, so .git/hooks
// and .git/config stay writable while git writes .git/index.lock beside them).
//
// Before the command, every path the plan would have made read-only (git's hooks folder, its
// config and include files, the project's existing protected files) is read, bytes and all,
// into the snapshot; after it, each is read again. Pure: which paths, and what to do.
//
//   guard_targets(plan, facts)  // [{root "/p", rel ".git/hooks", "git: hooks folder"}, ...]
//   compare_guarded(before, after)
//   // .git/config appended to: move the command's version aside, put the bytes back;
//   // .git/hooks/pre-commit new: move it aside
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/facts.h"
#include "plan/plan.h"

namespace cordon {

// A path to guard: a file, or a folder whose entries are guarded too (new ones moved aside).
struct GuardTarget {
  std::string root;  // the trusted folder it is resolved beneath: the project or a git folder
  std::string rel;   // root-relative
  std::string shown;  // project-relative when inside the project, else absolute
  // Root-relative folders inside it that a later writable bind leaves writable under
  // bubblewrap (.claude/worktrees in a read-only .claude): known, never judged.
  std::vector<std::string> skip;
  bool operator==(const GuardTarget&) const = default;
};

// The paths of `plan`'s read-only binds of git's auto-run files ("git: ...") and protected
// entries ("protected: ..."), less the writable binds made after them inside them (bwrap's
// later mount wins), when the plan's backend does not keep them read-only
// (plan.locks_git_files false); none otherwise. Rooted at the deepest of the project and its
// git folders that holds them; parents before what is inside them.
std::vector<GuardTarget> guard_targets(const Plan& plan, const Facts& facts);

// Limits on what a snapshot holds: past them, a file is watched by identity and size only.
constexpr uint64_t kGuardFileBytes = 1 << 20;
constexpr uint64_t kGuardTotalBytes = 4 << 20;
constexpr size_t kGuardEntries = 2000;

// One guarded path as read (before or after the command).
struct GuardedEntry {
  std::string root, rel, shown;
  Kind kind = Kind::kMissing;
  uint64_t dev = 0, ino = 0, size = 0;
  uint32_t mode = 0;          // permission bits
  bool has_content = false;   // a regular file read whole (within the limits)
  std::string content;        // its bytes
  std::string link_target;    // kSymlink
  bool in_folder = false;     // an entry found inside a guarded folder
  bool listed = false;        // kDir: every entry inside was read (new ones are plants)
  bool unreadable = false;    // could not be read: nothing is decided about it
  bool operator==(const GuardedEntry&) const = default;
};

struct GuardStep {
  enum class Do {
    kMoveAside,  // what the command left at the path (changed or new) is moved aside
    kRestore,    // the user's version (before[index]) is written back at the path
    kNote,       // something changed that cannot be put back: only said
  };
  Do what = Do::kNote;
  std::string root, rel, shown;
  bool to_project_root = false;  // kMoveAside inside a protected folder (PROT-7)
  size_t index = 0;              // kRestore: the entry of `before` to write back
  std::string note;              // kNote
  bool quiet = false;            // kRestore inside a folder put back: said with the folder
  bool operator==(const GuardStep&) const = default;
};

// What to do, in order: for each changed, replaced or removed entry, its move aside (when
// something is there) then its restore (parents first, so a folder is made before its files);
// for each entry new in a fully listed folder, its move aside. A change is any difference of
// kind, identity (dev, ino), bytes, link text or mode. Entries that were unreadable either
// time are left alone.
std::vector<GuardStep> compare_guarded(const std::vector<GuardedEntry>& before,
                                       const std::vector<GuardedEntry>& after);

// The note for a guarded path the command changed, its version moved aside and the user's put
// back (PROT-7's words for a changed file).
std::string guard_changed_note(const std::string& shown, const std::string& moved_to);
// The note for a guarded path the command removed, put back.
std::string guard_restored_note(const std::string& shown);
// The note when the user's version could not be put back.
std::string guard_not_restored_note(const std::string& shown, const std::string& why);

}  // namespace cordon
