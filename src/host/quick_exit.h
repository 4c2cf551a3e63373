// PERF-1: ending cordon without making whoever waits for it also wait for its memory to be
// unmapped. A process's exit tears down its address space before its parent learns of the exit:
// for a `cordon run` (a few MB of heap and a large program) that was 0.5-0.7 ms of every
// command on the test machine, after the command had already ended.
//
//   std::fflush(nullptr);
//   exit_leaving_teardown(status, argc, argv);   // does not return
//
// Linux: the process closes all its descriptors (so nothing it held stays open behind it: a
// pipe to its reader ends here), then starts a holder that shares its memory (clone CLONE_VM,
// signals blocked, no descriptor but one pipe end) and exits. Its exit then only drops a
// reference to the memory, and its parent sees the status at once; the holder wakes when the
// pipe's other end closes with the exit, and ends, unmapping the memory as the last user. It
// has its own parent's reaper (cordon is a subreaper of its commands, its parent's reaper takes
// the holder), and it lives well under a millisecond. Its command line (main's argv, in the
// shared memory) reads as the program's name alone, so that a search for the command cordon ran
// (pgrep -f) never finds the holder. Where the holder cannot start (clone
// refused, e.g. by a tracer or an outer seccomp filter), the process simply exits.
// macOS: _exit.
#pragma once

namespace cordon {

[[noreturn]] void exit_leaving_teardown(int status, int argc, char** argv);

}  // namespace cordon
