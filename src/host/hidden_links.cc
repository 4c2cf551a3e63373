#include "host/hidden_links.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <map>
#include <set>

#include "core/paths.h"
#include "core/strings.h"
#include "host/file_open.h"
#include "host/path_info.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

constexpr const char* kLinksMagic = "cordon-hidden-links-v1";

struct LinkWalk {
  const HiddenLinkLimits& limits;
  const std::function<bool(const std::string&)>& kept_visible;
  HiddenLinkScan scan;
  std::vector<std::string> roots;  // every folder walked whole (hidden ones, then link targets)
  std::vector<std::string> shown;  // how each root is named
  std::vector<size_t> origin;      // for each root, the caller's root it was reached from
  std::set<std::string> found;     // link targets already recorded
  HiddenLinkCache* cache = nullptr;
  std::map<std::string, HiddenDirListing> walked;  // this walk's listings, for the cache

  bool inside_a_root(const std::string& p) const {
    for (const auto& r : roots)
      if (path_within(p, r)) return true;
    return false;
  }

  std::string refuse(const std::string& what, const std::string& folder) {
    scan.links.clear();
    scan.refusal = fmt::format(
        "cordon hides the targets of links inside hidden folders, but {} {}; the "  // FS-5
        "command was not run. Fix: remove what you do not need from {} (or move links to "
        "secrets out of it), or run the command with --outside-sandbox (outside_sandbox: "
        "true).",
        folder, what, folder);
    return scan.refusal;
  }

  // A link below root `ri`: records its target when it lies outside every walked folder, and
  // walks a target folder as a root of its own. False when a bound was passed.
  bool on_link(const std::string& path, size_t ri,
               std::vector<std::pair<std::string, size_t>>& todo) {
    PathInfo info = read_path_info(path);
    if (info.real.empty() || inside_a_root(info.real)) return true;
    if (!found.insert(info.real).second) return true;
    if (found.size() > limits.max_targets) {
      refuse(fmt::format("holds links to more than {} places", limits.max_targets), shown[ri]);
      return false;
    }
    if (info.real_kind == Kind::kDir && !kept_visible(info.real)) {
      roots.push_back(info.real);
      shown.push_back(shown[ri]);
      origin.push_back(origin[ri]);
      todo.emplace_back(info.real, roots.size() - 1);
    }
    scan.links.push_back(HiddenLink{std::move(info), origin[ri]});
    return true;
  }

  // One folder's listing: the cached one while the folder is unchanged, else read now.
  // False when it cannot be listed (unreadable to cordon, so to the command too).
  bool listing_of(const std::string& dir, HiddenDirListing& out) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    if (fstat(fd, &st) != 0) {
      ::close(fd);
      return false;
    }
    const int64_t ctime = timespec_ns(stat_ctime(st));
    if (cache) {
      auto it = cache->dirs.find(dir);
      if (it != cache->dirs.end() && !it->second.racy && it->second.dev == st.st_dev &&
          it->second.ino == st.st_ino && it->second.ctime_ns == ctime) {
        ::close(fd);
        out = it->second;
        return true;
      }
    }
    DIR* d = fdopendir(fd);
    if (!d) {
      ::close(fd);
      return false;
    }
    out = HiddenDirListing{};
    out.dev = st.st_dev;
    out.ino = st.st_ino;
    out.ctime_ns = ctime;
    out.racy = now_ns() - ctime < kRacyNs;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      ++out.entries;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat est;
        if (fstatat(dirfd(d), e->d_name, &est, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(est.st_mode) ? DT_DIR : S_ISLNK(est.st_mode) ? DT_LNK : DT_REG;
      }
      if (type == DT_DIR) out.subdirs.push_back(std::move(name));
      else if (type == DT_LNK) out.links.push_back(std::move(name));
    }
    closedir(d);
    if (cache) cache->changed = true;
    return true;
  }

  // Lists one folder; false when a bound was passed.
  bool list(const std::string& dir, size_t ri, std::vector<std::pair<std::string, size_t>>& todo) {
    HiddenDirListing l;
    if (!listing_of(dir, l)) return true;
    scan.entries_seen += l.entries;
    if (scan.entries_seen > limits.max_entries) {
      refuse(fmt::format("holds more than {} entries to search", limits.max_entries), shown[ri]);
      return false;
    }
    for (const auto& name : l.subdirs) todo.emplace_back(path_join(dir, name), ri);
    for (const auto& name : l.links)
      if (!on_link(path_join(dir, name), ri, todo)) return false;
    if (cache) walked.emplace(dir, std::move(l));
    return true;
  }
};

}  // namespace

HiddenLinkScan scan_hidden_links(const std::vector<std::string>& roots,
                                 const std::vector<std::string>& shown,
                                 const std::function<bool(const std::string&)>& kept_visible,
                                 const HiddenLinkLimits& limits, HiddenLinkCache* cache) {
  LinkWalk w{limits, kept_visible, {}, {}, {}, {}, {}, cache, {}};
  std::vector<std::pair<std::string, size_t>> todo;
  for (size_t i = 0; i < roots.size(); ++i) {
    std::string r = normalize_path(roots[i]);
    if (w.inside_a_root(r)) continue;
    w.roots.push_back(r);
    w.shown.push_back(i < shown.size() ? shown[i] : r);
    w.origin.push_back(i);
    todo.emplace_back(r, w.roots.size() - 1);
  }
  while (!todo.empty()) {
    auto [dir, ri] = std::move(todo.back());
    todo.pop_back();
    if (!w.list(dir, ri, todo)) break;
  }
  if (cache) {
    // A refused walk stopped early: its listings are kept, the rest of the cache too.
    if (!w.scan.refusal.empty()) {
      for (auto& [k, v] : w.walked) cache->dirs[k] = std::move(v);
    } else {
      if (w.walked.size() != cache->dirs.size()) cache->changed = true;
      cache->dirs = std::move(w.walked);
    }
  }
  return std::move(w.scan);
}

// The file: the magic, then per folder seven fields, each ended by a NUL: path, device, inode,
// ctime, racy, entry count, subfolder names and link names (each list joined by '/', which no
// name holds).
HiddenLinkCache load_hidden_link_cache(const std::string& file) {
  HiddenLinkCache c;
  auto text = read_file_nofollow(file, 64 << 20);
  if (!text.ok()) return c;
  std::vector<std::string> f;
  size_t pos = 0;
  while (pos < text->size()) {
    size_t z = text->find('\0', pos);
    if (z == std::string::npos) return HiddenLinkCache{};
    f.push_back(text->substr(pos, z - pos));
    pos = z + 1;
  }
  if (f.empty() || f[0] != kLinksMagic || (f.size() - 1) % 8 != 0) return HiddenLinkCache{};
  try {
    for (size_t i = 1; i + 8 <= f.size(); i += 8) {
      HiddenDirListing l;
      l.dev = std::stoull(f[i + 1]);
      l.ino = std::stoull(f[i + 2]);
      l.ctime_ns = std::stoll(f[i + 3]);
      l.racy = f[i + 4] != "0";
      l.entries = std::stoull(f[i + 5]);
      if (!f[i + 6].empty()) l.subdirs = split(f[i + 6], '/');
      if (!f[i + 7].empty()) l.links = split(f[i + 7], '/');
      c.dirs.emplace(f[i], std::move(l));
    }
  } catch (...) {
    return HiddenLinkCache{};
  }
  return c;
}

Status save_hidden_link_cache(const std::string& file, const HiddenLinkCache& c) {
  if (!c.changed) return ok_status();
  std::string out = std::string(kLinksMagic) + '\0';
  for (const auto& [path, l] : c.dirs)
    out += fmt::format("{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}", path, '\0', l.dev, '\0', l.ino, '\0',
                       l.ctime_ns, '\0', l.racy ? "1" : "0", '\0', l.entries, '\0',
                       join(l.subdirs, "/"), '\0', join(l.links, "/"), '\0');
  return write_file_atomic(file, out, false, 0600);
}

}  // namespace cordon
