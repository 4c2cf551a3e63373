#include "host/guard_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "core/paths.h"
#include "host/beneath.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// The Beneath of each root, opened once per read.
class Roots {
 public:
  explicit Roots(std::string project) : project_(std::move(project)) {}

  const Beneath* get(const std::string& root) {
    auto it = open_.find(root);
    if (it != open_.end()) return it->second.get();
    auto b = Beneath::open_within(project_, root);
    auto& slot = open_[root];
    if (b.ok()) slot = std::make_unique<Beneath>(std::move(*b));
    return slot.get();
  }

 private:
  std::string project_;
  std::map<std::string, std::unique_ptr<Beneath>> open_;
};

std::string child_shown(const std::string& shown, const std::string& name) {
  return shown.empty() ? name : shown + "/" + name;
}

// The bytes of the regular file `fd` (already fstat'ed to `size` bytes); false when short.
bool read_all(int fd, uint64_t size, std::string& out) {
  out.resize(size);
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, out.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  char extra;
  if (got != size || read(fd, &extra, 1) != 0) {
    out.clear();
    return false;
  }
  return true;
}

// Reads one entry beneath `b`; `budget` is what is left of kGuardTotalBytes (nullptr: read the
// bytes whatever the total, when `want_bytes`).
void read_entry(const Beneath& b, GuardedEntry& e, bool want_bytes, uint64_t* budget) {
  BeneathStat st = b.lstat(e.rel);
  if (st.error) {
    e.unreadable = true;
    return;
  }
  e.kind = st.via_link.empty() ? st.kind : Kind::kMissing;  // past a link: not in the root
  e.dev = st.dev;
  e.ino = st.ino;
  if (e.kind == Kind::kSymlink) e.link_target = st.link_target;
  if (e.kind != Kind::kFile && e.kind != Kind::kDir) return;
  Fd fd = e.kind == Kind::kDir
              ? b.open_dir(e.rel)
              : Fd(open_beneath(b.fd(), e.rel, O_RDONLY | O_NONBLOCK | O_NOCTTY));
  struct stat s;
  if (fd.fd < 0 || fstat(fd.fd, &s) != 0) {
    e.unreadable = true;
    return;
  }
  e.dev = s.st_dev;
  e.ino = s.st_ino;
  e.mode = s.st_mode & 07777;
  if (e.kind == Kind::kDir) return;
  if (!S_ISREG(s.st_mode)) {
    e.kind = Kind::kOther;
    return;
  }
  e.size = static_cast<uint64_t>(s.st_size);
  if (!want_bytes || e.size > kGuardFileBytes || (budget && e.size > *budget)) return;
  e.has_content = read_all(fd.fd, e.size, e.content);
  if (e.has_content && budget) *budget -= e.size;
}

// The entries below the folder `dir` (read already), parents first; marks it listed when every
// one fit within kGuardEntries.
void read_below(const Beneath& b, GuardedEntry dir, const std::vector<std::string>& skip,
                std::vector<GuardedEntry>& out,
                std::set<std::pair<std::string, std::string>>& seen, uint64_t& budget) {
  Fd fd = b.open_dir(dir.rel);
  if (fd.fd < 0) return;
  std::vector<std::string> names = list_names_at(fd.fd);
  std::sort(names.begin(), names.end());
  const size_t at = out.size() - 1;  // `dir` itself, just added
  bool whole = true;
  for (const auto& n : names) {
    if (out.size() >= kGuardEntries) {
      whole = false;
      break;
    }
    GuardedEntry c;
    c.root = dir.root;
    c.rel = dir.rel.empty() ? n : dir.rel + "/" + n;
    c.shown = child_shown(dir.shown, n);
    c.in_folder = true;
    if (!seen.insert({c.root, c.rel}).second) continue;
    if (std::find(skip.begin(), skip.end(), c.rel) != skip.end()) {
      c.unreadable = true;  // left writable: known, never judged
      out.push_back(c);
      continue;
    }
    read_entry(b, c, true, &budget);
    out.push_back(c);
    if (c.kind == Kind::kDir) read_below(b, c, skip, out, seen, budget);
  }
  out[at].listed = whole;
}

int put_entry(int dirfd, const std::string& name, const GuardedEntry& e, std::string& tmp) {
  if (e.kind == Kind::kDir) return mkdirat(dirfd, name.c_str(), e.mode ? (e.mode & 0777) : 0755);
  if (e.kind == Kind::kSymlink) return symlinkat(e.link_target.c_str(), dirfd, name.c_str());
  tmp = "." + name + ".cordon-restore-" + random_hex16();
  Fd fd(openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.fd < 0) return -1;
  if (int err = write_fully(fd.fd, e.content.data(), e.content.size()); err != 0) {
    errno = err;  // the caller names it
    return -1;
  }
  if (fchmod(fd.fd, e.mode & 0777) != 0 || fsync(fd.fd) != 0) return -1;
  return 0;
}

}  // namespace

std::vector<GuardedEntry> read_guarded(const std::vector<GuardTarget>& targets,
                                       const std::string& project) {
  std::vector<GuardedEntry> out;
  std::set<std::pair<std::string, std::string>> seen;
  uint64_t budget = kGuardTotalBytes;
  Roots roots(project);
  for (const auto& t : targets) {
    const Beneath* b = roots.get(t.root);
    if (!b || out.size() >= kGuardEntries || !seen.insert({t.root, t.rel}).second) continue;
    GuardedEntry e;
    e.root = t.root;
    e.rel = t.rel;
    e.shown = t.shown;
    read_entry(*b, e, true, &budget);
    out.push_back(e);
    if (e.kind == Kind::kDir) read_below(*b, e, t.skip, out, seen, budget);
  }
  return out;
}

std::vector<GuardedEntry> read_guarded_after(const std::vector<GuardedEntry>& before,
                                             const std::string& project) {
  std::vector<GuardedEntry> out;
  std::set<std::pair<std::string, std::string>> known;
  for (const auto& b : before) known.insert({b.root, b.rel});
  Roots roots(project);
  for (const auto& b : before) {
    GuardedEntry a;
    a.root = b.root;
    a.rel = b.rel;
    a.shown = b.shown;
    a.in_folder = b.in_folder;
    const Beneath* root = roots.get(b.root);
    if (!root) {
      a.unreadable = true;
      out.push_back(a);
      continue;
    }
    read_entry(*root, a, b.has_content, nullptr);
    out.push_back(a);
    if (b.kind != Kind::kDir || !b.listed || a.kind != Kind::kDir) continue;
    Fd fd = root->open_dir(b.rel);
    if (fd.fd < 0) continue;
    for (const auto& n : list_names_at(fd.fd)) {
      GuardedEntry c;
      c.root = b.root;
      c.rel = b.rel.empty() ? n : b.rel + "/" + n;
      if (known.count({c.root, c.rel})) continue;
      c.shown = child_shown(b.shown, n);
      c.in_folder = true;
      read_entry(*root, c, false, nullptr);
      out.push_back(c);
    }
  }
  return out;
}

Status put_back(const GuardedEntry& e, const std::string& project) {
  auto b = Beneath::open_within(project, e.root);
  if (!b.ok()) return b.error();
  const std::string parent = path_parent("/" + e.rel).substr(1);
  const std::string name = path_base("/" + e.rel);
  Fd dir = b->open_dir(parent);
  if (dir.fd < 0) return make_error(ErrorKind::kIo, "cannot open its folder", e.rel, errno);
  std::string tmp;
  if (put_entry(dir.fd, name, e, tmp) != 0) {
    const int err = errno;
    if (!tmp.empty()) unlinkat(dir.fd, tmp.c_str(), 0);  // cordon's own temporary file
    return make_error(ErrorKind::kIo, "cannot write it", e.rel, err);
  }
  if (tmp.empty()) return ok_status();
  // Renamed into place, never replacing what a command may have put there meanwhile.
  Status st = b->rename(parent.empty() ? tmp : parent + "/" + tmp, parent, name);
  if (!st.ok()) unlinkat(dir.fd, tmp.c_str(), 0);
  return st;
}

}  // namespace cordon
