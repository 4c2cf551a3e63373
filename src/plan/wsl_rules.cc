#include "plan/wsl_rules.h"

#include <fmt/format.h>

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

namespace {

// The Users folder (as spelled in `p`) that holds `p`, or "". The drive folds case, so
// /mnt/c/USERS/me is inside it even when only /mnt/c/Users was listed.
std::string users_folder_of(const MachineFacts& m, const std::string& p) {
  if (p.empty()) return "";
  for (const auto& drive : m.windows_drives) {
    if (!path_within(p, drive) || p == drive) continue;
    std::string first = split(path_relative(p, drive), '/')[0];
    if (to_lower(first) == "users") return path_join(drive, first);
  }
  for (const auto& u : m.windows_users_dirs)
    if (path_within(p, u)) return u;
  return "";
}

}  // namespace

std::optional<Refusal> wsl_refusal(const Facts& facts, const std::string& config) {
  if (!facts.machine.wsl) return std::nullopt;
  if (!facts.machine.wsl_error.empty())
    return Refusal{ErrorKind::kUnavailable,
                   fmt::format("the sandbox is unavailable: under WSL2 the mount table could not "
                               "be read ({}), so the Windows drives' Users folders cannot be "
                               "found to hide them. Fix: none in cordon's settings; "  // WSL-1
                               "check /proc/self/mountinfo, or set [sandbox] mode = \"off\" in "
                               "{} to run commands unconfined.",
                               facts.machine.wsl_error, config)};
  struct Candidate {
    const std::string& path;
    const char* what;
  };
  for (const Candidate& c : {Candidate{facts.project, "the project"},
                             Candidate{facts.git.git_dir, "the project's git folder"},
                             Candidate{facts.git.common_dir, "the project's git folder"}}) {
    std::string users = users_folder_of(facts.machine, c.path);
    if (users.empty()) continue;
    return Refusal{
        ErrorKind::kUnavailable,
        fmt::format("the sandbox is unavailable: {} ({}) is inside a Windows Users folder ({}), "
                    "which the sandbox hides: it holds every Windows account's files, .ssh and "
                    "AppData. Fix: move the project into the Linux file system (such as "  // WSL-2
                    "~/code), or elsewhere on the drive outside Users; or set [sandbox] mode = "
                    "\"off\" in {} to run commands unconfined.",
                    c.what, c.path, users, config)};
  }
  return std::nullopt;
}

void plan_wsl(const Facts& facts, Plan& p) {
  if (!facts.machine.wsl) return;
  for (const auto& u : facts.machine.windows_users_dirs) {
    p.mounts.push_back(
        MountOp{MountKind::kRoBind, facts.empty_dir, u, "hidden: Windows Users folder"});  // WSL-1
    p.hidden.push_back(HiddenDecision{u, path_parent(u) + "/Users",
                                      "a Windows drive's Users folder, in each spelling", true,
                                      ""});
  }
  for (const auto& w : facts.writable) {
    std::string users = users_folder_of(facts.machine, w.real);
    if (!users.empty())
      p.warnings.push_back(fmt::format(
          "writable path {} lies inside the Windows Users folder "
          "{}, which is hidden: commands cannot reach it. Use a folder in the Linux "  // WSL-1
          "file system instead.",
          tilde_path(w.path, facts.home), users));
  }
}

}  // namespace cordon
