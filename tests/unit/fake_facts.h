// Builds Facts for planner tests without touching the host.
#pragma once

#include <string>

#include "config/folders.h"
#include "config/policy.h"
#include "core/paths.h"
#include "plan/facts.h"
#include "plan/hidden_list.h"
#include "plan/request.h"

namespace cordon::testing {

inline PathInfo file_info(const std::string& path, Kind kind = Kind::kFile) {
  PathInfo p;
  p.path = path;
  p.kind = kind;
  p.real = path;
  p.real_kind = kind == Kind::kSymlink ? Kind::kFile : kind;
  p.mode = kind == Kind::kDir ? 040755 : 0100644;
  return p;
}

inline PathInfo link_info(const std::string& path, const std::string& target, Kind target_kind) {
  PathInfo p;
  p.path = path;
  p.kind = Kind::kSymlink;
  p.link_target = target;
  p.real = target;
  p.real_kind = target_kind;
  return p;
}

// A home at /home/u, a project at /home/u/proj, cordon's folders under the XDG defaults.
struct FakeWorld {
  std::string home = "/home/u";
  std::string project = "/home/u/proj";
  Facts facts;
  Policy policy;

  FakeWorld() {
    EnvMap env;
    env.set("HOME", home);
    env.set("PATH", "/usr/bin:/bin");
    facts.home = home;
    facts.cwd = project;
    facts.project = project;
    facts.project_info = file_info(project, Kind::kDir);
    facts.folders = resolve_folders(env, home, project);
    facts.config_real = facts.folders.config_file;
    facts.session_id = "0123456789abcdef";
    facts.session_tmp = home + "/.cache/cordon/sandbox-tmp/0123456789abcdef";
    facts.empty_file = home + "/.cache/cordon/empty/file";
    facts.empty_dir = home + "/.cache/cordon/empty/dir";
    facts.env = env;
    facts.machine.bwrap = "/usr/bin/bwrap";
    facts.machine.arg_max = 2097152;
    facts.git.repo = true;
    facts.git.dot_git = project + "/.git";
    facts.git.git_dir = project + "/.git";
    facts.git.common_dir = project + "/.git";
    refresh_hidden();
  }

  // Recomputes the hidden entries from the policy, with no matches (nothing exists).
  void refresh_hidden() {
    facts.hidden.clear();
    for (const auto& e : hide_entries(policy, facts.folders, home))
      facts.hidden.push_back(HiddenFact{e.entry, e.why, {}, {}});
  }

  // Marks a hidden entry's path as existing (entry as listed, e.g. "~/.ssh").
  void exists_hidden(const std::string& entry, const PathInfo& info) {
    for (auto& h : facts.hidden)
      if (h.entry == entry) {
        h.matches.push_back(info);
        return;
      }
    facts.hidden.push_back(HiddenFact{entry, "[sandbox] hide", {info}, {}});
  }

  // Adds `n` existing hidden files under /srv (outside every writable root): one mount each
  // for bwrap, one path filter each for Seatbelt.
  void add_hidden_files(size_t n) {
    for (size_t i = 0; i < n; ++i) policy.hide.push_back("/srv/h" + std::to_string(i));
    refresh_hidden();
    for (size_t i = 0; i < n; ++i) {
      std::string path = "/srv/h" + std::to_string(i);
      exists_hidden(path, file_info(path));
    }
  }
};

// A request for `argv` with nothing else set.
inline Request cmd(std::vector<std::string> argv) {
  Request r;
  r.argv = std::move(argv);
  return r;
}

}  // namespace cordon::testing
