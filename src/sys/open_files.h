// NET-8: cordon's own limit on open files. The proxy holds two descriptors per tunnel (up to 256
// tunnels per command), so the soft limit most systems start a process with (1024) is raised to
// the hard limit when cordon starts; the commands it runs get the limit cordon started with
// back (process/child_exec.cc), so no program sees a changed limit.
#pragma once

#include <optional>

namespace cordon {

// Raises the soft RLIMIT_NOFILE to the hard one. Called once, first thing in main.
void raise_open_files_limit();

// The soft limit cordon started with, when raise_open_files_limit() changed it; else nothing.
std::optional<unsigned long long> started_open_files_limit();

// The soft limit on open files now (RLIM_INFINITY as a very large number).
unsigned long long open_files_limit();

}  // namespace cordon
