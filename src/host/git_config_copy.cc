#include "host/git_config_copy.h"

#include <fmt/format.h>

#include <functional>
#include <set>

#include "core/paths.h"
#include "core/strings.h"
#include "host/git_facts.h"
#include "host/git_runner.h"
#include "host/path_info.h"
#include "plan/git_config_rules.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

constexpr size_t kMaxFiles = 64;
constexpr size_t kMaxBytes = 1 << 20;

struct Todo {
  std::string path, shown;
};

// The include paths an entry names, as git would resolve them (relative to the including file;
// both its path and its real path, since a dotfile is often a link).
void add_includes(const GitConfigEntry& e, const PathInfo& file, const std::string& home,
                  std::vector<Todo>& todo) {
  bool include =
      e.key == "include.path" || (starts_with(e.key, "includeif.") && ends_with(e.key, ".path"));
  if (!include || e.value.empty()) return;
  std::string p = expand_home(e.value, home);
  if (!p.empty() && p[0] == '/') {
    todo.push_back({normalize_path(p), tilde_path(p, home)});
    return;
  }
  for (const std::string* base : {&file.path, &file.real}) {
    std::string abs = normalize_path(path_join(path_parent(*base), p));
    todo.push_back({abs, tilde_path(abs, home)});
  }
}

// Writes the copy under its content's name (rewritten only when it differs).
std::string write_copy(const std::string& cache_dir, const std::string& text) {
  std::string dir = path_join(cache_dir, "git-config");
  std::string path =
      path_join(dir, fmt::format("{:016x}.gitconfig", std::hash<std::string>{}(text)));
  auto old = read_file(path, kMaxBytes);
  if (old.ok() && *old == text) return path;
  if (!make_dirs(dir, 0700).ok()) return "";
  if (!write_file_atomic(path, text, false, 0644).ok()) return "";
  return path;
}

}  // namespace

std::vector<GitConfigCopyFact> sanitized_git_configs(const EnvMap& env, const std::string& home,
                                                     const std::string& cache_dir) {
  std::vector<GitConfigCopyFact> out;
  if (cache_dir.empty()) return out;
  std::vector<Todo> todo;
  // Every global file, also ~/.gitconfig when $GIT_CONFIG_GLOBAL names another: a command
  // reads files, not only what git would read.
  for (const auto& [f, why] : git_config_files(env, home))
    if (why.find("system") == std::string::npos) todo.push_back({f, tilde_path(f, home)});
  std::set<std::string> done;
  bool git = !find_git(env).empty();
  for (size_t i = 0; i < todo.size() && done.size() < kMaxFiles; ++i) {
    PathInfo info = read_path_info(todo[i].path);
    if (info.real.empty() || info.real_kind != Kind::kFile || !done.insert(info.real).second)
      continue;
    auto text = read_file(info.real, kMaxBytes);
    // A file cordon cannot read, a command cannot read either.
    if (!text.ok() || !git_config_may_hold_credentials(*text)) continue;
    std::vector<GitConfigEntry> entries;
    bool parsed = false;
    if (git) {
      auto listed = run_git({"config", "--file", info.real, "--list", "-z"}, "/", env);
      if (listed.ok() && listed->status == 0) {
        entries = parse_git_config_list(listed->out);
        parsed = true;
      }
    }
    for (const auto& e : entries) add_includes(e, info, home, todo);
    SanitizedGitConfig s = sanitize_git_config(entries);
    if (parsed && s.removed.empty()) continue;
    if (!parsed) s = {"", {"the whole file (git could not read it to remove its credentials)"}};
    // Without a copy (the cache cannot be written) the planner hides the file whole.
    std::string copy = write_copy(cache_dir, s.text);
    out.push_back({info.real, todo[i].shown, copy, std::move(s.removed)});
  }
  return out;
}

}  // namespace cordon
