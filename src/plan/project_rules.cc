#include "plan/project_rules.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/paths.h"
#include "plan/hidden_list.h"

namespace cordon {

namespace {

// Folders that are never a project themselves (the whole machine, its programs, its settings).
const std::vector<std::string>& system_folders() {
  static const std::vector<std::string> list = {
      "/",          "/etc",     "/usr",     "/bin",       "/sbin",    "/lib",
      "/lib32",     "/lib64",   "/libx32",  "/opt",       "/var",     "/boot",
      "/root",      "/home",    "/srv",     "/run",       "/mnt",     "/media",
      "/usr/local", "/usr/lib", "/usr/bin", "/usr/share", "/var/lib", "/var/log",
  };
  return list;
}

// Folders that hold no project at any depth: kernel and device views.
const std::vector<std::string>& kernel_folders() {
  static const std::vector<std::string> list = {"/dev", "/proc", "/sys", "/boot"};
  return list;
}

// FS-7's case: a harness keeps its own config (and worktrees) there, and a user's own
// `[sandbox] hide` entry may contain the project on purpose (`hide = ["~"]`).
bool stays_visible_around_project(const HiddenFact& h) {
  if (h.why == "[sandbox] hide") return true;
  const auto& harness = harness_config_home_entries();
  std::string base = h.entry.rfind("~/", 0) == 0 ? h.entry.substr(2) : path_base(h.entry);
  return std::find(harness.begin(), harness.end(), base) != harness.end();
}

Refusal refusal(std::string message) { return Refusal{ErrorKind::kRefused, std::move(message)}; }

std::optional<Refusal> hidden_refusal(const Facts& facts, const std::string& project) {
  for (const auto& h : facts.hidden) {
    if (stays_visible_around_project(h)) continue;
    for (const auto& m : h.matches) {
      std::string where = m.real.empty() ? m.path : m.real;
      if (!m.exists() || !path_within(project, where)) continue;
      std::string shown = tilde_path(m.path, facts.home);
      return refusal(fmt::format(
          "the project {} {} the hidden path {} ({}), so commands could read and change what "
          "cordon hides (a hidden path is never a project). Fix: choose a project folder "  // FS-4
          "outside {}.",
          tilde_path(project, facts.home), project == where ? "is" : "lies inside", shown, h.why,
          shown));
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Refusal> project_refusal(const Facts& facts) {
  const std::string& project = facts.project;
  const std::string home = normalize_path(facts.home);
  if (!home.empty() && path_within(home, project))
    return refusal(fmt::format(
        "the project {} {} the home folder {}, so every command could change the whole home "
        "(dotfiles, shell start-up files, other projects); the home folder is never a project. "
        "Fix: run cordon in a project folder below {} (or pass --project DIR).",  // FS-2
        project, project == home ? "is" : "contains", home, home));
  for (const auto& k : kernel_folders())
    if (path_within(project, k))
      return refusal(
          fmt::format("the project {} lies in {}, a kernel or device folder, which is "
                      "never a project. Fix: choose a project folder of your "
                      "own.",
                      project, k));
  for (const auto& s : system_folders())
    if (project == s)
      return refusal(
          fmt::format("the project {} is a system folder, which is never a project: "
                      "every command could change it. Fix: choose a project "  // FS-2
                      "folder of your own (--project DIR).",
                      project));
  if (auto r = hidden_refusal(facts, project)) return r;
  if (!facts.git.git_dir.empty() && facts.git.git_dir != path_join(project, ".git"))
    if (auto r = hidden_refusal(facts, facts.git.git_dir)) return r;
  return std::nullopt;
}

std::string link_target_kept_because(const std::string& target, const std::string& home,
                                     const std::string& project) {
  std::string t = normalize_path(target);
  if (!home.empty() && path_within(normalize_path(home), t)) return "it holds the home folder";
  if (!project.empty() && path_within(project, t)) return "it holds the project";
  for (const auto& s : system_folders())
    if (t == s) return "it is a system folder";
  for (const auto& k : kernel_folders())
    if (path_within(t, k)) return "it is a kernel or device folder";
  return "";
}

}  // namespace cordon
