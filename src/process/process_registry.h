// This cordon's record of the children the process primitives started and have not yet
// collected (ProcessRegistration in process/process.h), and the search for an unconfined
// command's escaped processes that must not name them (NET-4). Shared by both primitives.
//
// spawn_mutex() is held shared across fork (or clone) and the registration of the new pid, and
// exclusive across the search (find_marked_processes), so that a child is never seen before it
// is known:
//   std::shared_lock<std::shared_mutex> lock(spawn_mutex());
//   pid_t pid = fork();  ...  if (pid > 0) registration.add(pid);
#pragma once

#include <shared_mutex>
#include <string>
#include <vector>

namespace cordon {

std::shared_mutex& spawn_mutex();

// NET-4: after the group `pgid` was sent SIGKILL, gives its members a moment to be gone (so a
// dying member is not named as a survivor), then names the processes marked with `marker`
// that left it (find_marked_processes, the group's leader excepted).
std::vector<int> escaped_processes(const std::string& marker, int pgid);

}  // namespace cordon
