#include "host/path_info.h"

#include <dirent.h>
#include <limits.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "core/paths.h"
#include "core/strings.h"
#include "host/file_open.h"
#include "host/listing_scope.h"

namespace cordon {

Kind kind_of(mode_t m) {
  if (S_ISREG(m)) return Kind::kFile;
  if (S_ISDIR(m)) return Kind::kDir;
  if (S_ISLNK(m)) return Kind::kSymlink;
  return Kind::kOther;
}

namespace {

// The real entry's identity, from a stat of it (or lstat's, for an entry that is not a link).
void fill_real(PathInfo& info, const struct stat& rs) {
  info.real_kind = kind_of(rs.st_mode);
  info.dev = rs.st_dev;
  info.ino = rs.st_ino;
  info.nlink = rs.st_nlink;
  info.mode = rs.st_mode;
  info.uid = rs.st_uid;
}

// PERF-1: inside a listing scope, an entry that is not a link is its folder's real path (the
// scope remembers each folder's) and its name, and lstat's answer is stat's.
bool real_from_scope(PathInfo& info, const struct stat& st) {
  ListingScope* scope = ListingScope::current();
  if (!scope || info.kind == Kind::kSymlink || !ListingScope::plain_absolute(info.path))
    return false;
  const std::string& dir = scope->real_dir(path_parent(info.path));
  if (dir.empty()) return false;
  info.real = path_join(dir, path_base(info.path));
  fill_real(info, st);
  return true;
}

}  // namespace

PathInfo read_path_info(const std::string& path) {
  PathInfo info;
  info.path = path;
  // PERF-1: within a listing scope, a name its folder does not have is missing without lstat.
  if (ListingScope* scope = ListingScope::current(); scope && scope->known_missing(path))
    return info;
  struct stat st;
  if (lstat(path.c_str(), &st) < 0) {
    if (errno != ENOENT && errno != ENOTDIR) {
      info.error = true;
      info.err = errno;
    } else if (ListingScope* scope = ListingScope::current()) {
      scope->note_missing(path);
    }
    return info;
  }
  info.kind = kind_of(st.st_mode);
  info.mtime_ns = timespec_ns(stat_mtime(st));
  info.size = static_cast<uint64_t>(st.st_size);
  if (info.kind == Kind::kSymlink) {
    char buf[PATH_MAX];
    ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
    if (n >= 0) info.link_target.assign(buf, static_cast<size_t>(n));
  }
  if (real_from_scope(info, st)) return info;
  if (char* r = realpath(path.c_str(), nullptr)) {
    info.real = r;
    free(r);
    struct stat rs;
    if (stat(info.real.c_str(), &rs) == 0) fill_real(info, rs);
  } else if (info.kind != Kind::kSymlink) {
    // Exists but cannot be resolved (an unsearchable parent): keep lstat's view.
    info.real = path;
    fill_real(info, st);
  }
  return info;
}

std::vector<std::string> expand_last_glob(const std::string& pattern) {
  std::string base = path_base(pattern);
  if (base.find_first_of("*?") == std::string::npos) return {pattern};
  std::string dir = path_parent(pattern);
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (glob_match(base, name)) out.push_back(path_join(dir, name));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string real_or_lexical(const std::string& path) {
  std::string p = normalize_path(path);
  std::string rest;
  while (true) {
    char* r = realpath(p.c_str(), nullptr);
    if (r) {
      std::string out = r;
      free(r);
      return rest.empty() ? out : path_join(out, rest);
    }
    if (p == "/" || p == "." || p.empty()) return normalize_path(path);
    rest = rest.empty() ? path_base(p) : path_base(p) + "/" + rest;
    p = path_parent(p);
  }
}

std::string passwd_home() {
  struct passwd* pw = getpwuid(getuid());
  if (pw && pw->pw_dir) return pw->pw_dir;
  return "/";
}

bool searchable_without_caps(const PathInfo& info, uint32_t euid, uint32_t egid) {
  if (info.real_kind != Kind::kDir) return false;
  mode_t m = info.mode;
  // Inside the sandbox the command holds no capabilities, so root is judged by the bits too.
  if (info.uid == euid) return (m & S_IXUSR) && (m & S_IRUSR);
  (void)egid;
  if ((m & S_IXGRP) && (m & S_IRGRP)) return true;
  return (m & S_IXOTH) && (m & S_IROTH);
}

}  // namespace cordon
