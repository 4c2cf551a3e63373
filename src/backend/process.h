// The process primitive's interface: run_process and its helpers (ProcessSpec, ProcessOutcome).
// Two implementations: backend/linux/process.cc (clone, pidfd, /proc; bwrap's status fd) and
// backend/posix/process.cc (fork and exec, a SIGCHLD self-pipe, the process table of
// backend/process_table.h), which a macOS build links and which the Linux tests also run.
// The declarations still live in backend/linux/process.h (whose process.cc is being split);
// code that is not Linux's includes this header, so they can move here without touching it.
#pragma once

#include "backend/linux/process.h"  // IWYU pragma: export
