#include "plan/content_guard.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

namespace {

// The read-only binds that bubblewrap would make for GIT-1 and PROT-2/PROT-5 (not the hiding
// ones: those put something else over the path, and FS-10's unreadable folders, which cannot
// be read).
bool guarded_bind(const MountOp& m) {
  if (m.kind != MountKind::kRoBind || m.src != m.dest) return false;
  if (m.why == "protected: unreadable folder") return false;
  return starts_with(m.why, "git: ") || starts_with(m.why, "protected: ");
}

// The deepest of the project and its git folders that holds `abs` (not itself); "" when none.
std::string guard_root(const std::string& abs, const Facts& facts) {
  std::string root;
  for (const std::string& r : {facts.project, facts.git.common_dir, facts.git.git_dir})
    if (!r.empty() && abs != r && path_within(abs, r) && r.size() > root.size()) root = r;
  return root;
}

using Key = std::pair<std::string, std::string>;

Key key_of(const GuardedEntry& e) { return {e.root, e.rel}; }

bool restorable(const GuardedEntry& e) {
  return e.kind == Kind::kDir || e.kind == Kind::kSymlink ||
         (e.kind == Kind::kFile && e.has_content);
}

// A difference the command made to the entry (identity, kind, bytes, link text, mode).
bool changed(const GuardedEntry& b, const GuardedEntry& a) {
  if (a.kind != b.kind || a.dev != b.dev || a.ino != b.ino) return true;
  if (b.kind == Kind::kSymlink) return a.link_target != b.link_target;
  if (b.kind != Kind::kFile) return false;
  if (a.mode != b.mode || a.size != b.size) return true;
  return b.has_content && (!a.has_content || a.content != b.content);
}

bool below_any(const Key& k, const std::vector<Key>& dirs) {
  for (const auto& d : dirs)
    if (d.first == k.first && k.second != d.second && path_within(k.second, d.second)) return true;
  return false;
}

class Comparer {
 public:
  Comparer(const std::vector<GuardedEntry>& before, const std::vector<GuardedEntry>& after)
      : before_(before) {
    for (const auto& a : after) after_[key_of(a)] = &a;
    for (const auto& b : before) known_.insert(key_of(b));
  }

  std::vector<GuardStep> run(const std::vector<GuardedEntry>& after) {
    for (size_t i = 0; i < before_.size(); ++i) judge(i);
    for (const auto& a : after) judge_new(a);
    return std::move(steps_);
  }

 private:
  void judge(size_t i) {
    const GuardedEntry& b = before_[i];
    const Key k = key_of(b);
    if (b.unreadable) return;
    if (below_any(k, replaced_)) {  // its folder was put back: so is it
      if (restorable(b)) {
        steps_.push_back(restore(b, i));
        steps_.back().quiet = true;
      }
      if (b.kind == Kind::kDir) replaced_.push_back(k);
      return;
    }
    auto it = after_.find(k);
    if (it == after_.end() || it->second->unreadable) return;  // cannot tell: not a change
    const GuardedEntry& a = *it->second;
    if (a.kind != Kind::kMissing && !changed(b, a)) return;
    if (b.kind == Kind::kMissing) {  // gone before the command, there now: a plant
      steps_.push_back(move_aside(a, b.in_folder));
      return;
    }
    if (!restorable(b)) {
      steps_.push_back(note(b, fmt::format(
          "the command changed {}, which runs code or steers an agent later; cordon kept no "
          "copy of it (too large, or not a regular file), so it was left as it is. Check it "
          "before your next git command or editor session.",
          b.shown)));
      return;
    }
    if (a.kind != Kind::kMissing) steps_.push_back(move_aside(b, b.in_folder));
    steps_.push_back(restore(b, i));
    if (b.kind == Kind::kDir) replaced_.push_back(k);
  }

  // An entry inside a guarded folder that was not there before: moved aside (a planted hook).
  void judge_new(const GuardedEntry& a) {
    const Key k = key_of(a);
    if (!a.in_folder || a.kind == Kind::kMissing || a.unreadable || known_.count(k)) return;
    if (below_any(k, replaced_) || below_any(k, planted_)) return;
    const std::string parent = path_parent("/" + a.rel).substr(1);
    bool listed_parent = false;
    for (const auto& b : before_)
      listed_parent |= b.root == a.root && b.rel == parent && b.kind == Kind::kDir && b.listed;
    if (!listed_parent) return;
    steps_.push_back(move_aside(a, true));
    if (a.kind == Kind::kDir) planted_.push_back(k);
  }

  // A step on `e`: its place and name, the rest filled by the caller.
  static GuardStep step(GuardStep::Do what, const GuardedEntry& e) {
    GuardStep s;
    s.what = what;
    s.root = e.root;
    s.rel = e.rel;
    s.shown = e.shown;
    return s;
  }
  static GuardStep move_aside(const GuardedEntry& e, bool in_folder) {
    GuardStep s = step(GuardStep::Do::kMoveAside, e);
    s.to_project_root = in_folder;
    return s;
  }
  static GuardStep restore(const GuardedEntry& e, size_t i) {
    GuardStep s = step(GuardStep::Do::kRestore, e);
    s.index = i;
    return s;
  }
  static GuardStep note(const GuardedEntry& e, std::string text) {
    GuardStep s = step(GuardStep::Do::kNote, e);
    s.note = std::move(text);
    return s;
  }

  const std::vector<GuardedEntry>& before_;
  std::map<Key, const GuardedEntry*> after_;
  std::set<Key> known_;
  std::vector<Key> replaced_, planted_;
  std::vector<GuardStep> steps_;
};

}  // namespace

std::vector<GuardTarget> guard_targets(const Plan& plan, const Facts& facts) {
  std::vector<GuardTarget> out;
  if (plan.locks_git_files || plan.runner != Runner::kSandbox) return out;
  for (size_t i = 0; i < plan.mounts.size(); ++i) {
    const MountOp& m = plan.mounts[i];
    if (!guarded_bind(m)) continue;
    const std::string root = guard_root(m.dest, facts);
    if (root.empty()) continue;
    GuardTarget t{root, path_relative(m.dest, root),
                  path_within(m.dest, facts.project) ? path_relative(m.dest, facts.project)
                                                     : m.dest,
                  {}};
    for (size_t j = i + 1; j < plan.mounts.size(); ++j) {
      const MountOp& w = plan.mounts[j];
      if (w.kind == MountKind::kBind && w.dest != m.dest && path_within(w.dest, m.dest))
        t.skip.push_back(path_relative(w.dest, root));
    }
    bool seen = false;
    for (const auto& o : out) seen |= o.root == t.root && o.rel == t.rel;
    if (!seen) out.push_back(std::move(t));
  }
  // Parents first: a folder put back before the files inside it.
  std::stable_sort(out.begin(), out.end(), [](const GuardTarget& a, const GuardTarget& b) {
    return std::count(a.rel.begin(), a.rel.end(), '/') < std::count(b.rel.begin(), b.rel.end(), '/');
  });
  return out;
}

std::vector<GuardStep> compare_guarded(const std::vector<GuardedEntry>& before,
                                       const std::vector<GuardedEntry>& after) {
  return Comparer(before, after).run(after);
}

std::string guard_changed_note(const std::string& shown, const std::string& moved_to) {
  return fmt::format(
      "the command changed {}, which runs code or steers an agent later, so cordon moved its "
      "version to {} and put yours back. To keep the change, make it yourself (or with the "
      "file tools, which ask first).",  // PROT-7
      shown, moved_to);
}

std::string guard_restored_note(const std::string& shown) {
  return fmt::format(
      "the command removed or replaced {}, which runs code or steers an agent later; cordon "
      "put yours back.",
      shown);
}

std::string guard_not_restored_note(const std::string& shown, const std::string& why) {
  return fmt::format(
      "the command changed or removed {}, which runs code or steers an agent later, and cordon "
      "could not put yours back ({}). Check it on the host before your next git command or "
      "editor session.",
      shown, why);
}

}  // namespace cordon
