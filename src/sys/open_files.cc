#include "sys/open_files.h"

#include <sys/resource.h>

#include <atomic>

namespace cordon {

namespace {

// 0: never raised. Written once in main, before any thread.
std::atomic<unsigned long long> started{0};

}  // namespace

void raise_open_files_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= r.rlim_max) return;
  const rlim_t before = r.rlim_cur;
  r.rlim_cur = r.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &r) == 0) started = before;
}

std::optional<unsigned long long> started_open_files_limit() {
  unsigned long long s = started;
  if (s == 0) return std::nullopt;
  return s;
}

unsigned long long open_files_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return 1024;
  return r.rlim_cur;
}

}  // namespace cordon
