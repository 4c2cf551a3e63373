#include "session/aftercare.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "core/paths.h"
#include "host/after_snapshot.h"
#include "host/beneath.h"
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
  return make_error("io", fmt::format("cannot move {} aside (no free name)", rel), rel, EEXIST);
}

std::string shown_path(const std::string& abs, const std::string& project) {
  return path_within(abs, project) ? path_relative(abs, project) : abs;
}

void perform_move(const QuarantineAction& m, const std::string& project, AftercareOutcome& out) {
  const std::string root = m.root.empty() ? project : m.root;
  std::string rel, dest_rel;
  Result<std::string> moved = make_error("io", "outside the project", m.path, EXDEV);
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
      "the host (PROT-7).",
      m.shown, std::strerror(moved.error().sys_errno)));
}

// GIT-9: the user's original, renamed by the command within the same folder, is put back.
void perform_restore(const RestoreAction& r, AftercareOutcome& out) {
  auto b = Beneath::open(r.root);
  if (!b.ok()) return;
  std::string parent = path_parent("/" + r.rel).substr(1);
  std::string name = path_base("/" + r.rel);
  BeneathStat now = b->lstat(r.rel);
  if (now.kind != Kind::kMissing) return;  // something is still there: never replace it
  auto found = b->find_by_identity(parent, r.dev, r.ino);
  if (found.empty()) {
    out.notes.push_back(fmt::format(
        "{} was renamed or removed by the command, and cordon could not find it to put it "
        "back (GIT-9). Check the project before your next git command or editor session.",
        r.shown));
    return;
  }
  std::string from = parent.empty() ? found[0] : parent + "/" + found[0];
  Status st = b->rename(from, parent, name);
  if (st.ok())
    out.notes.push_back(
        fmt::format("the command renamed {} to {}; cordon put it back (GIT-9).", r.shown, from));
  else
    out.notes.push_back(fmt::format(
        "the command renamed {} to {}, and cordon could not put it back ({}); rename it back "
        "on the host before your next git command (GIT-9).",
        r.shown, from, std::strerror(st.error().sys_errno)));
}

}  // namespace

AftercareOutcome run_aftercare(const ProtectedSnapshot& before, PlantWatch* watch) {
  AftercareOutcome out;
  ProtectedSnapshot after = read_snapshot_after(before);
  AftercareReport rep = compare_snapshots(before, after);
  for (const auto& m : rep.moves) perform_move(m, before.project, out);
  for (const auto& r : rep.restores) perform_restore(r, out);
  if (watch) {
    watch->finish(before.common_dir, !before.git_dir.empty(), out);
  } else if (!before.dir_index.empty()) {
    if (auto w = PlantWatch::from_disk(before.project, before.dir_index))
      w->finish(before.common_dir, !before.git_dir.empty(), out);
  }
  out.notes.insert(out.notes.end(), rep.notes.begin(), rep.notes.end());
  out.newly_unreadable = rep.newly_unreadable;
  return out;
}

}  // namespace cordon
