#include "session/aftercare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "core/env.h"
#include "core/paths.h"
#include "core/trace.h"
#include "host/after_snapshot.h"
#include "host/beneath.h"
#include "host/git_folder_reader.h"
#include "session/guard_care.h"
#include "session/move_aside.h"
#include "session/plant_watch.h"

namespace cordon {

namespace {

// `path` relative to `root`; "" when it is the root, or not beneath it.
bool relative_beneath(const std::string& path, const std::string& root, std::string& rel) {
  if (!path_within(path, root)) return false;
  rel = path_relative(path, root);
  return true;
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

}  // namespace

AftercareOutcome run_aftercare(const ProtectedSnapshot& before, PlantWatch* watch) {
  AftercareOutcome out;
  ProtectedSnapshot after = read_snapshot_after(before);
  trace("aftercare: protected entries read");
  AftercareReport rep = compare_snapshots(before, after);
  for (const auto& m : rep.moves) perform_move(m, before.project, out);
  std::vector<std::pair<std::string, std::string>> unfound;
  for (const auto& r : rep.restores) perform_restore(r, out, unfound);
  judge_created_git_files(before, rep.created_git_files, out);
  trace("aftercare: protected entries judged");
  if (watch) {
    watch->finish(before.common_dir, !before.git_dir.empty(), out);
  } else if (!before.dir_index.empty()) {
    if (auto w = PlantWatch::from_disk(before.project, before.dir_index))
      w->finish(before.common_dir, !before.git_dir.empty(), out);
  }
  trace("aftercare: plants judged");
  // LL-1, GIT-1: last, on what the steps above left.
  const std::set<std::string> put_back = run_guard_care(before, out);
  for (const auto& [abs, note] : unfound)
    if (!put_back.count(abs)) out.notes.push_back(note);
  out.notes.insert(out.notes.end(), rep.notes.begin(), rep.notes.end());
  for (const auto& d : rep.newly_unreadable)
    if (std::find(out.newly_unreadable.begin(), out.newly_unreadable.end(), d) ==
        out.newly_unreadable.end())
      out.newly_unreadable.push_back(d);
  return out;
}

}  // namespace cordon
