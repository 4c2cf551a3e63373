// GIT-8, PROT-6 below the root: around each sandboxed command, what it planted in any folder
// of the project (a nested git repository, a CLAUDE.md/AGENTS.md/GEMINI.md/.envrc in a
// subfolder) is found from the directory index (host/dir_index.h) and moved aside.
//
// Changes made between commands (by the user, outside) are taken into the baseline before a
// command starts, but only when no other command of the project is in flight: every command
// holds a shared lock on the project's lock file while it runs, and the baseline is refreshed
// only under the exclusive lock. Otherwise another command's plant could be taken for the
// user's.
#pragma once

#include <optional>
#include <string>

#include "host/dir_index.h"
#include "process/process.h"
#include "session/aftercare.h"

namespace cordon {

class PlantWatch {
 public:
  // Before a sandboxed command starts. `state_dir` holds the in-flight lock files.
  static std::optional<PlantWatch> begin(const std::string& project, const std::string& index_file,
                                         const std::string& state_dir);
  // For a command that was interrupted (resume): the baseline is the index on disk.
  static std::optional<PlantWatch> from_disk(const std::string& project,
                                             const std::string& index_file);

  // After the command: moves aside each new plant (keeping a submodule checkout of this
  // repository whose config names no program), adds the moves and notes to `out`, saves the
  // index. `common_dir`: the project's common git folder ("" without a repository).
  // `was_repo`: the project was a git repository when the command started; when it was not, a
  // `.git` the command made at the root (`git init`) is kept only if nothing in it runs a
  // program (its config names none, its hooks are git's `.sample` files).
  void finish(const std::string& common_dir, bool was_repo, AftercareOutcome& out);

 private:
  std::string project_, file_;
  DirIndex baseline_;
  Fd lock_;
  // Another command was in flight at the start: the baseline is the index of the last moment
  // none was, so what that one planted at the root counts too.
  bool others_in_flight_ = false;
};

}  // namespace cordon
