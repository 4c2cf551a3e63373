// `cordon review start` and `cordon review` (REV-1): what changed in the project since a
// recorded commit, without trusting anything a command may have changed in .git.
#pragma once

#include <string>
#include <vector>

#include "config/folders.h"
#include "core/env.h"
#include "core/result.h"

namespace cordon {

struct ReviewRecord {
  std::string project;
  std::string commit;                // HEAD when the review started
  std::vector<std::string> ignored;  // ignored files then
  long long started = 0;             // unix seconds
};

struct ReviewReport {
  std::string commit;
  std::vector<std::string> replace_refs;  // refs/replace/*: stop here, loudly
  std::vector<std::string> changed;       // "M path", "D path", ... against the recorded commit
  std::vector<std::string> added;         // untracked, not ignored
  std::vector<std::string> added_ignored; // untracked and ignored, not ignored at start
  std::vector<std::string> limits;        // what the review cannot see
};

// Where the record lives: outside the project, in cordon's state folder, per session when one
// is named and per project otherwise.
std::string review_record_path(const Folders& folders, const std::string& project,
                               const std::string& session);

Result<ReviewRecord> review_start(const std::string& project, const EnvMap& env,
                                  const std::string& record_path);
Result<ReviewReport> review_run(const std::string& project, const EnvMap& env,
                                const std::string& record_path);

// The report for a person.
std::string format_review(const ReviewReport& r);

}  // namespace cordon
