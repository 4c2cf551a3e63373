// GIT-8, PROT-6: what a command may not plant anywhere below the project root — a nested git
// repository (its config can name an fsmonitor or hooks that editors and shell prompts run when
// they work in that folder) and the files that steer agents or shells in a subfolder.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plan/facts.h"

namespace cordon {

// One name watched in every folder of the project, with the tool that reads it there.
struct PlantedName {
  const char* name;
  const char* why;
};
// `.git`, `.envrc`, CLAUDE.md, CLAUDE.local.md, AGENTS.md, AGENTS.override.md, GEMINI.md,
// `.cursor` (nested rules): data, one row per name (tested row by row).
const std::vector<PlantedName>& planted_names();
// The row for `name`, or nullptr.
const PlantedName* planted_name(const std::string& name);

// PROT-6 below the root: the PROT-1 entries the tools read in a subfolder too (protected_rows()
// with below_root: `.vscode/`, `.claude/`, `.mcp.json`, `.npmrc`, `.cargo/config.toml`, ...).
// `rel` (project-relative) is such an entry, or lies inside such a folder, when the entry's
// components appear in it after the first component: `sub/.vscode`, `sub/.vscode/tasks.json`,
// `.claude/worktrees/wt/.claude/settings.json`; never at the root (`.vscode/x`: PROT-1's own),
// never inside `node_modules` (packages ship their own editor files; no tool opens them as a
// project), not `<…>/.claude/worktrees/…` (agents keep git worktrees there, PROT-1), not inside
// a PROT-1 entry at the root (PROT-1's own aftercare judges those), and never a path cordon
// moved aside (`*.cordon-quarantined-*`). The row, or nullptr; `exact` tells whether `rel` is
// the entry itself.
struct ProtectedRow;
const ProtectedRow* planted_protected_row(std::string_view rel, bool* exact = nullptr);

// Whether the directory index records the entry `name` of the folder `folder_rel`: a planted
// name, a PROT-1 entry read below the root or anything inside one, or the first component of
// one (a new `.github` is listed, and what it holds judged). Cheap: called for every entry of
// every folder the index lists.
bool watched_entry(std::string_view folder_rel, std::string_view name);

// A watched name present in a folder. For `.git` the print is its identity, so that a rewritten
// `gitdir:` file or a nested repository's changed config or hooks is judged again: "f<ino>.<ctime>"
// for a file; "d<ino>/<config ino.ctime>/<hooks ino.ctime>" for a folder. Other names: "".
struct Watched {
  std::string name;
  std::string print;
  auto operator<=>(const Watched&) const = default;
};

// One folder of the project as last seen (the directory index).
struct DirRecord {
  std::string rel;  // project-relative, "" for the root
  uint64_t ino = 0;
  int64_t ctime_ns = 0;        // ctime changes with every entry added, removed or renamed, and with
                               // every utimes: a command cannot put it back
  bool racy = false;           // seen within the clock's granularity of its last change: rescan
  std::vector<Watched> names;  // watched names present in it (sorted)
};

// What the host saw of one folder that changed (or is new).
struct DirChange {
  std::string rel;
  bool fresh = false;  // the folder itself is new (not in the index before)
  std::vector<std::pair<Watched, Kind>> names;  // watched names present now, with kinds
};

struct PlantedFind {
  std::string rel;  // project-relative path of the planted entry
  Kind kind = Kind::kMissing;
  const char* why = "";
  bool changed = false;  // a `.git` that was there before, with another identity now
};

// The watched names that are new: present now in a changed folder and not recorded before,
// and each `.git` whose print changed (changed = true: judged again, not moved for that alone).
// Entries at the project root are left to the protected list (PROT-6) except `.git` itself,
// which is not judged here at all (the project's own git folder). A new PROT-1 entry below
// the root (planted_protected_row) is found the same way, whole when it is new, entry by entry
// inside one that was there before; nothing is reported inside a path already reported. A new
// `.claude` that holds only `worktrees` is kept (PROT-1's exception). With `root_too` (another
// command was in flight when this one began, so what it planted at the root was already there
// for the protected list's snapshot), the root's watched names but `.git` are judged too.
std::vector<PlantedFind> new_plants(const std::vector<DirRecord>& before,
                                    const std::vector<DirChange>& changes, bool root_too = false);

// The note for a plant moved aside (GIT-8, PROT-6); `reason`, when given, is why a git folder
// is not known clean (plan/git_folder_rules.h).
std::string planted_note(const PlantedFind& f, const std::string& moved_to,
                         const std::string& reason = "");

}  // namespace cordon
