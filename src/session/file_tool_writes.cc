#include "session/file_tool_writes.h"

#include <sys/stat.h>

#include <algorithm>

#include "core/paths.h"
#include "host/file_open.h"

namespace cordon {

namespace {

// Adds `rel` (and the folders on its way below `entry`) to a file-by-file entry's children.
void add_children(SnapshotEntry& e, const std::string& rel) {
  for (size_t at = e.rel.size() + 1;;) {
    const size_t slash = rel.find('/', at);
    const std::string part = rel.substr(0, slash);
    bool known = false;
    for (const auto& c : e.children) known |= c.rel == part;
    if (!known)
      e.children.push_back(
          ChildFact{part, slash == std::string::npos ? Kind::kFile : Kind::kDir, ""});
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
}

// The write of `path` (its inode `dev`, `ino`) taken into `s`.
void keep_write(ProtectedSnapshot& s, const std::string& path, uint64_t dev, uint64_t ino) {
  // GIT-9: an approved write of a locked git file is the file to keep, not one to put back.
  for (auto& id : s.identities) {
    if (path_join(id.root, id.rel) != path) continue;
    id.kind = Kind::kFile;
    id.dev = dev;
    id.ino = ino;
  }
  // LL-1: an approved write of a guarded path is the version to keep: not judged.
  bool guarded = false;
  for (auto& g : s.guarded)
    if (path_join(g.root, g.rel) == path) guarded = g.unreadable = true;
  for (size_t i = 0, n = s.guarded.size(); i < n && !guarded; ++i) {
    const GuardedEntry& g = s.guarded[i];
    if (g.kind != Kind::kDir || path_parent(path) != path_join(g.root, g.rel)) continue;
    GuardedEntry w = g;  // a new file in a guarded folder, written with the user's approval
    w.rel = path_relative(path, g.root);
    w.shown = g.shown + "/" + path_base(path);
    w.in_folder = w.unreadable = guarded = true;
    s.guarded.push_back(std::move(w));
  }
  if (path == s.project || !path_within(path, s.project)) return;
  const std::string rel = path_relative(path, s.project);
  for (auto& e : s.entries) {
    if (rel == e.rel) {
      if (e.kind == Kind::kMissing) e.kind = Kind::kFile;
    } else if (path_within(rel, e.rel)) {
      // A new protected folder made by the write: only what the write made is expected in it.
      if (e.kind == Kind::kMissing) {
        e.kind = Kind::kDir;
        e.file_by_file = true;
        e.children.clear();
      }
      if (e.file_by_file) add_children(e, rel);
    }
  }
}

}  // namespace

bool FileToolWrites::stat_write(const std::string& path, Stat& out) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  out.dev = st.st_dev;
  out.ino = st.st_ino;
  out.size = static_cast<uint64_t>(st.st_size);
  out.mtime_ns = timespec_ns(stat_mtime(st));
  return true;
}

void FileToolWrites::note(const std::string& abs_path) {
  Write w;
  w.path = normalize_path(abs_path);
  if (!stat_write(w.path, w.stat)) return;
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(writes_, [&](const Write& t) { return t.path == w.path; });
  writes_.push_back(std::move(w));
  if (writes_.size() > kMax) writes_.erase(writes_.begin());
}

ProtectedSnapshot FileToolWrites::without_them(const ProtectedSnapshot& snapshot) const {
  std::vector<Write> writes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    writes = writes_;
  }
  ProtectedSnapshot s = snapshot;
  for (const auto& w : writes) {
    Stat now;
    // Only the very file written: a command that changed or replaced it gets no pass.
    if (!stat_write(w.path, now) || now != w.stat) continue;
    keep_write(s, w.path, now.dev, now.ino);
  }
  return s;
}

}  // namespace cordon
