// CORDON_TRACE=1: phase timings on stderr, for finding where a command's milliseconds go.
#pragma once

namespace cordon {

// Reads CORDON_TRACE once (the faces call it with their environment).
void trace_enable(bool on);
bool trace_enabled();
// Prints "cordon trace: +X.XXX ms (cpu Y.YYY ms) <what>": the wall time since the program
// started and the CPU time the process has used. "Started" is CORDON_TRACE_T0 when the caller
// sets it (CLOCK_MONOTONIC nanoseconds, taken just before it started cordon: the time to load
// the program then shows too), else the moment the program's static set-up ran.
void trace(const char* what);

}  // namespace cordon
