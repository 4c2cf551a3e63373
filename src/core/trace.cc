#include "core/trace.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace cordon {

namespace {
bool g_on = false;
// CORDON_TRACE_T0 (steady-clock nanoseconds, as CLOCK_MONOTONIC): the moment the caller started
// us, so the trace shows what happens before main too (loading, relocation, static set-up).
std::chrono::steady_clock::time_point start_time() {
  const char* t0 = std::getenv("CORDON_TRACE_T0");
  if (!t0 || !*t0) return std::chrono::steady_clock::now();
  return std::chrono::steady_clock::time_point(
      std::chrono::nanoseconds(std::strtoll(t0, nullptr, 10)));
}
std::chrono::steady_clock::time_point g_t0 = start_time();
}  // namespace

void trace_enable(bool on) { g_on = on; }
bool trace_enabled() { return g_on; }

void trace(const char* what) {
  if (!g_on) return;
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g_t0).count();
  // The process's CPU time beside the wall time: on a loaded machine the two part ways.
  const double cpu_ms = static_cast<double>(std::clock()) * 1000.0 / CLOCKS_PER_SEC;
  std::fprintf(stderr, "cordon trace: +%.3f ms (cpu %.3f ms) %s\n", ms, cpu_ms, what);
}

}  // namespace cordon
