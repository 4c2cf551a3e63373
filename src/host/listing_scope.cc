#include "host/listing_scope.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#ifdef __linux__
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#endif

#include "core/paths.h"

namespace cordon {

namespace {

thread_local ListingScope* g_current = nullptr;

#ifdef __linux__
#ifndef F2FS_SUPER_MAGIC
#define F2FS_SUPER_MAGIC 0xF2F52010
#endif
#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif

// Names compared byte for byte: the filesystems below, and a folder without case folding
// (ext4, f2fs and tmpfs can fold case per folder; the flag says so).
bool byte_exact_names(int dirfd) {
  struct statfs sf;
  if (fstatfs(dirfd, &sf) != 0) return false;
  switch (static_cast<unsigned long>(sf.f_type)) {
    case EXT4_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case TMPFS_MAGIC:
    case OVERLAYFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
      break;
    default:
      return false;
  }
  int flags = 0;
  if (ioctl(dirfd, FS_IOC_GETFLAGS, &flags) != 0) return false;
  return (flags & FS_CASEFOLD_FL) == 0;
}

// Every name in the folder, unless it has more than kListingCap (then false).
bool read_names(int fd, std::vector<std::string>& names) {
  alignas(8) char buf[32768];
  while (true) {
    long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n < 0) return false;
    if (n == 0) return true;
    for (long off = 0; off < n;) {
      auto* e = reinterpret_cast<struct dirent64*>(buf + off);
      names.emplace_back(e->d_name);
      off += e->d_reclen;
    }
    if (names.size() > ListingScope::kListingCap) return false;
  }
}
#else
bool byte_exact_names(int) { return false; }  // APFS and HFS+ fold case by default
bool read_names(int, std::vector<std::string>&) { return false; }
#endif

}  // namespace

ListingScope::ListingScope() : outer_(g_current) { g_current = this; }
ListingScope::~ListingScope() { g_current = outer_; }

ListingScope* ListingScope::current() { return g_current; }

const ListingScope::Listing& ListingScope::listing_of(const std::string& dir) {
  auto it = listings_.find(dir);
  if (it != listings_.end()) return it->second;
  Listing& l = listings_[dir];
  // A folder its own folder's listing (when already read) lacks holds nothing: no open.
  if (dir != "/") {
    auto up = listings_.find(path_parent(dir));
    if (up != listings_.end() && up->second.trusted && !up->second.has(path_base(dir))) {
      l.trusted = true;
      return l;
    }
  }
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    // The folder itself does not resolve: nothing in it exists, as lstat would say (ENOENT,
    // ENOTDIR). Any other error (EACCES, ELOOP, ...) leaves the answers to lstat.
    l.trusted = errno == ENOENT || errno == ENOTDIR;
    return l;
  }
  l.trusted = byte_exact_names(fd) && read_names(fd, l.names);
  if (!l.trusted) l.names.clear();
  std::sort(l.names.begin(), l.names.end());
  close(fd);
  return l;
}

const std::string& ListingScope::real_dir(const std::string& dir) {
  auto it = real_dirs_.find(dir);
  if (it != real_dirs_.end()) return it->second;
  std::string real;
  struct stat st;
  if (dir == "/") {
    real = "/";
  } else if (plain_absolute(dir) && lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    // A folder that is not a link is its own folder's real path and its name: one lstat per
    // folder, each remembered, instead of realpath's readlink of every component every time.
    const std::string& up = real_dir(path_parent(dir));
    if (!up.empty()) real = path_join(up, path_base(dir));
  } else if (char* r = realpath(dir.c_str(), nullptr)) {
    real = r;
    free(r);
  }
  return real_dirs_[dir] = std::move(real);
}

bool ListingScope::plain_absolute(const std::string& path) {
  return path.size() > 1 && path[0] == '/' && normalize_path(path) == path;
}

bool ListingScope::Listing::has(const std::string& name) const {
  return std::binary_search(names.begin(), names.end(), name);
}

bool ListingScope::known_missing(const std::string& path) {
  if (!plain_absolute(path)) return false;
  std::string name = path_base(path);
  if (name.empty() || name == "." || name == "..") return false;
  const std::string dir = path_parent(path);
  // A folder is listed once lstat has found it lacking kListAfterMisses names: one where most
  // of what is asked exists (/etc for its shadow files) is not worth listing.
  if (!listings_.count(dir) && misses_[dir] < kListAfterMisses) return false;
  const Listing& l = listing_of(dir);
  return l.trusted && !l.has(name);
}

void ListingScope::note_missing(const std::string& path) {
  if (plain_absolute(path)) ++misses_[path_parent(path)];
}

}  // namespace cordon
