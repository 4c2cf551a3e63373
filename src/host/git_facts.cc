#include "host/git_facts.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "host/file_open.h"
#include "host/git_runner.h"
#include "host/path_info.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

constexpr size_t kMaxModulesEntries = 512;  // GIT-5
constexpr size_t kMaxNestedRepositories = 32;  // nested git folders locked (the mount budget);
// past it a nested folder is still judged again whenever its config or hooks change (GIT-8).
constexpr const char* kNestedConfigWhy = "nested repository config";
constexpr const char* kNestedHooksWhy = "nested repository hooks folder";

std::string stamp(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return "-";
  return fmt::format("{}:{}:{}.{}:{}:{}", st.st_dev, st.st_ino, stat_mtime(st).tv_sec,
                     stat_mtime(st).tv_nsec, st.st_size, st.st_mode);
}

std::string read_first_line(const std::string& path) {
  auto text = read_file(path, 1 << 16);
  if (!text.ok()) return "";
  std::string line = text->substr(0, text->find('\n'));
  return trim(line);
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool is_boolean_word(const std::string& v) {
  std::string l = to_lower(v);
  return l.empty() || l == "true" || l == "false" || l == "yes" || l == "no" || l == "on" ||
         l == "off" || l == "1" || l == "0";
}

struct ConfigEntry {
  std::string origin;  // file path (absolute), or "" for other origins
  std::string key;     // lower-cased key
  std::string value;
};

std::vector<ConfigEntry> parse_config_list(const std::string& out, const std::string& cwd) {
  std::vector<ConfigEntry> entries;
  size_t p = 0;
  while (p < out.size()) {
    size_t o_end = out.find('\0', p);
    if (o_end == std::string::npos) break;
    std::string origin = out.substr(p, o_end - p);
    size_t kv_end = out.find('\0', o_end + 1);
    if (kv_end == std::string::npos) kv_end = out.size();
    std::string kv = out.substr(o_end + 1, kv_end - o_end - 1);
    p = kv_end + 1;
    // cordon's own `-c` overrides (safe_git_overrides) are not the project's config.
    if (starts_with(origin, "command line:")) continue;
    ConfigEntry e;
    if (starts_with(origin, "file:")) e.origin = path_join(cwd, origin.substr(5));
    size_t nl = kv.find('\n');
    e.key = to_lower(kv.substr(0, nl));
    e.value = nl == std::string::npos ? "" : kv.substr(nl + 1);
    entries.push_back(std::move(e));
  }
  return entries;
}

// Follows the symlinks on the way from `path` (inside `root`) and records each (GIT-6).
void record_links(const std::string& path, const std::string& root,
                  std::vector<std::pair<std::string, std::string>>& links) {
  if (!path_within(path, root)) return;
  std::string cur = root;
  for (const auto& part : split(path_relative(path, root), '/')) {
    if (part.empty()) continue;
    cur = path_join(cur, part);
    PathInfo info = read_path_info(cur);
    if (info.kind == Kind::kSymlink) {
      bool seen = false;
      for (const auto& l : links) seen |= l.first == cur;
      if (!seen) links.push_back({cur, info.link_target});
    }
  }
}

void add_lock(GitFacts& g, const std::string& path, const std::string& why, bool folder,
              std::set<std::string>& seen) {
  std::string p = normalize_path(path);
  PathInfo info = read_path_info(p);
  if (seen.insert(p).second) g.lock_candidates.push_back({p, info.exists()});
  if (!info.exists() || info.real.empty()) return;
  for (const auto& l : g.locks)
    if (l.info.real == info.real) return;
  bool dir = info.real_kind == Kind::kDir;
  g.locks.push_back(GitLockFact{info, why, folder && dir});
}

// GIT-1, GIT-3: a linked worktree's files that say where its config, hooks and objects are
// (commondir, gitdir) and its own config: rewriting commondir to a planted copy would make the
// worktree's next `git status` run that copy's fsmonitor.
void lock_worktree_files(GitFacts& g, const std::string& admin, std::set<std::string>& seen) {
  add_lock(g, path_join(admin, "config"), "worktree config", false, seen);
  add_lock(g, path_join(admin, "config.worktree"), "worktree config", false, seen);
  add_lock(g, path_join(admin, "commondir"), "worktree commondir", false, seen);
  add_lock(g, path_join(admin, "gitdir"), "worktree gitdir", false, seen);
}

// Each git folder under modules/ (submodules, nested too), up to the GIT-5 cap.
void find_module_dirs(const std::string& dir, std::vector<std::string>& out, size_t& budget) {
  for (const auto& name : list_dir(dir)) {
    if (budget == 0) return;
    --budget;
    std::string sub = path_join(dir, name);
    struct stat st;
    if (lstat(sub.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    if (access(path_join(sub, "HEAD").c_str(), F_OK) == 0) out.push_back(sub);
    std::string nested = path_join(sub, "modules");
    if (access(nested.c_str(), F_OK) == 0) find_module_dirs(nested, out, budget);
    // Submodule names may contain slashes: modules/a/b/<gitdir>.
    if (access(path_join(sub, "HEAD").c_str(), F_OK) != 0) find_module_dirs(sub, out, budget);
  }
}

nlohmann::json to_json(const PathInfo& p) {
  return {{"path", p.path}, {"kind", static_cast<int>(p.kind)}, {"link", p.link_target},
          {"real", p.real}, {"real_kind", static_cast<int>(p.real_kind)}, {"ino", p.ino},
          {"dev", p.dev}, {"mode", p.mode}, {"uid", p.uid}};
}
PathInfo path_from_json(const nlohmann::json& j) {
  PathInfo p;
  p.path = j.at("path");
  p.kind = static_cast<Kind>(j.at("kind").get<int>());
  p.link_target = j.at("link");
  p.real = j.at("real");
  p.real_kind = static_cast<Kind>(j.at("real_kind").get<int>());
  p.ino = j.at("ino");
  p.dev = j.at("dev");
  p.mode = j.at("mode");
  p.uid = j.at("uid");
  return p;
}

nlohmann::json facts_to_json(const GitFacts& g) {
  nlohmann::json j;
  j["git_dir"] = g.git_dir;
  j["common_dir"] = g.common_dir;
  j["git_available"] = g.git_available;
  j["tracked"] = g.tracked;
  j["tracked_known"] = g.tracked_known;
  j["lock_candidates"] = g.lock_candidates;
  j["links"] = g.links_on_the_way;
  j["modules_entries"] = g.modules_entries;
  j["worktrees_entries"] = g.worktrees_entries;
  j["locks"] = nlohmann::json::array();
  for (const auto& l : g.locks)
    j["locks"].push_back({{"info", to_json(l.info)}, {"why", l.why}, {"folder", l.folder}});
  return j;
}

bool facts_from_json(const nlohmann::json& j, GitFacts& g) {
  try {
    g.git_dir = j.at("git_dir");
    g.common_dir = j.at("common_dir");
    g.git_available = j.at("git_available");
    g.tracked = j.at("tracked").get<std::vector<std::string>>();
    g.tracked_known = j.at("tracked_known");
    g.lock_candidates =
        j.at("lock_candidates").get<std::vector<std::pair<std::string, bool>>>();
    g.links_on_the_way = j.at("links").get<std::vector<std::pair<std::string, std::string>>>();
    g.modules_entries = j.at("modules_entries");
    g.worktrees_entries = j.at("worktrees_entries");
    for (const auto& l : j.at("locks"))
      g.locks.push_back(GitLockFact{path_from_json(l.at("info")), l.at("why"), l.at("folder")});
    return true;
  } catch (...) {
    return false;
  }
}

// The in-memory copy of the cache file (one entry per project; a long-lived cordon serves
// few projects, and the CLI reads once). Fresh under the same rules as the file.
struct Memo {
  std::string key;
  std::map<std::string, std::string> extra_stamps;
  GitFacts facts;
};
std::mutex g_memo_mu;
std::map<std::string, Memo>& memo_map() {
  static auto* m = new std::map<std::string, Memo>();  // never destroyed: used until exit
  return *m;
}

std::optional<GitFacts> memo_lookup(const std::string& file, const std::string& key) {
  std::map<std::string, std::string> extra;
  GitFacts facts;
  {
    std::lock_guard<std::mutex> lock(g_memo_mu);
    auto it = memo_map().find(file);
    if (it == memo_map().end() || it->second.key != key) return std::nullopt;
    extra = it->second.extra_stamps;
    facts = it->second.facts;
  }
  for (const auto& [p, st] : extra)
    if (stamp(p) != st) return std::nullopt;
  return facts;
}

void memo_store(const std::string& file, const std::string& key,
                std::map<std::string, std::string> extra, const GitFacts& facts) {
  std::lock_guard<std::mutex> lock(g_memo_mu);
  Memo& m = memo_map()[file];
  m.key = key;
  m.extra_stamps = std::move(extra);
  m.facts = facts;
}

// What the config names: hooksPath, fsmonitor, include files (followed transitively).
void lock_named_files(GitFacts& g, const GitFactsInput& in, std::set<std::string>& seen,
                      std::map<std::string, std::string>& extra_stamps) {
  auto listed =
      run_git({"config", "--list", "--show-origin", "-z", "--includes"}, in.project, in.env);
  if (!listed.ok()) {
    g.git_available = false;
  } else {
    std::vector<ConfigEntry> entries = parse_config_list(listed->out, in.project);
    std::set<std::string> origins;
    for (const auto& e : entries)
      if (!e.origin.empty()) origins.insert(e.origin);
    std::vector<std::pair<std::string, std::string>> includes;  // (path, why)
    auto consider = [&](const ConfigEntry& e) {
      if (e.key == "core.hookspath" && !e.value.empty()) {
        std::string p = path_join(in.project, expand_home(e.value, in.home));
        add_lock(g, p, "core.hooksPath", true, seen);
        extra_stamps[p] = stamp(p);
      } else if (e.key == "core.fsmonitor" && !is_boolean_word(e.value)) {
        std::string p = path_join(in.project, expand_home(e.value, in.home));
        add_lock(g, p, "core.fsmonitor", false, seen);
        extra_stamps[p] = stamp(p);
      } else if ((e.key == "include.path" ||
                  (starts_with(e.key, "includeif.") && ends_with(e.key, ".path"))) &&
                 !e.value.empty()) {
        std::string base = e.origin.empty() ? in.project : path_parent(e.origin);
        std::string p = path_join(base, expand_home(e.value, in.home));
        includes.push_back({p, e.key == "include.path" ? "include.path" : "includeIf path"});
      }
    };
    for (const auto& e : entries) consider(e);
    // Include files whose condition is not met now were not read by git: read them too, so
    // that what they name is locked before a branch switch makes them active.
    std::set<std::string> done(origins.begin(), origins.end());
    for (size_t i = 0; i < includes.size() && i < 256; ++i) {
      auto [p, why] = includes[i];
      add_lock(g, p, why, false, seen);
      extra_stamps[p] = stamp(p);
      if (!done.insert(p).second || access(p.c_str(), R_OK) != 0) continue;
      auto sub = run_git({"config", "--file", p, "--list", "--show-origin", "-z", "--includes"},
                         in.project, in.env);
      if (!sub.ok()) continue;
      for (const auto& e : parse_config_list(sub->out, in.project)) consider(e);
    }
    for (const auto& o : origins) {
      add_lock(g, o, "config file", false, seen);
      extra_stamps[o] = stamp(o);
    }
  }
}

// GIT-1: without a repository, the global and system config files are still read-only, and so
// is what they include (git is asked only when one of them mentions an include).
void lock_global_configs(GitFacts& g, const GitFactsInput& in) {
  std::set<std::string> seen;
  bool includes = false;
  for (const auto& [p, why] : git_config_files(in.env, in.home)) {
    add_lock(g, p, why, false, seen);
    auto text = read_file(p, 1 << 20);
    if (text.ok() && to_lower(*text).find("include") != std::string::npos) includes = true;
  }
  if (!includes) return;
  std::map<std::string, std::string> unused;
  lock_named_files(g, in, seen, unused);
}

// GIT-8, GIT-1, GIT-3: a nested git folder kept because it was known clean is locked like the
// project's own from the next command on: its config, config.worktree and hooks folder are
// read-only, its commondir a candidate (moved aside when a command makes one). The planner
// pins the folder itself (a "nested" lock's parent, protect_rules.cc).
void lock_nested(GitFacts& g, const GitFactsInput& in, std::set<std::string>& seen) {
  size_t n = 0;
  for (const auto& rel : in.nested_git) {
    if (++n > kMaxNestedRepositories) break;
    std::string dir = path_join(in.project, rel);
    struct stat st;
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    add_lock(g, path_join(dir, "config"), kNestedConfigWhy, false, seen);
    add_lock(g, path_join(dir, "config.worktree"), kNestedConfigWhy, false, seen);
    add_lock(g, path_join(dir, "hooks"), kNestedHooksWhy, true, seen);
    add_lock(g, path_join(dir, "commondir"), kNestedConfigWhy, false, seen);
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> git_config_files(const EnvMap& env,
                                                                  const std::string& home) {
  std::vector<std::pair<std::string, std::string>> out;
  if (auto g = env.get("GIT_CONFIG_GLOBAL"); g && !g->empty())
    out.push_back({expand_home(*g, home), "GIT_CONFIG_GLOBAL"});
  out.push_back({path_join(home, ".gitconfig"), "global git config"});
  std::string xdg = env.value("XDG_CONFIG_HOME");
  if (xdg.empty() || xdg[0] != '/') xdg = path_join(home, ".config");
  out.push_back({path_join(xdg, "git/config"), "global git config"});
  if (auto s = env.get("GIT_CONFIG_SYSTEM"); s && !s->empty())
    out.push_back({expand_home(*s, home), "GIT_CONFIG_SYSTEM"});
  out.push_back({"/etc/gitconfig", "system git config"});
  return out;
}

std::string resolve_git_dir(const std::string& dot_git) {
  PathInfo dg = read_path_info(dot_git);
  if (!dg.exists() || dg.real.empty()) return "";
  if (dg.real_kind == Kind::kDir) return dg.real;
  if (dg.real_kind != Kind::kFile) return "";
  std::string line = read_first_line(dg.real);
  if (!starts_with(line, "gitdir:")) return "";
  std::string target = trim(line.substr(7));
  PathInfo gd = read_path_info(path_join(path_parent(dg.real), target));
  return gd.real_kind == Kind::kDir ? gd.real : "";
}

GitDirs read_git_dirs(const std::string& project) {
  GitDirs d;
  d.git_dir = resolve_git_dir(path_join(project, ".git"));
  if (d.git_dir.empty()) return d;
  d.common_dir = d.git_dir;
  std::string commondir_file = path_join(d.git_dir, "commondir");
  if (access(commondir_file.c_str(), F_OK) == 0) {
    d.commondir_existed = true;
    std::string c = read_first_line(commondir_file);
    PathInfo ci = read_path_info(path_join(d.git_dir, c));
    if (ci.real_kind == Kind::kDir) d.common_dir = ci.real;
  }
  return d;
}

GitFacts read_git_facts(const GitFactsInput& in) {
  GitFacts g;
  g.dot_git = path_join(in.project, ".git");
  PathInfo dg = read_path_info(g.dot_git);
  g.dot_git_kind = dg.kind;
  if (dg.kind == Kind::kDir || dg.kind == Kind::kFile) {
    g.dot_git_dev = dg.dev;
    g.dot_git_ino = dg.ino;
  }
  GitDirs where = read_git_dirs(in.project);
  g.git_dir = where.git_dir;
  if (g.git_dir.empty()) {  // no repository: nothing tracked, only the global config locked
    lock_global_configs(g, in);
    return g;
  }
  g.repo = true;
  g.common_dir = where.common_dir;
  g.commondir_existed = where.commondir_existed;

  // Git reads these before anything else; one that is not a regular file (a FIFO a command
  // planted) would hold every git call until its time bound: git is not asked at all then, and
  // the facts are not cached (GIT-8). What is locked by path below is still locked.
  for (const std::string& f : {path_join(g.common_dir, "config"), path_join(g.git_dir, "index"),
                               path_join(g.git_dir, "config.worktree"), path_join(g.git_dir, "HEAD"),
                               path_join(g.git_dir, "commondir")}) {
    PathInfo fi = read_path_info(f);
    if (fi.exists() && fi.real_kind != Kind::kFile) g.git_available = false;
  }

  // The cache key: everything these facts are read from.
  auto globals = git_config_files(in.env, in.home);
  std::string key = fmt::format("v1|{}|{}|{}|{}|{}|{}|{}|{}", in.project, g.git_dir,
                                g.common_dir, stamp(g.dot_git), stamp(path_join(g.git_dir, "index")),
                                stamp(path_join(g.common_dir, "config")),
                                stamp(path_join(g.git_dir, "config.worktree")),
                                stamp(path_join(g.common_dir, "hooks")));
  key += "|" + stamp(path_join(g.common_dir, "worktrees")) + "|" +
         stamp(path_join(g.common_dir, "modules"));
  for (const auto& [p, why] : globals) key += "|" + stamp(p);
  for (const auto& r : in.protected_rels) key += "|" + r;
  for (const auto& r : in.nested_git) key += "|n:" + r + ":" + stamp(path_join(in.project, r));
  for (const char* v : {"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
                        "XDG_CONFIG_HOME", "HOME"})
    key += "|" + in.env.value(v);
  std::string cache_file;
  if (!in.cache_dir.empty() && g.git_available) {
    cache_file = path_join(in.cache_dir, fmt::format("git-facts/{:016x}.json",
                                                     std::hash<std::string>{}(in.project)));
    // A long-lived cordon (serve, mcp, the API) keeps the last facts of each project in memory
    // under the same key, so a repeated command does not read and parse the file again.
    // What a cached copy holds is completed by what was just read.
    auto completed = [&](GitFacts cached) {
      cached.repo = true;
      cached.dot_git = g.dot_git;
      cached.dot_git_kind = g.dot_git_kind;
      cached.dot_git_dev = g.dot_git_dev;
      cached.dot_git_ino = g.dot_git_ino;
      cached.commondir_existed = g.commondir_existed;
      cached.index_stamp = stamp(path_join(g.git_dir, "index"));
      return cached;
    };
    if (auto hit = memo_lookup(cache_file, key)) {
      trace("git facts: from memory");
      return completed(std::move(*hit));
    }
    auto text = read_file(cache_file, 32 << 20);
    if (text.ok()) {
      try {
        nlohmann::json j = nlohmann::json::parse(*text);
        bool fresh = j.value("key", "") == key;
        // Files named by the config (includes, hooksPath) are part of the key too.
        if (fresh)
          for (const auto& [p, s] : j.at("extra_stamps").items())
            if (stamp(p) != s.get<std::string>()) fresh = false;
        GitFacts cached = g;
        if (fresh && facts_from_json(j.at("facts"), cached)) {
          cached = completed(std::move(cached));
          memo_store(cache_file, key,
                     j.at("extra_stamps").get<std::map<std::string, std::string>>(), cached);
          trace("git facts: from cache");
          return cached;
        }
      } catch (...) {
      }
    }
  }

  std::set<std::string> seen;
  // GIT-2: a `.git` file says where the repository is; rewritten, it points git at a planted
  // copy. git never rewrites it in daily work (only `git worktree move/repair`).
  if (g.dot_git_kind == Kind::kFile) add_lock(g, g.dot_git, "the project's .git file", false, seen);
  // GIT-1: the repository's own auto-run files.
  add_lock(g, path_join(g.common_dir, "hooks"), "hooks folder", true, seen);
  add_lock(g, path_join(g.common_dir, "config"), "repository config", false, seen);
  add_lock(g, path_join(g.common_dir, "config.worktree"), "repository config", false, seen);
  if (g.git_dir != g.common_dir) {
    add_lock(g, path_join(g.git_dir, "hooks"), "hooks folder", true, seen);
    // The project is a linked worktree: its commondir and gitdir say where git looks.
    lock_worktree_files(g, g.git_dir, seen);
  }
  // Worktrees' and submodules' copies. Past 512 entries the planner locks the folder whole
  // (GIT-5), so their files are not even looked at.
  std::string worktrees = path_join(g.common_dir, "worktrees");
  auto wt = list_dir(worktrees);
  g.worktrees_entries = wt.size();
  if (wt.size() <= kMaxModulesEntries) {
    for (const auto& w : wt) lock_worktree_files(g, path_join(worktrees, w), seen);
  }
  std::string modules = path_join(g.common_dir, "modules");
  auto mods = list_dir(modules);
  g.modules_entries = mods.size();
  if (!mods.empty() && mods.size() <= kMaxModulesEntries) {
    std::vector<std::string> dirs;
    size_t budget = 4 * kMaxModulesEntries;
    find_module_dirs(modules, dirs, budget);
    if (budget == 0) g.modules_entries = kMaxModulesEntries + 1;  // nested past the cap
    for (const auto& d : dirs) {
      add_lock(g, path_join(d, "config"), "submodule config", false, seen);
      add_lock(g, path_join(d, "config.worktree"), "submodule config", false, seen);
      add_lock(g, path_join(d, "hooks"), "submodule hooks folder", true, seen);
      // GIT-3: a commondir made in a submodule's git folder sends git (and the project's own
      // `git status`, which recurses) to a planted config: a candidate, judged when created.
      add_lock(g, path_join(d, "commondir"), "submodule commondir", false, seen);
      // GIT-1, GIT-3: a submodule's own linked worktrees.
      for (const auto& w : list_dir(path_join(d, "worktrees")))
        lock_worktree_files(g, path_join(d, "worktrees/" + w), seen);
    }
  }
  for (const auto& [p, why] : globals) add_lock(g, p, why, false, seen);
  lock_nested(g, in, seen);

  std::map<std::string, std::string> extra_stamps;
  if (g.git_available) lock_named_files(g, in, seen, extra_stamps);
  // Hooks that are symlinks: their targets are locked too (GIT-1).
  for (const auto& l : std::vector<GitLockFact>(g.locks)) {
    if (!l.folder) continue;
    for (const auto& name : list_dir(l.info.real)) {
      PathInfo h = read_path_info(path_join(l.info.real, name));
      if (h.kind == Kind::kSymlink && !h.real.empty()) add_lock(g, h.real, "hook target", false, seen);
    }
  }
  // GIT-6: symlinks inside the project on the way to a locked file.
  for (const auto& [c, exists] : g.lock_candidates)
    record_links(c, in.project, g.links_on_the_way);

  // PROT-3: which protected paths git tracks (the index is read once here, then cached).
  if (!in.protected_rels.empty() && g.git_available) {
    std::vector<std::string> args = {"--literal-pathspecs", "ls-files", "-z", "--"};
    args.insert(args.end(), in.protected_rels.begin(), in.protected_rels.end());
    auto ls = run_git(args, in.project, in.env);
    if (ls.ok() && ls->status == 0) {
      g.tracked_known = true;
      for (auto& p : split(ls->out, '\0'))
        if (!p.empty()) g.tracked.push_back(std::move(p));
    } else if (!ls.ok()) {
      g.git_available = false;
    }
  }
  g.index_stamp = stamp(path_join(g.git_dir, "index"));

  if (!cache_file.empty() && g.git_available) {
    nlohmann::json j;
    j["key"] = key;
    j["extra_stamps"] = extra_stamps;
    j["facts"] = facts_to_json(g);
    (void)make_dirs(path_parent(cache_file), 0700);
    (void)write_file_atomic(cache_file, j.dump(), false);
    memo_store(cache_file, key, extra_stamps, g);
  }
  return g;
}

}  // namespace cordon
