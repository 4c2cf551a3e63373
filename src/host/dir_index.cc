#include "host/dir_index.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <optional>
#include <set>
#include <string_view>

#include "core/paths.h"
#include "core/strings.h"
#include "host/file_open.h"
#include "host/path_info.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// v3: PROT-1 entries below the root are recorded (an index without them would take the
// user's own for new ones).
constexpr const char* kIndexMagic = "cordon-dir-index-v3";

Kind kind_at(int dirfd, const char* name) {
  struct stat st;
  if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return Kind::kMissing;
  return kind_of(st.st_mode);
}

std::string child_rel(const std::string& rel, const std::string& name) {
  return rel.empty() ? name : rel + "/" + name;
}

std::string identity_at(int dirfd, const char* path) {
  struct stat st;
  if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) != 0) return "-";
  const timespec ct = stat_ctime(st);
  return fmt::format("{}.{}.{}", st.st_ino, ct.tv_sec, ct.tv_nsec);
}

// The print of a `.git` entry (planted_rules.h): a file's identity, a folder's with its config's
// and hooks folder's.
std::string git_print(int dirfd, Kind k) {
  struct stat st;
  if (fstatat(dirfd, ".git", &st, AT_SYMLINK_NOFOLLOW) != 0) return "";
  if (k != Kind::kDir) return "f" + identity_at(dirfd, ".git");
  return fmt::format("d{}/{}/{}", st.st_ino, identity_at(dirfd, ".git/config"),
                     identity_at(dirfd, ".git/hooks"));
}

// One folder, listed: its record, its watched names with kinds, its child folders.
struct Listing {
  DirRecord rec;
  std::vector<std::pair<Watched, Kind>> names;
  std::vector<std::string> subdirs;
};

bool list_folder(const Beneath& b, const std::string& rel, int64_t now, Listing& l,
                 bool* denied = nullptr) {
  Fd fd = b.open_dir(rel);
  if (fd.fd < 0) {
    // FS-10: a folder that is there but cannot be listed (chmod 100/000 as an unprivileged
    // user) is never skipped silently: what is below it cannot be judged.
    if (denied) *denied = errno == EACCES || errno == EPERM;
    return false;
  }
  struct stat st;
  if (fstat(fd.fd, &st) != 0) return false;
  l.rec.rel = rel;
  l.rec.ino = st.st_ino;
  l.rec.ctime_ns = timespec_ns(stat_ctime(st));
  l.rec.racy = now - l.rec.ctime_ns < kRacyNs;
  int list_fd = dup(fd.fd);
  DIR* d = list_fd < 0 ? nullptr : fdopendir(list_fd);
  if (!d) {
    if (list_fd >= 0) close(list_fd);
    return false;
  }
  while (dirent* e = readdir(d)) {
    const char* n = e->d_name;
    if (!strcmp(n, ".") || !strcmp(n, "..")) continue;
    bool watched = watched_entry(rel, n);  // PROT-6: planted names and PROT-1 entries
    Kind k = Kind::kOther;
    if (e->d_type == DT_DIR) k = Kind::kDir;
    if (watched || e->d_type == DT_UNKNOWN) k = kind_at(fd.fd, n);
    if (watched) {
      Watched w{n, strcmp(n, ".git") == 0 ? git_print(fd.fd, k) : ""};
      l.names.push_back({w, k});
      l.rec.names.push_back(w);
    }
    // Git's own folders are not walked: their insides change with every commit.
    if (k == Kind::kDir && strcmp(n, ".git") != 0) l.subdirs.push_back(child_rel(rel, n));
  }
  closedir(d);
  std::sort(l.rec.names.begin(), l.rec.names.end());
  return true;
}

// Walks `start` and every folder below it; each is recorded, and reported as fresh when
// `changes` is given.
void walk(const Beneath& b, const std::string& start, int64_t now, DirIndex& idx,
          std::vector<DirChange>* changes, std::vector<std::string>* unlistable = nullptr) {
  std::deque<std::string> todo = {start};
  while (!todo.empty()) {
    if (idx.dirs.size() >= kDirIndexCap) {
      idx.complete = false;
      return;
    }
    std::string rel = std::move(todo.front());
    todo.pop_front();
    Listing l;
    bool denied = false;
    if (!list_folder(b, rel, now, l, &denied)) {
      if (denied && unlistable) unlistable->push_back(rel);
      continue;
    }
    if (changes) changes->push_back(DirChange{rel, true, l.names});
    for (auto& s : l.subdirs) todo.push_back(std::move(s));
    idx.dirs.push_back(std::move(l.rec));
  }
}

void sort_index(DirIndex& idx) {
  auto by_rel = [](const DirRecord& a, const DirRecord& b) { return a.rel < b.rel; };
  if (!std::is_sorted(idx.dirs.begin(), idx.dirs.end(), by_rel))  // as a refresh mostly leaves it
    std::sort(idx.dirs.begin(), idx.dirs.end(), by_rel);
}

// A folder whose entries did not change may still hold a `.git` that did (a `gitdir:` file
// rewritten, a nested repository's config or hooks changed).
bool git_changed(int dirfd, const DirRecord& old) {
  for (const auto& w : old.names) {
    if (w.name != ".git") continue;
    Kind k = w.print.rfind("d", 0) == 0 ? Kind::kDir : Kind::kFile;
    if (git_print(dirfd, k) != w.print) return true;
  }
  return false;
}

// True when `rel` or one of its parent folders is in `set`.
bool under_any(const std::string& rel, const std::set<std::string>& set) {
  if (set.empty()) return false;
  for (std::string p = rel;;) {
    if (set.count(p)) return true;
    size_t slash = p.rfind('/');
    if (slash == std::string::npos) return false;
    p.resize(slash);
  }
}

// The quick look (PERF-3): true when the folder recorded as `old` is unchanged, by one
// fstatat from the root. The path may pass through a link a command put on the way (a
// component's own record, earlier in the sorted index, sees that link and drops everything
// below it), but an answer of "unchanged" needs the very inode recorded with the very ctime,
// which only that folder has: what a link leads to elsewhere does not match and is looked at
// the careful way (open_dir, no link anywhere). A folder with a `.git` is always looked at the
// careful way, as its git entry's print is read through the folder's descriptor.
bool unchanged_at_a_glance(const Beneath& b, const DirRecord& old) {
  if (old.racy) return false;
  for (const auto& w : old.names)
    if (w.name == ".git") return false;
  struct stat st;
  const char* rel = old.rel.empty() ? "." : old.rel.c_str();
  if (fstatat(b.fd(), rel, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) return false;
  return st.st_ino == old.ino && timespec_ns(stat_ctime(st)) == old.ctime_ns;
}

}  // namespace

std::string dir_index_file(const std::string& cache_dir, const std::string& project) {
  return path_join(cache_dir, fmt::format("dir-index/{:016x}", std::hash<std::string>{}(project)));
}

namespace {

// The fields of the index file, one after the other. The writer ends every field with a NUL:
// `next` fails on a field without one (the file was cut short) and once the text is used up.
class Fields {
 public:
  explicit Fields(std::string_view text) : text_(text) {}
  bool next(std::string_view& field) {
    std::string_view rest = text_.substr(at_);
    size_t len = rest.find('\0');
    if (len == std::string_view::npos) return false;
    field = rest.substr(0, len);
    at_ += len + 1;
    return true;
  }
  bool more() const { return at_ < text_.size(); }

 private:
  std::string_view text_;
  size_t at_ = 0;
};

template <typename T>
bool number(std::string_view f, T& out) {
  auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), out);
  return ec == std::errc() && ptr == f.data() + f.size();
}

// One record's watched names: `name[:print]` joined by '|'.
std::vector<Watched> watched_names(std::string_view field) {
  std::vector<Watched> names;
  if (field.empty()) return names;  // most folders
  for (const auto& n : split(field, '|')) {
    if (n.empty()) continue;
    size_t colon = n.find(':');
    names.push_back(
        Watched{n.substr(0, colon), colon == std::string::npos ? "" : n.substr(colon + 1)});
  }
  return names;
}

// PERF-3: read in place (views and from_chars), as it is read before each command.
std::optional<DirIndex> parse_dir_index(const std::string& file, const std::string& root) {
  auto text = read_file(file, 512 << 20);
  if (!text.ok()) return std::nullopt;
  Fields in(*text);
  std::string_view magic, for_root, complete;
  if (!in.next(magic) || magic != kIndexMagic || !in.next(for_root) || for_root != root ||
      !in.next(complete))
    return std::nullopt;
  DirIndex idx;
  idx.complete = complete == "1";
  while (in.more()) {  // a record cut short makes the whole file unusable
    std::string_view rel, ino, ctime, racy, names;
    DirRecord r;
    if (!in.next(rel) || !in.next(ino) || !in.next(ctime) || !in.next(racy) || !in.next(names) ||
        !number(ino, r.ino) || !number(ctime, r.ctime_ns))
      return std::nullopt;
    r.rel = std::string(rel);
    r.racy = racy == "1";
    r.names = watched_names(names);
    idx.dirs.push_back(std::move(r));
  }
  if (idx.dirs.empty()) return std::nullopt;
  sort_index(idx);
  return idx;
}

}  // namespace

std::vector<std::string> indexed_nested_git(const std::string& file, const std::string& project) {
  std::vector<std::string> out;
  auto idx = parse_dir_index(file, project);
  if (!idx) return out;
  for (const auto& d : idx->dirs)
    for (const auto& w : d.names)
      if (!d.rel.empty() && w.name == ".git" && w.print.rfind("d", 0) == 0)
        out.push_back(d.rel + "/.git");
  return out;
}

DirIndex load_dir_index(const Beneath& project, const std::string& file, bool* built) {
  if (built) *built = false;
  if (auto idx = parse_dir_index(file, project.root())) return std::move(*idx);
  if (built) *built = true;
  DirIndex idx;
  walk(project, "", now_ns(), idx, nullptr);
  sort_index(idx);
  return idx;
}

DirRefresh refresh_dir_index(const Beneath& b, const DirIndex& index) {
  DirRefresh r;
  r.index.complete = index.complete;
  r.index.dirs.reserve(index.dirs.size());
  const int64_t now = now_ns();
  auto known = [&index](const std::string& rel) {  // index.dirs is sorted by rel
    return std::ranges::binary_search(index.dirs, rel, {}, &DirRecord::rel);
  };
  std::set<std::string> gone;  // folders dropped or walked afresh: their old records are skipped
  // FS-10: a folder that is there but cannot be listed is kept as it was (looked at again next
  // time) and reported.
  auto keep_unlistable = [&r](const DirRecord& old) {
    r.unlistable.push_back(old.rel);
    DirRecord kept = old;
    kept.racy = true;
    r.index.dirs.push_back(std::move(kept));
    r.changed = true;
  };
  for (const auto& old : index.dirs) {
    if (!old.rel.empty() && under_any(old.rel, gone)) continue;
    if (unchanged_at_a_glance(b, old)) {
      r.index.dirs.push_back(old);
      continue;
    }
    Listing l;
    Fd probe = b.open_dir(old.rel);
    struct stat st;
    if (probe.fd < 0 && (errno == EACCES || errno == EPERM)) {
      keep_unlistable(old);  // everything below it keeps its records
      continue;
    }
    if (probe.fd < 0 || fstat(probe.fd, &st) != 0) {
      gone.insert(old.rel), r.changed = true;  // removed, or now a link
      continue;
    }
    int64_t ctime = timespec_ns(stat_ctime(st));
    if (st.st_ino != old.ino) {
      gone.insert(old.rel), r.changed = true;  // replaced: everything in it is new
      walk(b, old.rel, now, r.index, &r.changes, &r.unlistable);
      continue;
    }
    if (ctime == old.ctime_ns && !old.racy && !git_changed(probe.fd, old)) {
      r.index.dirs.push_back(old);
      continue;
    }
    bool denied = false;
    if (!list_folder(b, old.rel, now, l, &denied)) {
      if (denied) {
        keep_unlistable(old);
        continue;
      }
      gone.insert(old.rel), r.changed = true;
      continue;
    }
    r.changed |=
        l.rec.ctime_ns != old.ctime_ns || l.rec.names != old.names || l.rec.racy != old.racy;
    r.changes.push_back(DirChange{old.rel, false, l.names});
    r.index.dirs.push_back(l.rec);
    for (const auto& s : l.subdirs)
      if (!known(s)) {
        r.changed = true;
        walk(b, s, now, r.index, &r.changes, &r.unlistable);
      }
  }
  sort_index(r.index);
  return r;
}

Status save_dir_index(const std::string& file, const std::string& project, const DirIndex& idx) {
  std::string out = std::string(kIndexMagic) + '\0' + project + '\0' + (idx.complete ? "1" : "0");
  out += '\0';
  for (const auto& d : idx.dirs) {
    std::vector<std::string> names;
    for (const auto& w : d.names)
      names.push_back(w.print.empty() ? w.name : w.name + ":" + w.print);
    out += fmt::format("{}{}{}{}{}{}{}{}{}{}", d.rel, '\0', d.ino, '\0', d.ctime_ns, '\0',
                       d.racy ? "1" : "0", '\0', join(names, "|"), '\0');
  }
  if (auto st = make_dirs(path_parent(file), 0700); !st.ok()) return st;
  return write_file_atomic(file, out, false);
}

}  // namespace cordon
