#include "host/hidden_links.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "core/paths.h"
#include "host/path_info.h"

namespace cordon {

namespace {

struct Walk {
  const HiddenLinkLimits& limits;
  const std::function<bool(const std::string&)>& kept_visible;
  HiddenLinkScan scan;
  std::vector<std::string> roots;  // every folder walked whole (hidden ones, then link targets)
  std::vector<std::string> shown;  // how each root is named
  std::vector<size_t> origin;      // for each root, the caller's root it was reached from
  std::set<std::string> found;     // link targets already recorded

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

  // Lists one folder; false when a bound was passed.
  bool list(const std::string& dir, size_t ri, std::vector<std::pair<std::string, size_t>>& todo) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return true;  // unreadable to cordon, so to the command too
    DIR* d = fdopendir(fd);
    if (!d) {
      ::close(fd);
      return true;
    }
    bool ok = true;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (++scan.entries_seen > limits.max_entries) {
        refuse(fmt::format("holds more than {} entries to search", limits.max_entries), shown[ri]);
        ok = false;
        break;
      }
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
      }
      std::string path = path_join(dir, name);
      if (type == DT_DIR) todo.emplace_back(std::move(path), ri);
      if (type == DT_LNK && !on_link(path, ri, todo)) {
        ok = false;
        break;
      }
    }
    closedir(d);
    return ok;
  }
};

}  // namespace

HiddenLinkScan scan_hidden_links(const std::vector<std::string>& roots,
                                 const std::vector<std::string>& shown,
                                 const std::function<bool(const std::string&)>& kept_visible,
                                 const HiddenLinkLimits& limits) {
  Walk w{limits, kept_visible, {}, {}, {}, {}, {}};
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
  return std::move(w.scan);
}

}  // namespace cordon
