// Git facts (GIT-1, GIT-2, PROT-3): where the real git folder is, which of its files make git
// run code, and which protected paths git tracks. Read with the git program (never by running
// anything the repository configures), and cached until a file they depend on changes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/env.h"
#include "plan/facts.h"

namespace cordon {

struct GitFactsInput {
  std::string project;  // real project root
  std::string home;
  EnvMap env;
  std::vector<std::string> protected_rels;  // project-relative protected entries (PROT-1, -9)
  std::string cache_dir;                    // "" disables the cache
  // GIT-8: the nested git folders the directory index knows (project-relative `.git`
  // folders below the root, kept because they were known clean): their auto-run files are
  // locked like the project's own (GIT-1), their commondir is a lock candidate (GIT-3).
  std::vector<std::string> nested_git;
};

GitFacts read_git_facts(const GitFactsInput& in);

// The config files git reads (GIT-1), whether or not they exist, each with why:
// $GIT_CONFIG_GLOBAL, ~/.gitconfig and $XDG_CONFIG_HOME/git/config ("global"), then
// $GIT_CONFIG_SYSTEM and /etc/gitconfig ("system").
std::vector<std::pair<std::string, std::string>> git_config_files(const EnvMap& env,
                                                                  const std::string& home);

// Finds the real git folder behind <project>/.git (a folder, or a `gitdir:` file); "" if none.
std::string resolve_git_dir(const std::string& dot_git);

// Where the project's git folders are, as read_git_facts finds them, without running git or
// touching its cache: the real git folder ("" when none) and its common folder (the git folder
// itself unless a `commondir` file names another).
struct GitDirs {
  std::string git_dir, common_dir;
  bool commondir_existed = false;
};
GitDirs read_git_dirs(const std::string& project);

}  // namespace cordon
