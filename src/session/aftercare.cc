#include "session/aftercare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "core/env.h"
#include "core/paths.h"
#include "host/after_snapshot.h"
#include "host/beneath.h"
#include "host/git_folder_reader.h"
#include "host/guard_reader.h"
#include "session/plant_watch.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// `path` relative to `root`; "" when it is the root, or not beneath it.
bool relative_beneath(const std::string& path, const std::string& root, std::string& rel) {
  if (!path_within(path, root)) return false;
  rel = path_relative(path, root);
  return true;
}

// Moves `rel` into `dest_rel` beneath `b` as <name>.cordon-quarantined-<16 hex>; returns the
// new absolute path. Never follows a link, never replaces.
Result<std::string> move_aside(const Beneath& b, const std::string& rel,
                               const std::string& dest_rel) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string name = quarantine_name(path_base("/" + rel), random_hex16());
    Status st = b.rename(rel, dest_rel, name);
    if (st.ok()) return path_join(path_join(b.root(), dest_rel), name);
    if (st.error().sys_errno == EEXIST) continue;
    return st.error();
  }
  return make_error(ErrorKind::kIo, fmt::format("cannot move {} aside (no free name)", rel), rel,
                    EEXIST);
}

std::string shown_path(const std::string& abs, const std::string& project) {
  return path_within(abs, project) ? path_relative(abs, project) : abs;
}

void perform_move(const QuarantineAction& m, const std::string& project, AftercareOutcome& out) {
  const std::string root = m.root.empty() ? project : m.root;
  std::string rel, dest_rel;
  Result<std::string> moved = make_error(ErrorKind::kIo, "outside the project", m.path, EXDEV);
  auto b = Beneath::open(root);
  if (!b.ok()) {
    moved = b.error();
  } else if (relative_beneath(m.path, root, rel) && !rel.empty() &&
             relative_beneath(m.dest_dir, root, dest_rel)) {
    moved = move_aside(*b, rel, dest_rel);
    // A protected folder on another filesystem keeps what was planted in it, moved aside in
    // place (a rename cannot cross filesystems, and nothing is ever copied and deleted).
    if (!moved.ok() && moved.error().sys_errno == EXDEV)
      moved = move_aside(*b, rel, path_relative(path_parent(m.path), root));
  }
  if (moved.ok()) {
    std::string to = shown_path(*moved, project);
    out.moved.push_back(QuarantineMove{m.shown, to});
    out.notes.push_back(quarantine_note(m.shown, to));
    return;
  }
  out.failed.push_back(m.path);
  out.notes.push_back(fmt::format(
      "the command created {}, which runs code or steers an agent later, and cordon could not "
      "move it aside ({}). Sandboxed commands are refused until it is moved: move it away on "
      "the host.",  // PROT-7
      m.shown, std::strerror(moved.error().sys_errno)));
}

// GIT-9: the user's original, renamed by the command within the same folder, is put back.
// When it cannot be found, the note waits in `unfound` (LL-1: the content guard may still
// put the user's bytes back).
void perform_restore(const RestoreAction& r, AftercareOutcome& out,
                     std::vector<std::pair<std::string, std::string>>& unfound) {
  auto b = Beneath::open(r.root);
  if (!b.ok()) return;
  std::string parent = path_parent("/" + r.rel).substr(1);
  std::string name = path_base("/" + r.rel);
  BeneathStat now = b->lstat(r.rel);
  if (now.kind != Kind::kMissing) return;  // something is still there: never replace it
  auto found = b->find_by_identity(parent, r.dev, r.ino);
  // A reused inode number: what the command made in the original's place, not the original.
  std::erase_if(found, [&](const std::string& n) {
    return r.kind != Kind::kMissing &&
           b->lstat(parent.empty() ? n : parent + "/" + n).kind != r.kind;
  });
  if (found.empty()) {
    unfound.emplace_back(path_join(r.root, r.rel), fmt::format(
        "{} was renamed or removed by the command, and cordon could not find it to put it "
        "back. Check the project before your next git command or editor session.",  // GIT-9
        r.shown));
    return;
  }
  std::string from = parent.empty() ? found[0] : parent + "/" + found[0];
  Status st = b->rename(from, parent, name);
  if (st.ok())
    out.notes.push_back(
        fmt::format("the command renamed {} to {}; cordon put it back.", r.shown, from));  // GIT-9
  else
    out.notes.push_back(fmt::format(
        "the command renamed {} to {}, and cordon could not put it back ({}); rename it back "
        "on the host before your next git command.",
        r.shown, from, std::strerror(st.error().sys_errno)));
}

extern "C" char** environ;

// GIT-4, GIT-8: why a git file the command created (and that did not exist at session start)
// is not known clean: a folder is judged as a hooks folder (hooks/, a core.hooksPath folder),
// a file as a config (config.worktree, an include file; anything git cannot read as one, an
// fsmonitor script, is unclean), commondir and gitdir always are (GIT-3).
std::string created_git_file_unclean(const Beneath& b, const std::string& rel) {
  static const EnvMap env = EnvMap::from_environ(environ);
  std::string name = path_base("/" + rel);
  if (name == "commondir" || name == "gitdir")
    return "it sends git to another repository's config and hooks";
  BeneathStat st = b.lstat(rel);
  if (st.kind == Kind::kMissing && !st.error && st.via_link.empty()) return "";
  if (st.kind == Kind::kDir) {
    Kind kind;
    bool listed;
    std::vector<std::pair<std::string, Kind>> entries;
    read_git_hooks(b, rel, kind, listed, entries);
    return git_hooks_unclean(kind, listed, entries);
  }
  GitConfigFact c = read_git_config(b, rel, env);
  if (st.kind != Kind::kFile) c.kind = st.kind == Kind::kMissing ? Kind::kOther : st.kind;
  return git_config_unclean(c, name, GitFolderRole::kNested);
}

void judge_created_git_files(const ProtectedSnapshot& before,
                             const std::vector<std::string>& created, AftercareOutcome& out) {
  for (const auto& path : created) {
    std::string root;
    for (const std::string& r : {before.project, before.common_dir, before.git_dir})
      if (!r.empty() && path != r && path_within(path, r) && r.size() > root.size()) root = r;
    auto b = Beneath::open(root);
    if (root.empty() || !b.ok()) continue;
    std::string rel = path_relative(path, root);
    std::string why = created_git_file_unclean(*b, rel);
    if (why.empty()) continue;  // known clean: kept
    std::string shown = tilde_path(path, "");
    if (path_within(path, before.project)) shown = path_relative(path, before.project);
    auto moved = move_aside(*b, rel, path_relative(path_parent(path), root));
    if (moved.ok()) {
      std::string to = path_within(*moved, before.project) ? path_relative(*moved, before.project)
                                                           : *moved;
      out.moved.push_back(QuarantineMove{shown, to});
      out.notes.push_back(fmt::format(
          "the command created {}, which git reads and runs code from, and it is not known "
          "clean ({}); cordon moved it to {}. To keep it, check it and move it back yourself.",
          shown, why, to));
    } else {
      out.failed.push_back(path);
      out.notes.push_back(fmt::format(
          "the command created {}, which git reads and runs code from ({}), and cordon could "
          "not move it aside ({}). Sandboxed commands are refused until it is moved: move it "
          "away on the host.",
          shown, why, std::strerror(moved.error().sys_errno)));
    }
  }
}

// LL-1, GIT-1, PROT-7: a guarded path the command changed or planted in is moved aside (the
// command's version) and the user's bytes put back; read after every other move and restore,
// so it sees what they left.
class GuardCare {
 public:
  GuardCare(const ProtectedSnapshot& before, AftercareOutcome& out) : before_(before), out_(out) {}

  // The absolute paths put back from the bytes kept.
  const std::set<std::string>& restored() const { return restored_; }

  void run() {
    if (before_.guarded.empty()) return;
    const auto after = read_guarded_after(before_.guarded, before_.project);
    const auto steps = compare_guarded(before_.guarded, after);
    for (size_t i = 0; i < steps.size(); ++i) {
      step(steps[i]);
      // A plant (moved aside, nothing to put back) is said now; a changed file with its restore.
      const bool restore_next = i + 1 < steps.size() &&
                                steps[i + 1].what == GuardStep::Do::kRestore &&
                                steps[i + 1].root == steps[i].root && steps[i + 1].rel == steps[i].rel;
      if (steps[i].what != GuardStep::Do::kMoveAside || restore_next) continue;
      auto m = moved_to_.find(path_join(steps[i].root, steps[i].rel));
      if (m == moved_to_.end()) continue;
      out_.notes.push_back(quarantine_note(steps[i].shown, m->second));  // PROT-7
      moved_to_.erase(m);
    }
  }

 private:
  void step(const GuardStep& s) {
    const std::string abs = path_join(s.root, s.rel);
    if (s.what == GuardStep::Do::kNote) {
      out_.notes.push_back(s.note);
    } else if (s.what == GuardStep::Do::kMoveAside) {
      move(s, abs);
    } else if (!stuck_.count(abs)) {
      restore(s, abs);
    }
  }

  void move(const GuardStep& s, const std::string& abs) {
    auto b = Beneath::open_within(before_.project, s.root);
    const bool to_root = s.to_project_root && s.root == before_.project;
    auto moved = b.ok() ? move_aside(*b, s.rel, to_root ? "" : path_parent("/" + s.rel).substr(1))
                        : Result<std::string>(b.error());
    if (!moved.ok() && b.ok() && moved.error().sys_errno == EXDEV)
      moved = move_aside(*b, s.rel, path_parent("/" + s.rel).substr(1));
    if (!moved.ok()) {
      stuck_.insert(abs);  // nothing is put back over it
      out_.failed.push_back(abs);
      out_.notes.push_back(fmt::format(
          "the command changed {}, which runs code or steers an agent later, and cordon could "
          "not move its version aside ({}). Sandboxed commands are refused until it is moved: "
          "move it away on the host.",  // PROT-7
          s.shown, std::strerror(moved.error().sys_errno)));
      return;
    }
    std::string to = shown_path(*moved, before_.project);
    out_.moved.push_back(QuarantineMove{s.shown, to});
    moved_to_[abs] = to;
  }

  void restore(const GuardStep& s, const std::string& abs) {
    Status st = put_back(before_.guarded[s.index], before_.project);
    if (st.ok()) restored_.insert(abs);
    auto moved = moved_to_.find(abs);
    if (!st.ok()) {
      out_.notes.push_back(guard_not_restored_note(s.shown, std::strerror(st.error().sys_errno)));
      if (moved != moved_to_.end()) out_.notes.push_back(quarantine_note(s.shown, moved->second));
    } else if (moved != moved_to_.end()) {
      out_.notes.push_back(guard_changed_note(s.shown, moved->second));
    } else if (!s.quiet) {
      out_.notes.push_back(guard_restored_note(s.shown));
    }
    if (moved != moved_to_.end()) moved_to_.erase(moved);
  }

  const ProtectedSnapshot& before_;
  AftercareOutcome& out_;
  std::set<std::string> stuck_;
  std::set<std::string> restored_;  // put back from the bytes kept
  std::map<std::string, std::string> moved_to_;  // moved aside, its note not said yet
};

}  // namespace

AftercareOutcome run_aftercare(const ProtectedSnapshot& before, PlantWatch* watch) {
  AftercareOutcome out;
  ProtectedSnapshot after = read_snapshot_after(before);
  AftercareReport rep = compare_snapshots(before, after);
  for (const auto& m : rep.moves) perform_move(m, before.project, out);
  std::vector<std::pair<std::string, std::string>> unfound;
  for (const auto& r : rep.restores) perform_restore(r, out, unfound);
  judge_created_git_files(before, rep.created_git_files, out);
  if (watch) {
    watch->finish(before.common_dir, !before.git_dir.empty(), out);
  } else if (!before.dir_index.empty()) {
    if (auto w = PlantWatch::from_disk(before.project, before.dir_index))
      w->finish(before.common_dir, !before.git_dir.empty(), out);
  }
  GuardCare guard(before, out);
  guard.run();  // LL-1, GIT-1: last, on what the steps above left
  for (const auto& [abs, note] : unfound)
    if (!guard.restored().count(abs)) out.notes.push_back(note);
  out.notes.insert(out.notes.end(), rep.notes.begin(), rep.notes.end());
  for (const auto& d : rep.newly_unreadable)
    if (std::find(out.newly_unreadable.begin(), out.newly_unreadable.end(), d) ==
        out.newly_unreadable.end())
      out.newly_unreadable.push_back(d);
  return out;
}

}  // namespace cordon
