// The system-specific pieces of opening a file safely, for the file tools (FILE-1, FILE-2):
// a descriptor that names a path without reading it, the kernel filesystems a tool never reads,
// reopening such a descriptor for reading, and a stat's modification time.
//   Linux: O_PATH, statfs magic numbers (procfs, sysfs, ...), /proc/self/fd/N.
//   macOS: O_RDONLY | O_NONBLOCK (a FIFO opens without blocking; the caller checks the kind
//          before reading), no kernel filesystem under a project, reopening by name.
//
// Example:
//   Fd f(::openat(dir, name, kOpenPathOnly | O_NOFOLLOW | O_CLOEXEC));
//   if (on_kernel_fs(f.get())) refuse...;
//   int rd = reopen_for_reading(f.get());   // -1 with errno ENOENT: open by name instead
#pragma once

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

namespace cordon {

#if defined(__linux__)
inline constexpr int kOpenPathOnly = O_PATH;
#else
inline constexpr int kOpenPathOnly = O_RDONLY | O_NONBLOCK;
#endif

// FILE-1: the descriptor is on procfs, sysfs or another kernel filesystem.
bool on_kernel_fs(int fd);

// The same for a path; nullopt when it cannot be looked at (it does not exist).
std::optional<bool> path_on_kernel_fs(const std::string& path);

// A new descriptor reading the very inode `path_fd` names (O_RDONLY | O_NONBLOCK | O_NOCTTY,
// close-on-exec), or -1 with errno ENOENT where the system cannot do that.
int reopen_for_reading(int path_fd);

// The modification and change times in a stat (Linux names them st_mtim and st_ctim, macOS
// st_mtimespec and st_ctimespec), and a time in nanoseconds.
timespec stat_mtime(const struct stat& st);
timespec stat_ctime(const struct stat& st);
inline int64_t timespec_ns(const timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}
// The wall clock in nanoseconds, the clock file times are stamped with.
inline int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return timespec_ns(ts);
}
// A change within this of now may be followed by another in the same timestamp (above any
// kernel's timestamp granularity): a cache keyed by ctime does not trust such a stamp.
constexpr int64_t kRacyNs = 100 * 1000 * 1000;

}  // namespace cordon
