#include "plan/aftercare_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool in_claude_worktrees(const std::string& rel) {
  return rel == ".claude/worktrees" || starts_with(rel, ".claude/worktrees/");
}

bool decided_file_by_file(const Plan* plan, const std::string& rel) {
  if (!plan) return false;
  for (const auto& d : plan->protect)  // a folder may also have a "pinned" decision
    if (d.path == rel && d.state == "file by file") return true;
  return false;
}

const SnapshotEntry* find_entry(const ProtectedSnapshot& s, const std::string& rel) {
  for (const auto& e : s.entries)
    if (e.rel == rel) return &e;
  return nullptr;
}

}  // namespace

std::string quarantine_name(const std::string& base, const std::string& hex16) {
  return base + ".cordon-quarantined-" + hex16;
}

std::string quarantine_note(const std::string& shown, const std::string& moved_to) {
  return fmt::format(
      "the command created {}, which runs code or steers an agent later, so "
      "cordon moved it to {}. To keep it, write it yourself (or with the "  // PROT-7
      "file tools, which ask first).",
      shown, moved_to);
}

ProtectedSnapshot snapshot_of(const Facts& facts, const Plan* plan) {
  ProtectedSnapshot s;
  s.project = facts.project;
  for (const auto& f : facts.protected_paths) {
    SnapshotEntry e;
    e.rel = f.rel;
    e.kind = f.info.kind == Kind::kSymlink ? Kind::kSymlink : f.info.real_kind;
    if (!f.info.exists()) e.kind = Kind::kMissing;
    e.link_target = f.info.link_target;
    e.dev = f.info.dev;
    e.ino = f.info.ino;
    e.tracked = contains(f.tracked, f.rel);
    e.file_by_file = decided_file_by_file(plan, f.rel);
    e.children = f.children;
    e.tracked_children = f.tracked;
    e.via_link = f.via_link;
    e.via_link_target = f.via_link_target;
    if (!e.via_link.empty()) {
      // Reached only through a link: not inside the project, so nothing of it is watched.
      e.kind = Kind::kMissing;
      e.dev = e.ino = 0;
      e.children.clear();
    }
    s.entries.push_back(std::move(e));
    for (const auto& d : f.unreadable_dirs)
      if (!contains(s.unreadable, d)) s.unreadable.push_back(d);
  }
  s.git_candidates = facts.git.lock_candidates;
  s.git_links = facts.git.links_on_the_way;
  s.git_dir = facts.git.git_dir;
  s.commondir_exists = facts.git.commondir_existed;
  s.identities = git_identities(facts);
  s.common_dir = facts.git.common_dir;
  return s;
}

std::vector<IdentityEntry> git_identities(const Facts& facts) {
  std::vector<IdentityEntry> out;
  const GitFacts& g = facts.git;
  if (g.dot_git_ino != 0 && path_within(g.dot_git, facts.project))
    out.push_back(IdentityEntry{facts.project, path_relative(g.dot_git, facts.project),
                                g.dot_git_kind, g.dot_git_dev, g.dot_git_ino,
                                "the project's git folder"});
  for (const auto& l : g.locks) {
    const PathInfo& i = l.info;
    if (i.kind == Kind::kSymlink || i.real.empty() || i.real != i.path) continue;
    std::string root;
    for (const std::string& r : {facts.project, g.common_dir, g.git_dir})
      if (!r.empty() && path_within(i.real, r) && i.real != r) {
        root = r;
        break;
      }
    if (root.empty()) continue;
    IdentityEntry e{root, path_relative(i.real, root), i.real_kind, i.dev, i.ino, l.why};
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(std::move(e));
  }
  return out;
}

AftercareReport compare_snapshots(const ProtectedSnapshot& before,
                                  const ProtectedSnapshot& after) {
  AftercareReport r;
  const std::string& project = before.project;
  std::set<std::string> moving;
  auto move = [&](const std::string& rel, bool inside_protected_folder) {
    std::string abs = path_join(project, rel);
    if (!moving.insert(abs).second) return;
    // PROT-7: beside it, or at the project root when it was inside a protected folder.
    std::string dest = inside_protected_folder ? project : path_parent(abs);
    r.moves.push_back(QuarantineAction{abs, dest, rel, project});
  };
  auto restore = [&](const std::string& root, const std::string& rel, uint64_t dev, uint64_t ino,
                     const std::string& shown, Kind kind) {
    r.restores.push_back(RestoreAction{root, rel, dev, ino, shown, kind});
  };
  for (const auto& b : before.entries) {
    const SnapshotEntry* a = find_entry(after, b.rel);
    if (!a) continue;
    // FS-2, PROT-7: a link now on the way to a protected path is moved aside as the link,
    // never followed (it would lead out of the project).
    if (!a->via_link.empty() &&
        (a->via_link != b.via_link || a->via_link_target != b.via_link_target)) {
      move(a->via_link, false);
      continue;
    }
    // GIT-9: a protected folder or read-only file replaced by another one (renamed away,
    // a copy put in its place): the copy is moved aside and the original put back.
    const bool watched_identity = b.ino != 0 && b.via_link.empty() &&
                                  (b.kind == Kind::kDir || (b.kind == Kind::kFile && !b.tracked));
    if (watched_identity && (a->kind == Kind::kMissing || a->dev != b.dev || a->ino != b.ino)) {
      if (a->kind != Kind::kMissing) move(b.rel, false);
      restore(project, b.rel, b.dev, b.ino, b.rel, b.kind);
      continue;
    }
    if (a->kind == Kind::kMissing) continue;
    if (b.kind == Kind::kMissing) {
      // PROT-1: a new .claude/ holding only worktrees/ is kept (git worktree add).
      if (b.rel == ".claude" && a->kind == Kind::kDir) {
        bool only_worktrees = true;
        for (const auto& c : a->children)
          if (!in_claude_worktrees(c.rel)) only_worktrees = false;
        if (only_worktrees) continue;
      }
      move(b.rel, false);  // PROT-6: a new protected path, even if git now tracks it
      continue;
    }
    if (b.kind == Kind::kSymlink) {
      if (a->kind != Kind::kSymlink || a->link_target != b.link_target) move(b.rel, false);
      continue;
    }
    if (a->kind != b.kind) {
      move(b.rel, false);  // PROT-6: replaced by a path of another kind
      continue;
    }
    if (!b.file_by_file) continue;
    // A folder judged file by file: whatever is new inside it is moved to the project root.
    std::vector<std::string> moved_dirs;
    for (const auto& c : a->children) {
      if (in_claude_worktrees(c.rel)) continue;
      bool under_moved = false;
      for (const auto& d : moved_dirs) under_moved |= path_within(c.rel, d);
      if (under_moved) continue;
      const ChildFact* old = nullptr;
      for (const auto& o : b.children)
        if (o.rel == c.rel) old = &o;
      bool changed = !old || old->kind != c.kind ||
                     (c.kind == Kind::kSymlink && old->link_target != c.link_target);
      if (!changed) continue;
      move(c.rel, true);
      if (c.kind == Kind::kDir) moved_dirs.push_back(c.rel);
    }
  }
  // GIT-3: a new commondir would point git at another repository's hooks and config.
  if (!before.commondir_exists && after.commondir_exists && !before.git_dir.empty()) {
    std::string abs = path_join(before.git_dir, "commondir");
    r.moves.push_back(
        QuarantineAction{abs, before.git_dir, tilde_path(abs, project), before.git_dir});
  }
  // GIT-9: the git folder and git's auto-run files are the ones of the snapshot.
  for (const auto& b : before.identities) {
    const IdentityEntry* a = nullptr;
    for (const auto& x : after.identities)
      if (x.root == b.root && x.rel == b.rel) a = &x;
    if (!a || (a->kind == b.kind && a->dev == b.dev && a->ino == b.ino)) continue;
    std::string abs = path_join(b.root, b.rel);
    std::string shown = path_within(abs, project) ? path_relative(abs, project) : abs;
    if (a->kind != Kind::kMissing && moving.insert(abs).second)
      r.moves.push_back(QuarantineAction{abs, path_parent(abs), shown, b.root});
    restore(b.root, b.rel, b.dev, b.ino, shown, b.kind);
  }
  // GIT-4: git files that did not exist at session start were not locked. Inside the project
  // or a git folder they are judged by the host (kept only when known clean, GIT-8's
  // allowlist); elsewhere (the global config) a note says so.
  for (const auto& [path, existed] : before.git_candidates) {
    if (existed) continue;
    for (const auto& [p2, exists] : after.git_candidates) {
      if (p2 != path || !exists) continue;
      bool inside = false;
      for (const std::string& root : {project, before.git_dir, before.common_dir})
        inside |= !root.empty() && path != root && path_within(path, root);
      if (inside) {
        r.created_git_files.push_back(path);
        continue;
      }
      r.notes.push_back(fmt::format(
          "the command created {}, which git reads and may run code from; it did not exist "
          "when the session started, so it was not locked. Check it before your next git "
          "command outside the sandbox.",
          path));
    }
  }
  // GIT-6: a symlink on the way to a locked git file was re-pointed or removed.
  for (const auto& [link, target] : before.git_links) {
    std::string now;
    bool still = false;
    for (const auto& [l2, t2] : after.git_links)
      if (l2 == link) {
        still = true;
        now = t2;
      }
    if (!still || now != target)
      r.notes.push_back(fmt::format(
          "the command {} the symlink {} (it pointed to {}), which leads to files git runs "
          "code from. Restore it before your next git command.",  // GIT-6
          still ? "re-pointed" : "removed", link, target));
  }
  // FS-10: a folder made unreadable stays read-only for the rest of the session.
  for (const auto& d : after.unreadable) {
    if (contains(before.unreadable, d)) continue;
    r.newly_unreadable.push_back(d);
    r.notes.push_back(
        fmt::format("the command made {} unreadable, so cordon cannot check what is inside; it is "
                    "read-only for the rest of this session. Check its contents before restoring "
                    "its permissions (chmod u+rwx {}).",
                    d, shell_quote(d)));
  }
  return r;
}

namespace {

// The git subcommand of a command line, skipping git's global options; "" when not git.
std::vector<std::string> git_invocation(const std::vector<std::string>& words, size_t start) {
  std::vector<std::string> out;
  size_t i = start + 1;
  while (i < words.size()) {
    const std::string& w = words[i];
    if (w == "-C" || w == "-c" || w == "--git-dir" || w == "--work-tree" || w == "--namespace") {
      i += 2;
      continue;
    }
    if (starts_with(w, "-")) {
      ++i;
      continue;
    }
    break;
  }
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "&&" || w == ";" || w == "||" || w == "|") break;
    out.push_back(w);
  }
  return out;
}

}  // namespace

std::optional<std::string> git_stopped_short_note(const std::vector<std::string>& argv,
                                                  int exit_code, const std::string& output) {
  (void)exit_code;
  // The words to look in: the argv, or a shell script's words.
  std::vector<std::string> words = argv;
  if (argv.size() >= 3 && argv[1] == "-c") {
    words.clear();
    for (const auto& w : split(argv[2], ' '))
      if (!w.empty()) {
        std::string t = w;
        while (!t.empty() && (t.back() == ';' || t.back() == '\n')) t.pop_back();
        words.push_back(t);
      }
  }
  std::string sub;
  std::vector<std::string> rest;
  for (size_t i = 0; i < words.size(); ++i) {
    if (path_base(words[i]) != "git") continue;
    rest = git_invocation(words, i);
    if (rest.empty()) continue;
    const std::string& s = rest[0];
    bool hard = std::find(rest.begin(), rest.end(), "--hard") != rest.end();
    bool pop = rest.size() > 1 && (rest[1] == "pop" || rest[1] == "apply");
    if (s == "checkout" || s == "switch" || s == "merge" || s == "pull" ||
        (s == "reset" && hard) || (s == "stash" && pop) || s == "restore" || s == "rebase" ||
        s == "cherry-pick") {
      sub = s;
      break;
    }
  }
  if (sub.empty()) return std::nullopt;
  std::vector<std::string> files;
  for (const auto& line : split(output, '\n')) {
    bool refusal = line.find("Read-only file system") != std::string::npos ||
                   line.find("Device or resource busy") != std::string::npos ||
                   line.find("Operation not permitted") != std::string::npos ||
                   line.find("Permission denied") != std::string::npos;
    if (!refusal) continue;
    std::string path;
    for (const char* pre : {"unable to unlink old '", "unable to create file ",
                            "cannot create directory at '", "unable to write file ",
                            "unable to unlink '", "failed to unlink '", "could not open '"}) {
      size_t p = line.find(pre);
      if (p == std::string::npos) continue;
      p += std::string(pre).size();
      size_t e = line.find_first_of(std::string(pre).back() == '\'' ? "'" : ":", p);
      path = line.substr(p, e == std::string::npos ? std::string::npos : e - p);
      break;
    }
    if (!path.empty() && std::find(files.begin(), files.end(), path) == files.end())
      files.push_back(path);
  }
  if (files.empty()) return std::nullopt;
  const std::string quoted = shell_join(files);
  if (sub == "checkout" || sub == "switch" || sub == "restore")
    return fmt::format(
        "git could not update {} because the sandbox keeps {} read-only. "  // GIT-7
        "To finish, run outside the sandbox (--outside-sandbox, which asks): "
        "git checkout -- {}",
        quoted, files.size() == 1 ? "it" : "them", quoted);
  return fmt::format(
      "git could not update {} because the sandbox keeps {} read-only; "
      "the {} stopped short. Check `git status` before going on.",
      quoted, files.size() == 1 ? "it" : "them", sub);
}

}  // namespace cordon
