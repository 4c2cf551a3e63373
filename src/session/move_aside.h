// PROT-7: moving a path aside ("quarantine"), the one way aftercare takes what a command left.
#pragma once

#include <string>

#include "core/result.h"
#include "host/beneath.h"

namespace cordon {

// Moves `rel` into `dest_rel` beneath `b` as <name>.cordon-quarantined-<16 hex>; returns the
// new absolute path. Never follows a link, never replaces.
Result<std::string> move_aside(const Beneath& b, const std::string& rel,
                               const std::string& dest_rel);

// `abs` as a note shows it: project-relative inside the project, else absolute.
std::string shown_path(const std::string& abs, const std::string& project);

}  // namespace cordon
