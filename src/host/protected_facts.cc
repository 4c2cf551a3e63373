#include "host/protected_facts.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "core/paths.h"
#include "core/strings.h"
#include "host/beneath.h"
#include "host/listing_scope.h"
#include "host/path_info.h"

namespace cordon {

namespace {

// A folder a command holding no capabilities could not list or search (FS-10). Root reads it
// anyway, so the permission bits decide, not whether opendir works for us.
bool unreadable_dir(const std::string& abs) {
  PathInfo info = read_path_info(abs);
  if (info.real_kind != Kind::kDir) return false;
  return !searchable_without_caps(info, geteuid(), getegid());
}

// Lists a folder's entries recursively through descriptors (a link is never followed, and a
// folder swapped for a link while it is read is not entered), stopping past `cap`.
void walk(int dirfd, const std::string& rel, size_t cap, ProtectedFact& f) {
  struct stat self;
  PathInfo info;
  info.kind = info.real_kind = Kind::kDir;
  if (fstat(dirfd, &self) == 0) {
    info.mode = self.st_mode;
    info.uid = self.st_uid;
  }
  if (info.mode == 0 || !searchable_without_caps(info, geteuid(), getegid())) {
    f.unreadable = true;
    f.unreadable_dirs.push_back(rel);
    return;
  }
  int list_fd = dup(dirfd);
  DIR* d = list_fd < 0 ? nullptr : fdopendir(list_fd);
  if (!d) {
    if (list_fd >= 0) close(list_fd);
    f.unreadable = true;
    f.unreadable_dirs.push_back(rel);
    return;
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    if (f.entry_count > cap) return;
    std::string child_rel = rel + "/" + name;
    struct stat st;
    Kind k = Kind::kOther;
    if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
      k = S_ISREG(st.st_mode)   ? Kind::kFile
          : S_ISDIR(st.st_mode) ? Kind::kDir
          : S_ISLNK(st.st_mode) ? Kind::kSymlink
                                : Kind::kOther;
    ++f.entry_count;
    ChildFact c{child_rel, k, ""};
    if (k == Kind::kSymlink) {
      char buf[PATH_MAX];
      ssize_t n = readlinkat(dirfd, name.c_str(), buf, sizeof buf - 1);
      if (n >= 0) c.link_target.assign(buf, static_cast<size_t>(n));
    }
    f.children.push_back(std::move(c));
    if (k != Kind::kDir) continue;
    int sub = openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) {
      f.unreadable = true;
      f.unreadable_dirs.push_back(child_rel);
      continue;
    }
    walk(sub, child_rel, cap, f);
    close(sub);
  }
}

// The files git tracks at or under `rel`.
std::vector<std::string> tracked_under(const GitFacts& git, const std::string& rel) {
  std::vector<std::string> out;
  for (const auto& t : git.tracked)
    if (t == rel || starts_with(t, rel + "/")) out.push_back(t);
  return out;
}

}  // namespace

std::vector<ProtectedFact> read_protected_facts(const std::vector<ProtectEntry>& entries,
                                                const std::string& project,
                                                const GitFacts& git) {
  std::vector<ProtectedFact> out;
  ListingScope listings;  // PERF-1: reads only, so no listing goes stale within it
  auto beneath = Beneath::open(project);
  for (const auto& e : entries) {
    if (e.anywhere) continue;  // `**/` entries are for the file tools only (PROT-1)
    ProtectedFact f;
    f.rel = e.rel;
    f.folder = e.folder;
    f.why = e.why;
    // Most protected names are not in the project: when the first folder on the way is not
    // there, there is no link on the way and no folder to search either.
    const std::string first = e.rel.substr(0, e.rel.find('/'));
    if (listings.known_missing(path_join(project, first))) {
      f.info.path = path_join(project, e.rel);
      f.tracked = tracked_under(git, e.rel);
      out.push_back(std::move(f));
      continue;
    }
    f.info = read_path_info(path_join(project, e.rel));
    // FS-2, PROT-7: a link on the way (`.cargo -> ~/.cargo`) is noted, never walked through.
    BeneathStat bs = beneath.ok() ? beneath->lstat(e.rel) : BeneathStat{};
    f.via_link = bs.via_link;
    f.via_link_target = bs.via_link_target;
    // A parent folder the command made unsearchable hides the entry (FS-10).
    std::string parent = path_parent(e.rel);
    while (parent != "." && !parent.empty()) {
      if (unreadable_dir(path_join(project, parent))) {
        f.unreadable = true;
        f.unreadable_dirs.push_back(parent);
      }
      parent = path_parent(parent);
    }
    if (f.info.kind == Kind::kDir && f.via_link.empty() && beneath.ok()) {
      Fd dir = beneath->open_dir(e.rel);
      if (dir.fd >= 0) {
        walk(dir.fd, e.rel, kProtectedFolderCap, f);
      } else {
        f.unreadable = true;
        f.unreadable_dirs.push_back(e.rel);
      }
    }
    f.tracked = tracked_under(git, e.rel);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace cordon
