#include "plan/protect_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/paths.h"
#include "core/strings.h"
#include "plan/protected_list.h"

namespace cordon {

namespace {

constexpr size_t kFolderCap = 1000;    // PROT-5
constexpr size_t kGitFolderCap = 512;  // GIT-5


bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool any_tracked_below(const std::vector<std::string>& tracked, const std::string& rel) {
  for (const auto& t : tracked)
    if (t == rel || starts_with(t, rel + "/")) return true;
  return false;
}

bool in_claude_worktrees(const std::string& rel) {
  return rel == ".claude/worktrees" || starts_with(rel, ".claude/worktrees/");
}

class Protector {
 public:
  explicit Protector(Plan& p) : plan_(p) {}

  // A read-only bind, only where something could write (outside, all is read-only already).
  void read_only(const std::string& path, const std::string& why) {
    if (!path_within_any(path, plan_.writable_roots)) return;
    if (!done_.insert(path).second) return;
    plan_.mounts.push_back(MountOp{MountKind::kRoBind, path, path, why});
  }
  void writable(const std::string& path, const std::string& why) {
    plan_.mounts.push_back(MountOp{MountKind::kBind, path, path, why});
  }
  void decide(const std::string& path, const std::string& state, const std::string& why) {
    plan_.protect.push_back(ProtectDecision{path, state, why});
  }

 private:
  Plan& plan_;
  std::set<std::string> done_;
};

}  // namespace

std::optional<Refusal> protected_refusal(const Facts& facts) {
  // PROT-7: a planted path that could not be moved aside blocks every sandboxed command.
  for (const auto& p : facts.pending_quarantine)
    return Refusal{ErrorKind::kRefused,
                   fmt::format("{} was planted by an earlier command and could not be moved "
                               "aside, so sandboxed commands are refused until it is moved. Fix: "
                               "move it away (or remove it) on the host, then run the command "
                               "again.",
                               p)};
  // PROT-8: a protected link to the project or a folder above it would protect (or expose)
  // the whole project.
  for (const auto& f : facts.protected_paths) {
    if (f.info.kind != Kind::kSymlink || f.info.real.empty()) continue;
    if (path_within(facts.project, f.info.real))
      return Refusal{ErrorKind::kRefused,
                     fmt::format("the protected path {} is a symlink to {}, which holds the "
                                 "project itself, so sandboxed commands are refused. Fix: replace "
                                 "the link with a real file or folder on the host.",
                                 f.rel, f.info.real)};
  }
  // FS-10: an unsearchable project root.
  return std::nullopt;
}

std::vector<std::string> pinned_paths(const Facts& facts) {
  std::vector<std::string> out;
  const GitFacts& g = facts.git;
  // Inside the project, or inside a git folder outside it (writable there, GIT-2).
  auto inside = [&](const std::string& abs) {
    for (const std::string& r : {facts.project, g.common_dir, g.git_dir})
      if (!r.empty() && abs != r && path_within(abs, r)) return true;
    return false;
  };
  auto add = [&](const std::string& abs) {
    if (abs.empty() || !inside(abs)) return;
    if (!contains(out, abs)) out.push_back(abs);
  };
  // GIT-9: the git folder and the real git folders inside the project (a `.git` file is
  // locked read-only by the git facts: it says where the repository is, GIT-2).
  if (g.dot_git_kind == Kind::kDir) add(g.dot_git);
  for (const std::string& d : {g.common_dir, g.git_dir}) add(d);
  // GIT-1, GIT-9: the folders on the way from a git folder to each locked file (a worktree's
  // or a submodule's folder), so that renaming one cannot carry its locked files away.
  for (const auto& l : g.locks) {
    const std::string& lock = l.info.real;
    for (const std::string& root : {g.common_dir, g.git_dir}) {
      if (root.empty() || lock == root || !path_within(lock, root)) continue;
      std::vector<std::string> chain;
      for (std::string p = path_parent(lock); p != root && path_within(p, root); p = path_parent(p))
        chain.push_back(p);
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) add(*it);
      break;
    }
  }
  // GIT-8, GIT-9: a nested git folder kept because it was known clean is pinned (its config
  // and hooks are locked as "nested repository" files, host/git_facts.cc).
  for (const auto& l : g.locks)
    if (l.why.rfind("nested repository", 0) == 0) add(path_parent(l.info.path));
  // PROT-2, PROT-6: every protected folder, and the folders on the way to a protected entry
  // that is read-only (an untracked file, a folder), so that renaming a parent cannot carry the
  // read-only binds away. A tracked file's folder is left alone: git replaces tracked files.
  for (const auto& f : facts.protected_paths) {
    const PathInfo& i = f.info;
    if (!i.exists() || i.kind == Kind::kSymlink || !f.via_link.empty() || f.unreadable) continue;
    bool dir = i.real_kind == Kind::kDir;
    if (!dir && contains(f.tracked, f.rel)) continue;
    std::string parent = path_parent(f.rel);
    std::vector<std::string> ancestors;
    while (!parent.empty() && parent != "." && parent != "/") {
      ancestors.push_back(parent);
      parent = path_parent(parent);
    }
    for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it)
      add(path_join(facts.project, *it));
    if (dir) add(i.path);
  }
  return out;
}

void plan_protected(const Policy&, const Facts& facts, Plan& p, bool coarse) {
  Protector pr(p);
  const GitFacts& g = facts.git;
  // GIT-2: the real git folder (a worktree's or submodule's) stays writable when it lives
  // outside the project, so git add and commit keep working there.
  for (const std::string& d : {g.common_dir, g.git_dir}) {
    if (d.empty() || path_within_any(d, p.writable_roots)) continue;
    pr.writable(d, "writable: the project's git folder");
    p.writable_roots.push_back(d);
  }
  // GIT-9, PROT-2: a mount point cannot be renamed, removed or replaced (EBUSY). Each pin is a
  // writable bind of the folder onto itself, made before the read-only binds inside it, which
  // a later bind would cover.
  for (const auto& d : pinned_paths(facts)) {
    pr.writable(d, "pinned: cannot be renamed, removed or replaced");
    // A protected folder's own decision (below) says what it is; the others are named here.
    bool protected_entry = false;
    for (const auto& f : facts.protected_paths) protected_entry |= f.info.path == d;
    if (!protected_entry)
      pr.decide(path_within(d, facts.project) ? path_relative(d, facts.project) : d, "pinned",
                "a mount point of its own, so it cannot be renamed or replaced");  // GIT-9
  }
  // GIT-5: past 512 entries, modules/ and worktrees/ are read-only whole.
  std::vector<std::string> whole_git_dirs;
  if (!g.common_dir.empty()) {
    if (g.modules_entries > kGitFolderCap)
      whole_git_dirs.push_back(path_join(g.common_dir, "modules"));
    if (g.worktrees_entries > kGitFolderCap)
      whole_git_dirs.push_back(path_join(g.common_dir, "worktrees"));
  }
  for (const auto& d : whole_git_dirs) {
    pr.read_only(d, "git: folder past 512 entries");  // GIT-5
    pr.decide(d, "read-only whole", "more than 512 entries");
  }
  // GIT-1: what git runs by itself is read-only, even when tracked or inside a writable path.
  for (const auto& l : g.locks) {
    const std::string& target = l.info.real;
    if (path_within_any(target, whole_git_dirs)) continue;
    pr.read_only(target, "git: " + l.why);  // GIT-1
    pr.decide(target, l.folder ? "locked (whole folder)" : "locked", l.why);
  }

  // FS-10: folders made unreadable are read-only for the rest of the session.
  std::vector<std::string> unreadable = facts.unreadable_dirs;
  for (const auto& f : facts.protected_paths)
    for (const auto& d : f.unreadable_dirs)
      if (!contains(unreadable, d)) unreadable.push_back(d);
  for (const auto& d : unreadable) {
    std::string abs = path_join(facts.project, d);
    pr.read_only(abs, "protected: unreadable folder");  // FS-10
    pr.decide(d, "read-only whole (unreadable)",
              "made unreadable; check it before restoring its permissions");
  }

  for (const auto& f : facts.protected_paths) {
    const PathInfo& i = f.info;
    const std::string& rel = f.rel;
    if (contains(unreadable, rel) || path_within_any(rel, unreadable)) continue;
    if (!i.exists()) {
      pr.decide(rel, "watched (absent)",
                f.why + "; moved aside if a command creates it");  // PROT-6
      continue;
    }
    if (i.kind == Kind::kSymlink) {
      // The link itself cannot be made read-only by a mount (a mount follows it): a link that
      // a command re-points is moved aside afterwards (PROT-6). Its target is protected.
      if (!i.real.empty() && !contains(f.tracked, rel))
        pr.read_only(i.real, "protected: target of " + rel);  // PROT-2
      pr.decide(rel, "symlink watched",
                fmt::format("{}; points to {}{}", f.why, i.link_target,
                            i.real.empty() ? " (dangling)" : ", target read-only"));
      continue;
    }
    const bool tracked_self = contains(f.tracked, rel);
    if (i.real_kind != Kind::kDir) {
      if (tracked_self) {
        pr.decide(rel, "writable (tracked)",
                  f.why + "; changes show in `cordon review`");  // PROT-4
      } else {
        pr.read_only(i.path, "protected: " + rel);  // PROT-2
        pr.decide(rel, "read-only (untracked)", f.why);
      }
      continue;
    }
    // A folder (PROT-5).
    std::string whole_reason;
    if (f.tracked.empty())
      whole_reason = "nothing in it is tracked";
    else if (f.entry_count > kFolderCap)
      whole_reason = "more than 1,000 entries";
    else if (coarse)
      whole_reason = "the plan was over the mount budget";  // BUD-2
    if (!whole_reason.empty()) {
      pr.read_only(i.path, "protected: " + rel + " whole");  // PROT-5
      pr.decide(rel, "read-only whole", f.why + "; " + whole_reason);
      // PROT-1: agents keep git worktrees in .claude/worktrees/, which stays writable.
      if (rel == ".claude") {
        for (const auto& c : f.children)
          if (c.rel == ".claude/worktrees" && c.kind == Kind::kDir)
            pr.writable(path_join(facts.project, c.rel), "writable: .claude/worktrees");
      }
      continue;
    }
    pr.decide(rel, "file by file",
              f.why + "; tracked files writable, untracked read-only, new ones moved aside");
    std::vector<std::string> covered;
    for (const auto& c : f.children) {
      if (in_claude_worktrees(c.rel) || path_within_any(c.rel, covered)) continue;
      if (c.kind == Kind::kDir) {
        if (!any_tracked_below(f.tracked, c.rel)) {
          pr.read_only(path_join(facts.project, c.rel), "protected: " + c.rel);  // PROT-5
          covered.push_back(c.rel);
        }
        continue;
      }
      // Links inside are watched by the comparison after the command (a mount would follow).
      if (c.kind == Kind::kSymlink || contains(f.tracked, c.rel)) continue;
      pr.read_only(path_join(facts.project, c.rel), "protected: " + c.rel);  // PROT-5
    }
  }
}

void plan_credentials(const Facts& facts, const Request& req, Plan& p) {
  if (!req.network) return;
  if (!facts.credential_scan_refusal.empty()) {
    p.refusal = Refusal{ErrorKind::kRefused, facts.credential_scan_refusal};
    return;
  }
  for (const auto& c : facts.credential_files) {
    if (c.real.empty()) continue;
    bool dir = c.real_kind == Kind::kDir;
    p.mounts.push_back(MountOp{MountKind::kRoBind, dir ? facts.empty_dir : facts.empty_file, c.real,
                               "credential: hidden from a networked command"});  // NET-3
  }
  for (const auto& c : facts.credential_copies)
    p.mounts.push_back(MountOp{MountKind::kRoBind, c.copy.empty() ? facts.empty_file : c.copy,
                               c.path, "credential: seen without its secrets"});
}

}  // namespace cordon
