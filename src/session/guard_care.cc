#include "session/guard_care.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "core/paths.h"
#include "host/beneath.h"
#include "host/guard_reader.h"
#include "session/move_aside.h"

namespace cordon {

namespace {

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

std::set<std::string> run_guard_care(const ProtectedSnapshot& before, AftercareOutcome& out) {
  GuardCare care(before, out);
  care.run();
  return care.restored();
}

}  // namespace cordon
