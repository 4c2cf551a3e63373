#include "plan/landlock_rules.h"

#include <algorithm>
#include <set>

#include "plan/plan.h"

namespace cordon {

namespace {

// "/a/b" is `root` or below it.
bool at_or_below(const std::string& path, const std::string& root) {
  if (root == "/") return !path.empty() && path[0] == '/';
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

std::string child_of(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

bool is_hidden(const std::string& path, const std::vector<std::string>& hidden) {
  return std::any_of(hidden.begin(), hidden.end(),
                     [&](const std::string& h) { return at_or_below(path, h); });
}

// Something hidden lies strictly below `path`.
bool holds_hidden(const std::string& path, const std::vector<std::string>& hidden) {
  return std::any_of(hidden.begin(), hidden.end(),
                     [&](const std::string& h) { return h != path && at_or_below(h, path); });
}

// Grants `access` on everything at or below `dir` but the hidden paths: `dir` whole when
// nothing hidden lies below it, else its entries one by one (and `dir` itself list-only when
// the grant is a read, so that its names can still be listed).
void grant_around(const std::string& dir, LandlockAccess access, bool no_follow,
                  const LandlockInput& in, LandlockRules& out) {
  if (no_follow && is_hidden(dir, in.hidden)) return;
  if (!holds_hidden(dir, in.hidden)) {
    out.grants.push_back({dir, access, no_follow});
    return;
  }
  auto listing = in.listings.find(dir);
  if (listing == in.listings.end()) {
    out.unlisted.push_back(dir);
    return;
  }
  if (access == LandlockAccess::kRead)
    out.grants.push_back({dir, LandlockAccess::kList, no_follow});
  for (const auto& name : listing->second) grant_around(child_of(dir, name), access, true, in, out);
}

}  // namespace

std::vector<std::string> landlock_folders_to_list(const std::vector<std::string>& hidden) {
  std::set<std::string> dirs;
  for (const auto& h : hidden) {
    if (h.empty() || h[0] != '/' || h == "/") continue;
    for (std::string d = parent_of(h);; d = parent_of(d)) {
      dirs.insert(d);
      if (d == "/") break;
    }
  }
  return {dirs.begin(), dirs.end()};
}

LandlockRules landlock_rules(const LandlockInput& in) {
  LandlockRules out;
  if (is_hidden("/", in.hidden)) return out;
  grant_around("/", LandlockAccess::kRead, false, in, out);
  // A writable root inside a hidden folder is granted: the planner put it there (the session's
  // temp folder inside cordon's hidden cache), as bubblewrap binds it over the hidden folder.
  for (const auto& w : in.writable)
    if (!w.empty() && w[0] == '/') grant_around(w, LandlockAccess::kReadWrite, false, in, out);
  for (const auto& d : in.devices)
    if (!is_hidden(d, in.hidden)) out.grants.push_back({d, LandlockAccess::kReadWrite, false});
  return out;
}

std::vector<std::string> hidden_paths_of(const Plan& plan) {
  std::vector<std::string> out;
  for (const auto& h : plan.hidden) {
    if (!h.hidden) continue;
    if (h.path == "~")
      out.push_back(plan.home);
    else if (h.path.rfind("~/", 0) == 0)
      out.push_back(plan.home + h.path.substr(1));
    else
      out.push_back(h.path);
  }
  // What bubblewrap puts something else over (a credential hidden from a networked command,
  // a copy without its secrets, NET-3, FS-12) cannot be replaced here: it is hidden whole.
  for (const auto& m : plan.mounts)
    if (m.kind == MountKind::kRoBind && m.src != m.dest && !m.dest.empty() && m.dest[0] == '/' &&
        std::find(out.begin(), out.end(), m.dest) == out.end())
      out.push_back(m.dest);
  return out;
}

std::vector<std::string> landlock_default_devices() {
  return {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"};
}

std::vector<std::string> landlock_machine_private() {
  return {"/dev/pts", "/dev/shm", "/dev/mqueue"};
}

}  // namespace cordon
