#include "host/git_config_copy.h"

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <set>

#include "core/paths.h"
#include "core/strings.h"
#include "host/config_copy.h"
#include "host/git_facts.h"
#include "host/git_runner.h"
#include "host/path_info.h"
#include "plan/git_config_rules.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

constexpr size_t kMaxFiles = 64;
constexpr size_t kMaxFileBytes = 1 << 20;

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
  return write_content_named_copy(cache_dir, "git-config", text, ".gitconfig");
}

// PERF-1: git's reading of a config file (`git config --file F --list -z`), kept in the cache
// under the file's content, so that a command whose global config did not change costs a read
// and a hash instead of a git call. The entry holds the text itself, compared in full.
std::optional<std::string> list_config(const std::string& cache_dir, const std::string& file,
                                       const std::string& text, const EnvMap& env) {
  std::string entry =
      path_join(cache_dir, fmt::format("git-config/{:016x}.list", std::hash<std::string>{}(text)));
  if (auto old = read_file(entry, 2 * kMaxFileBytes + 64); old.ok()) {
    std::string_view v = *old;
    size_t sep = text.size();
    if (v.size() > sep + 1 && v.substr(0, sep) == text && v[sep] == '\x01')
      return std::string(v.substr(sep + 1));
  }
  auto listed = run_git({"config", "--file", file, "--list", "-z"}, "/", env);
  if (!listed.ok() || listed->status != 0) return std::nullopt;
  if (make_dirs(path_parent(entry), 0700).ok())
    (void)write_file_atomic(entry, text + '\x01' + listed->out, false, 0600);
  return listed->out;
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
    auto text = read_file(info.real, kMaxFileBytes);
    // A file cordon cannot read, a command cannot read either.
    if (!text.ok()) continue;
    std::vector<GitConfigEntry> entries;
    bool parsed = false;
    if (git) {
      if (auto listed = list_config(cache_dir, info.real, *text, env)) {
        entries = parse_git_config_list(*listed);
        parsed = true;
      }
    }
    for (const auto& e : entries) add_includes(e, info, home, todo);
    SanitizedGitConfig s = sanitize_git_config(entries);  // FS-12's allowlist
    if (parsed && s.removed.empty()) continue;
    if (!parsed)
      s = {"", {"the whole file (git could not read it to keep only the safe keys)"}, true};
    // Without a copy (the cache cannot be written) the planner hides the file whole.
    std::string copy = write_copy(cache_dir, s.text);
    out.push_back({info.real, todo[i].shown, copy, std::move(s.removed), s.credential});
  }
  return out;
}

std::optional<GitConfigCopyFact> sanitized_project_git_config(const std::string& common_dir,
                                                              const std::string& project,
                                                              const EnvMap& env,
                                                              const std::string& cache_dir) {
  if (common_dir.empty() || cache_dir.empty()) return std::nullopt;
  std::string file = path_join(common_dir, "config");
  // SEC-2: never through a link, never a FIFO.
  std::string text;
  if (!read_regular_file(file, kMaxFileBytes, text)) return std::nullopt;
  if (!project_git_config_may_hold_credentials(text)) return std::nullopt;
  auto listed = list_config(cache_dir, file, text, env);
  if (!listed) return std::nullopt;
  SanitizedGitConfig s = strip_git_config_credentials(parse_git_config_list(*listed));
  if (s.removed.empty()) return std::nullopt;
  std::string shown = path_within(file, project) ? path_relative(file, project) : file;
  return GitConfigCopyFact{file, shown, write_copy(cache_dir, s.text), std::move(s.removed), true};
}

}  // namespace cordon
