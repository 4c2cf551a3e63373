#include "host/package_caches.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "core/paths.h"
#include "core/strings.h"
#include "host/listing_scope.h"
#include "host/path_info.h"
#include "plan/cache_tools.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

constexpr const char* kProjectFile = "project";
constexpr const char* kUsedFile = "last-used";

// The user's own cache of a tool: the variable's value when the user set one, else the default.
std::string own_path(const CacheTool& t, const CacheFactsInput& in) {
  if (t.way == CacheWay::kVariable && !t.append) {
    std::string v = in.env.value(t.variable);
    if (!v.empty() && v[0] == '/') return normalize_path(v);
  }
  return expand_home(t.home_path, in.home);
}

bool is_real_dir(const std::string& p) {
  struct stat st;
  return lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The folder shown in place of cordon's cache folder: empty but for the mount point of the
// project's caches at the same place below it.
std::string view_dir(const std::string& root) { return path_join(root, "view"); }

std::string first_line(const std::string& file);

Status prepare(const CacheFactsInput& in, const std::string& root, const std::string& tools) {
  if (auto s = make_dirs(tools, 0700); !s.ok()) return s;
  std::string chain = path_join(view_dir(root), path_relative(tools, in.folders.cache));
  if (auto s = make_dirs(chain, 0700); !s.ok()) return s;
  // PERF-1: written when they change, not at every command (a write and a rename each): the
  // project's name once, the time of last use at most once a minute (`cordon cache` shows it).
  if (first_line(path_join(root, kProjectFile)) != in.project)
    (void)write_file_atomic(path_join(root, kProjectFile), in.project + "\n", false);
  const std::time_t now = std::time(nullptr);
  const std::string used = first_line(path_join(root, kUsedFile));
  if (used.empty() || now - std::atoll(used.c_str()) >= 60)
    (void)write_file_atomic(path_join(root, kUsedFile), std::to_string(now) + "\n", false);
  for (const auto& t : cache_tools()) {
    if (t.way != CacheWay::kMount) continue;
    // PKG-3: only over a cache the user already has; nothing is made in the home, not even a
    // mount point (bwrap would need one).
    if (!is_real_dir(expand_home(t.anchor, in.home))) continue;
    if (!is_real_dir(expand_home(t.home_path, in.home))) continue;
    (void)make_dirs(tool_cache_folder(tools, t), 0700);
  }
  return ok_status();
}

uint64_t disk_use_at(int dirfd) {
  uint64_t total = 0;
  DIR* d = fdopendir(dirfd);
  if (!d) {
    ::close(dirfd);
    return 0;
  }
  while (dirent* e = readdir(d)) {
    if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
    struct stat st;
    if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    total += static_cast<uint64_t>(st.st_blocks) * 512;
    if (S_ISDIR(st.st_mode)) {
      int fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0) total += disk_use_at(fd);
    }
  }
  closedir(d);
  return total;
}

uint64_t disk_use(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return fd < 0 ? 0 : disk_use_at(fd);
}

std::string first_line(const std::string& file) {
  auto r = read_file(file, 1 << 16);
  if (!r.ok()) return "";
  return trim(r->substr(0, r->find('\n')));
}

}  // namespace

CacheFacts read_cache_facts(const CacheFactsInput& in) {
  CacheFacts f;
  {
    ListingScope listings;  // PERF-1: most tools' caches do not exist; nothing written here
    for (const auto& t : cache_tools()) {
      f.own.push_back(read_path_info(own_path(t, in)));
      f.anchors.push_back(t.anchor.empty() ? PathInfo{}
                                           : read_path_info(expand_home(t.anchor, in.home)));
    }
  }
  if (in.mode != CacheMode::kProject || in.folders.cache.empty()) return f;
  std::string root = project_cache_root(in.folders.cache, in.project);
  std::string tools = project_cache_tools(in.folders.cache, in.project);
  if (in.prepare) {
    if (auto s = prepare(in, root, tools); !s.ok()) {
      f.error = fmt::format(
          "cannot create {} ({}). Fix: make cordon's cache folder writable "
          "by you, or set [sandbox] caches = \"off\".",
          tools, s.error().message);
      return f;
    }
  }
  PathInfo ti = read_path_info(tools);
  PathInfo vi = read_path_info(view_dir(root));
  f.cache_real = real_or_lexical(in.folders.cache);
  if (vi.kind == Kind::kDir && !vi.real.empty()) f.view = vi.real;
  if (ti.kind == Kind::kDir && !ti.real.empty())
    f.tools_dir = ti.real;
  else if (f.error.empty())
    f.error = fmt::format("{} does not exist yet", tools);
  return f;
}

std::vector<ProjectCache> list_project_caches(const Folders& folders) {
  std::vector<ProjectCache> out;
  std::string base = path_join(folders.cache, "packages");
  DIR* d = opendir(base.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::string root = path_join(base, e->d_name);
    if (!is_real_dir(root)) continue;
    ProjectCache c;
    c.root = root;
    c.project = first_line(path_join(root, kProjectFile));
    std::string used = first_line(path_join(root, kUsedFile));
    c.last_used = used.empty() ? 0 : std::atoll(used.c_str());
    c.bytes = disk_use(root);
    out.push_back(std::move(c));
  }
  closedir(d);
  std::sort(out.begin(), out.end(),
            [](const ProjectCache& a, const ProjectCache& b) { return a.root < b.root; });
  return out;
}

Result<size_t> remove_project_caches(const Folders& folders, const std::string& project) {
  size_t removed = 0;
  for (const auto& c : list_project_caches(folders)) {
    if (!project.empty() && c.root != project_cache_root(folders.cache, project) &&
        c.project != project)
      continue;
    if (auto s = remove_tree(c.root); !s.ok()) return s.error();
    ++removed;
  }
  return removed;
}

}  // namespace cordon
