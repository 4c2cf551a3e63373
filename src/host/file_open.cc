#include "host/file_open.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>

#if defined(__linux__)
#include <linux/magic.h>
#include <sys/statfs.h>
#endif

namespace cordon {

#if defined(__linux__)

namespace {

// Checked on what was opened, so /proc mounted elsewhere is caught too.
bool is_kernel_fs(const struct statfs& sf) {
  switch (static_cast<unsigned long>(sf.f_type)) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case BPF_FS_MAGIC:
    case PSTOREFS_MAGIC:
    case EFIVARFS_MAGIC:
    case 0x62656570:  // configfs
      return true;
    default:
      return false;
  }
}

}  // namespace

bool on_kernel_fs(int fd) {
  struct statfs sf;
  return ::fstatfs(fd, &sf) == 0 && is_kernel_fs(sf);
}

std::optional<bool> path_on_kernel_fs(const std::string& path) {
  struct statfs sf;
  if (::statfs(path.c_str(), &sf) != 0) return std::nullopt;
  return is_kernel_fs(sf);
}

int reopen_for_reading(int path_fd) {
  std::string self = fmt::format("/proc/self/fd/{}", path_fd);
  return ::open(self.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

timespec stat_mtime(const struct stat& st) { return st.st_mtim; }
timespec stat_ctime(const struct stat& st) { return st.st_ctim; }

#else

// macOS: no procfs or sysfs; devfs holds only devices, which the kind check refuses.
bool on_kernel_fs(int) { return false; }

std::optional<bool> path_on_kernel_fs(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return false;
}

int reopen_for_reading(int) {
  errno = ENOENT;
  return -1;
}

timespec stat_mtime(const struct stat& st) { return st.st_mtimespec; }
timespec stat_ctime(const struct stat& st) { return st.st_ctimespec; }

#endif

}  // namespace cordon
