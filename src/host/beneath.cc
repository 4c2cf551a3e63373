#include "host/beneath.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#if defined(__linux__)
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "core/paths.h"
#include "core/strings.h"
#include "host/file_open.h"
#include "host/path_info.h"

namespace cordon {

namespace {

std::vector<std::string> components(const std::string& rel) {
  std::vector<std::string> out;
  for (auto& c : split(rel, '/'))
    if (!c.empty() && c != ".") out.push_back(std::move(c));
  return out;
}

std::string read_link_at(int dirfd, const std::string& name) {
  char buf[PATH_MAX];
  ssize_t n = readlinkat(dirfd, name.c_str(), buf, sizeof buf - 1);
  return n < 0 ? "" : std::string(buf, static_cast<size_t>(n));
}

// The walk for kernels without openat2: each component opened with O_NOFOLLOW.
int open_by_walk(int dirfd, const std::vector<std::string>& parts, int flags) {
  int cur = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
  if (cur < 0) return -1;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "..") {
      close(cur);
      errno = EXDEV;
      return -1;
    }
    bool last = i + 1 == parts.size();
    int f = last ? (flags | O_NOFOLLOW | O_CLOEXEC)
                 : (kOpenPathOnly | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int next = openat(cur, parts[i].c_str(), f);
    int e = errno;
    close(cur);
    if (next < 0) {
      // A link on the way fails with ENOTDIR (O_DIRECTORY | O_NOFOLLOW): tell it apart.
      errno = e == ENOTDIR ? ELOOP : e;
      return -1;
    }
    cur = next;
  }
  return cur;
}

// The system's own open beneath `dirfd` without links (Linux's openat2); -1 with ENOSYS where
// there is none (macOS, kernels before 5.6): the caller walks instead.
long open_resolved_beneath(int dirfd, const std::string& path, int flags) {
#if defined(__linux__)
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof how);
#else
  (void)dirfd, (void)path, (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}

// Moves `from_name` (a link itself, not its target) and never overwrites.
int rename_no_replace(int from, const char* from_name, int to, const char* to_name) {
#if defined(__linux__)
  return static_cast<int>(syscall(SYS_renameat2, from, from_name, to, to_name, RENAME_NOREPLACE));
#elif defined(__APPLE__)
  return renameatx_np(from, from_name, to, to_name, RENAME_EXCL);
#else
  (void)from, (void)from_name, (void)to, (void)to_name;
  errno = ENOSYS;
  return -1;
#endif
}

}  // namespace

int open_beneath(int dirfd, const std::string& rel, int flags) {
  std::vector<std::string> parts = components(rel);
  std::string path = parts.empty() ? "." : join(parts, "/");
  long fd = open_resolved_beneath(dirfd, path, flags);
  if (fd >= 0) return static_cast<int>(fd);
  if (errno != ENOSYS) return -1;
  return open_by_walk(dirfd, parts, flags);
}

Result<Beneath> Beneath::open(const std::string& root) {
  Beneath b;
  b.root_ = root;
  b.fd_ = Fd(::open(root.c_str(), kOpenPathOnly | O_DIRECTORY | O_CLOEXEC));
  if (b.fd_.fd < 0)
    return make_error(ErrorKind::kIo,
                      fmt::format("cannot open {} ({})", root, std::strerror(errno)), root, errno);
  return b;
}

Result<Beneath> Beneath::open_within(const std::string& outer, const std::string& root) {
  if (outer.empty() || root == outer || !path_within(root, outer)) return open(root);
  auto o = open(outer);
  if (!o.ok()) return o.error();
  Beneath b;
  b.root_ = root;
  b.fd_ = Fd(open_beneath(o->fd(), path_relative(root, outer), kOpenPathOnly | O_DIRECTORY));
  if (b.fd_.fd < 0)
    return make_error(ErrorKind::kIo,
                      fmt::format("cannot open {} ({})", root, std::strerror(errno)), root, errno);
  return b;
}

Fd Beneath::open_dir(const std::string& rel) const {
  return Fd(open_beneath(fd_.fd, rel, O_RDONLY | O_DIRECTORY));
}

BeneathStat Beneath::lstat(const std::string& rel) const {
  BeneathStat s;
  std::vector<std::string> parts = components(rel);
  std::string base = parts.empty() ? "." : parts.back();
  if (!parts.empty()) parts.pop_back();
  Fd parent(open_beneath(fd_.fd, join(parts, "/"), kOpenPathOnly | O_DIRECTORY));
  if (parent.fd < 0) {
    if (errno == ELOOP || errno == EXDEV) {
      // A link on the way: name the first one, as the thing a command put there.
      std::string cur;
      for (const auto& p : parts) {
        cur = cur.empty() ? p : cur + "/" + p;
        BeneathStat c = lstat(cur);
        if (c.kind == Kind::kSymlink) {
          s.via_link = cur;
          s.via_link_target = c.link_target;
          break;
        }
      }
    } else if (errno != ENOENT && errno != ENOTDIR) {
      s.error = true;
    }
    return s;
  }
  struct stat st;
  if (fstatat(parent.fd, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) s.error = true;
    return s;
  }
  s.kind = kind_of(st.st_mode);
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.ctime_ns = timespec_ns(stat_ctime(st));
  s.mtime_ns = timespec_ns(stat_mtime(st));
  if (s.kind == Kind::kSymlink) s.link_target = read_link_at(parent.fd, base);
  return s;
}

Status Beneath::rename(const std::string& rel, const std::string& dest_dir_rel,
                       const std::string& new_name) const {
  std::vector<std::string> parts = components(rel);
  if (parts.empty() || new_name.empty() || new_name.find('/') != std::string::npos)
    return make_error(ErrorKind::kInvalid, "nothing to rename", rel, EINVAL);
  std::string base = parts.back();
  parts.pop_back();
  Fd from(open_beneath(fd_.fd, join(parts, "/"), kOpenPathOnly | O_DIRECTORY));
  if (from.fd < 0)
    return make_error(ErrorKind::kIo,
                      fmt::format("cannot open the folder of {} ({})", rel, std::strerror(errno)),
                      rel, errno);
  Fd to(open_beneath(fd_.fd, dest_dir_rel, kOpenPathOnly | O_DIRECTORY));
  if (to.fd < 0)
    return make_error(ErrorKind::kIo,
                      fmt::format("cannot open {} ({})", dest_dir_rel, std::strerror(errno)),
                      dest_dir_rel, errno);
  if (rename_no_replace(from.fd, base.c_str(), to.fd, new_name.c_str()) != 0)
    return make_error(ErrorKind::kIo, fmt::format("cannot move {} ({})", rel, std::strerror(errno)),
                      rel, errno);
  return ok_status();
}

std::vector<std::string> Beneath::find_by_identity(const std::string& dir_rel, uint64_t dev,
                                                   uint64_t ino) const {
  std::vector<std::string> out;
  Fd d = open_dir(dir_rel);
  if (d.fd < 0) return out;
  for (const auto& n : list_names_at(d.fd)) {
    struct stat st;
    if (fstatat(d.fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == dev &&
        st.st_ino == ino)
      out.push_back(n);
  }
  return out;
}

std::vector<std::string> list_names_at(int dirfd) {
  std::vector<std::string> out;
  int fd = dup(dirfd);
  DIR* d = fd < 0 ? nullptr : fdopendir(fd);
  if (!d) {
    if (fd >= 0) close(fd);
    return out;
  }
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  closedir(d);
  return out;
}

}  // namespace cordon
