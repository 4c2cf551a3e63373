// PERF-1: ending cordon without making whoever waits for it also wait for work that is of no
// concern to it: the unmapping of cordon's memory, and the removal of a finished command's
// empty folders.
//
//   defer_removals_to_exit();           // a one-shot `cordon run`, before its session opens
//   ...
//   if (!remove_after_exit(dir)) rmdir(dir.c_str());   // an empty folder
//   ...
//   std::fflush(nullptr);
//   exit_leaving_teardown(status, argc, argv);   // does not return
//
// A process's exit tears down its address space before its parent learns of the exit: for a
// `cordon run` (a few MB of heap and a large program) that was 0.3-0.5 ms of every command on
// the test machine, after the command had already ended. And the removal of the private /tmp a
// command's sandbox mounted costs 0.2-0.3 ms more than that of any other folder.
//
// Linux: the process closes all its descriptors (so nothing it held stays open behind it: a
// pipe to its reader ends here), then starts a holder that shares its memory (clone CLONE_VM,
// signals blocked, no descriptor but one pipe end) and exits. Its exit then only drops a
// reference to the memory, and its parent sees the status at once; the holder wakes when the
// pipe's other end closes with the exit, removes the folders given to remove_after_exit (rmdir:
// an empty folder only, so nothing is ever lost; one that is not is left to the next command's
// sweep), and ends, unmapping the memory as the last user. It has its own parent's reaper
// (cordon is a subreaper of its commands, its parent's reaper takes the holder), and it lives
// well under a millisecond. Its command line (main's argv, in the shared memory) reads as the
// program's name alone, so that a search for the command cordon ran (pgrep -f) never finds the
// holder. Where the holder cannot start (clone refused, e.g. by an outer seccomp filter) or must
// not (under valgrind, which stops a program at such a clone), the process removes the folders
// itself and exits. A process that returns from main instead (the sanitizer tree) removes them
// at exit.
// macOS: the folders are removed, then _exit.
#pragma once

#include <string>

namespace cordon {

// From now on, remove_after_exit takes folders (for the process's exit). Call it only in a
// process that ends soon after its work: a one-shot command, not a server.
void defer_removals_to_exit();

// Whether defer_removals_to_exit was called.
bool removals_deferred();

// True when `dir` will be removed (if empty) as the process exits; false when removals are not
// deferred (the caller removes it itself), or too many are already waiting.
bool remove_after_exit(const std::string& dir);

[[noreturn]] void exit_leaving_teardown(int status, int argc, char** argv);

}  // namespace cordon
