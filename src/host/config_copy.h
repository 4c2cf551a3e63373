// FS-4: configs in the home folder that commands see as copies without their credentials
// (plan/config_copy_rules.h says which and how).
#pragma once

#include <string>
#include <vector>

#include "plan/facts.h"

namespace cordon {

// For each sanitized_home_rows() file under each of `homes` (the home folder, and CORDON_HOME
// when set, FS-6) that is a regular file holding a credential: writes the copy under
// `<cache_dir>/config-copies/` (named by its content) and returns where it is and what was
// removed. A file that holds none is not listed (commands see it as it is); one past 1 MiB is
// listed with no copy (the planner hides it whole), as is one whose copy cannot be written.
std::vector<GitConfigCopyFact> sanitized_home_configs(const std::vector<std::string>& homes,
                                                      const std::string& home,
                                                      const std::string& cache_dir);

// The text of the regular file at `path` when it is at most `max` bytes, opened without
// following a link and without blocking (SEC-2: a command may have made it a FIFO).
bool read_regular_file(const std::string& path, size_t max, std::string& out);

// Writes `text` to `<cache_dir>/<sub>/<hash of text><suffix>` unless it is there already, and
// returns the path ("" when it cannot be written). Read-only to commands: the cache is hidden.
std::string write_content_named_copy(const std::string& cache_dir, const std::string& sub,
                                     const std::string& text, const std::string& suffix);

}  // namespace cordon
