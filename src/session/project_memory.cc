#include "session/project_memory.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "core/paths.h"
#include "core/strings.h"
#include "host/path_info.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

std::string blocked_file(const Folders& folders, const std::string& project) {
  return path_join(folders.state,
                   fmt::format("blocked/{:016x}.json", std::hash<std::string>{}(project)));
}

}  // namespace

std::vector<std::string> pending_quarantine(const Folders& folders, const std::string& project) {
  std::vector<std::string> out;
  auto text = read_file(blocked_file(folders, project), 1 << 20);
  if (!text.ok()) return out;
  try {
    // Kept in a variable: a range-for over a member of a temporary would dangle (until C++23).
    const nlohmann::json j = nlohmann::json::parse(*text);
    for (const auto& p : j.at("paths")) {
      std::string path = p.get<std::string>();
      if (read_path_info(path).exists()) out.push_back(path);  // lifts once it is gone
    }
  } catch (...) {
  }
  return out;
}

void remember_failed_moves(const Folders& folders, const std::string& project,
                           const std::vector<std::string>& failed) {
  std::vector<std::string> all = pending_quarantine(folders, project);
  for (const auto& f : failed)
    if (std::find(all.begin(), all.end(), f) == all.end()) all.push_back(f);
  std::string file = blocked_file(folders, project);
  if (all.empty()) {
    unlink(file.c_str());
    return;
  }
  (void)make_dirs(path_parent(file), 0700);
  nlohmann::json j;
  j["project"] = project;
  j["paths"] = all;
  (void)write_file_atomic(file, j.dump(), true);
}

bool stripped_names_changed(const std::string& cache_dir, const std::string& project,
                            const std::vector<std::string>& names) {
  // Said once per project, again only when a name not said before appears, so a run of
  // `cordon run` (ephemeral or `--session`) does not repeat it. The names said so far are kept
  // in the cache, one per line.
  std::string file =
      path_join(cache_dir, fmt::format("env-notice/{:016x}", std::hash<std::string>{}(project)));
  auto before = read_file(file, 1 << 20);
  std::set<std::string> said;
  if (before.ok())
    for (auto& n : split(*before, '\n'))
      if (!n.empty()) said.insert(n);
  bool fresh = false;
  for (const auto& n : names) fresh = said.insert(n).second || fresh;
  if (!fresh) return false;
  (void)make_dirs(path_parent(file), 0700);
  (void)write_file_atomic(file, join(std::vector<std::string>(said.begin(), said.end()), "\n"),
                          false);
  return true;
}

}  // namespace cordon
