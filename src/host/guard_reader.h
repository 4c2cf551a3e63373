// LL-1, GIT-1, GIT-9: the content guard's reads and writes on the host (plan/content_guard.h
// decides what). Every path is resolved beneath its trusted root without following a link
// (host/beneath.h), so a link a command put on the way is seen as the link, never followed.
#pragma once

#include <vector>

#include "core/result.h"
#include "plan/content_guard.h"

namespace cordon {

// `project`: a root inside it (the git folder) is reached from it without following a link.
//
// Before the command: each target as it is now, and below a folder target every entry (parents
// first), with the bytes of each regular file within the limits of plan/content_guard.h.
std::vector<GuardedEntry> read_guarded(const std::vector<GuardTarget>& targets,
                                       const std::string& project);

// After the command: the same entries read again (bytes only where they were kept before),
// and the entries now in each folder that was listed whole (the new ones, without bytes).
std::vector<GuardedEntry> read_guarded_after(const std::vector<GuardedEntry>& before,
                                             const std::string& project);

// Puts `e` back at its path as a new entry: a file is written under a temporary name in its
// folder and renamed into place, never replacing what is there; a folder or a link is made
// in place. Nothing is opened through a path the command controls, and no link is followed.
Status put_back(const GuardedEntry& e, const std::string& project);

}  // namespace cordon
