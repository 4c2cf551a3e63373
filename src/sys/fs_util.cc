#include "sys/fs_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

Status make_dirs(const std::string& path, mode_t mode) {
  std::string p = normalize_path(path);
  struct stat st;
  if (stat(p.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return ok_status();
    return make_error(ErrorKind::kIo, fmt::format("{} exists but is not a folder", p), p, ENOTDIR);
  }
  if (p != "/") {
    if (auto s = make_dirs(path_parent(p), mode); !s.ok()) return s;
  }
  if (mkdir(p.c_str(), mode) < 0 && errno != EEXIST)
    return make_error(ErrorKind::kIo,
                      fmt::format("cannot create the folder {} ({})", p, std::strerror(errno)), p,
                      errno);
  return ok_status();
}

int high_fd(int fd) {
  if (fd < 0) return fd;
  if (fd >= 10) {
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
  }
  int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return h;
}

int write_fully(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    if (w == 0) return EIO;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

Status write_file_atomic(const std::string& path, const std::string& data, bool sync,
                         mode_t mode) {
  std::string tmp = fmt::format("{}.tmp-{}-{}", path, getpid(), random_hex16().substr(0, 6));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0)
    return make_error(ErrorKind::kIo,
                      fmt::format("cannot write {} ({})", path, std::strerror(errno)), path, errno);
  if (int e = write_fully(fd, data.data(), data.size()); e != 0) {
    ::close(fd);
    unlink(tmp.c_str());
    return make_error(ErrorKind::kIo, fmt::format("cannot write {} ({})", path, std::strerror(e)),
                      path, e);
  }
  if (sync && fsync(fd) < 0) {
    int e = errno;
    ::close(fd);
    unlink(tmp.c_str());
    return make_error(ErrorKind::kIo, fmt::format("cannot write {} ({})", path, std::strerror(e)),
                      path, e);
  }
  ::close(fd);
  if (rename(tmp.c_str(), path.c_str()) < 0) {
    int e = errno;
    unlink(tmp.c_str());
    return make_error(ErrorKind::kIo, fmt::format("cannot write {} ({})", path, std::strerror(e)),
                      path, e);
  }
  return ok_status();
}

Status write_file_exclusive(const std::string& path, const std::string& data, mode_t mode) {
  std::string tmp = fmt::format("{}.tmp-{}-{}", path, getpid(), random_hex16().substr(0, 6));
  if (auto s = write_file_atomic(tmp, data, false, mode); !s.ok()) return s;
  // link() never replaces: the name is ours only if nobody made it first.
  int rc = link(tmp.c_str(), path.c_str());
  int e = errno;
  unlink(tmp.c_str());
  if (rc != 0)
    return make_error(ErrorKind::kIo, fmt::format("cannot write {} ({})", path, std::strerror(e)),
                      path, e);
  return ok_status();
}

namespace {

Result<std::string> read_regular(const std::string& path, size_t max_bytes, int extra_flags) {
  // O_NONBLOCK: a FIFO (or a device) planted where a file was expected opens without waiting
  // for a writer, and is refused below instead of hanging cordon (GIT-8).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | extra_flags);
  if (fd < 0)
    return make_error(ErrorKind::kIo,
                      fmt::format("cannot read {} ({})", path, std::strerror(errno)), path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorKind::kIo, fmt::format("cannot read {} (not a regular file)", path),
                      path, EINVAL);
  }
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return make_error(ErrorKind::kIo, fmt::format("cannot read {} ({})", path, std::strerror(e)),
                        path, e);
    }
    if (r == 0) break;
    out.append(buf, static_cast<size_t>(r));
    if (out.size() > max_bytes) {
      ::close(fd);
      return make_error(ErrorKind::kIo, fmt::format("{} is larger than {} bytes", path, max_bytes),
                        path, EFBIG);
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

Result<std::string> read_file(const std::string& path, size_t max_bytes) {
  return read_regular(path, max_bytes, 0);
}

Result<std::string> read_file_nofollow(const std::string& path, size_t max_bytes) {
  return read_regular(path, max_bytes, O_NOFOLLOW);
}

namespace {
int remove_at(int dirfd, const char* name) {
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    fchmod(fd, 0700);  // a folder the command left without write permission
    DIR* d = fdopendir(fd);
    if (d) {
      while (dirent* e = readdir(d)) {
        if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
        remove_at(fd, e->d_name);
      }
      closedir(d);
    } else {
      ::close(fd);
    }
    // A command may leave folders without write permission; restore it to empty them.
    if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0) return -1;
    return 0;
  }
  if (unlinkat(dirfd, name, 0) < 0 && errno == EISDIR) {
    fchmodat(dirfd, name, 0700, 0);
    return remove_at(dirfd, name);
  }
  return 0;
}
}  // namespace

Status remove_tree(const std::string& path) {
  std::string parent = path_parent(path), base = path_base(path);
  int pfd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pfd < 0) return ok_status();
  // Make unreadable sub-folders readable first: a command can chmod 000 in its own /tmp.
  int fd = openat(pfd, base.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) ::close(fd);
  int rc = remove_at(pfd, base.c_str());
  ::close(pfd);
  if (rc < 0 && errno != ENOENT)
    return make_error(ErrorKind::kIo,
                      fmt::format("cannot remove {} ({})", path, std::strerror(errno)), path,
                      errno);
  return ok_status();
}

std::string random_hex16() {
  unsigned char b[8];
  size_t got = 0;
  while (got < sizeof b) {
    ssize_t r = getrandom(b + got, sizeof b - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    got += static_cast<size_t>(r);
  }
  return hex(b, sizeof b);
}

}  // namespace cordon
