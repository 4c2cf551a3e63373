// The words of a first stage inside a sandbox (NET-7's proxy stage, JOB-3's terminal stage)
// that could not do its part: told on stderr, and the exit status that says the command did
// not run (125).
#pragma once

namespace cordon {

// Prints "cordon: <what> inside the sandbox (<step>: <errno's words>); the command did not
// run. ..." and returns 125. `what`: "the network proxy could not start", ...
int stage_failure(const char* what, const char* step);

}  // namespace cordon
