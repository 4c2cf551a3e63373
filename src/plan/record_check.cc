#include "plan/record_check.h"

#include <fmt/format.h>

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

namespace {

constexpr size_t kMaxPath = 4096;

std::string shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  return "`" + out + (s.size() > 80 ? "...`" : "`");
}

bool clean_absolute(std::string_view p) {
  return !p.empty() && p[0] == '/' && p.size() < kMaxPath &&
         p.find('\0') == std::string_view::npos && normalize_path(p) == p;
}

bool listed(const std::vector<ProtectEntry>& entries, std::string_view rel) {
  for (const auto& e : entries)
    if (!e.anywhere && e.rel == rel) return true;
  return false;
}

std::string entry_problem(const SnapshotEntry& e, const SnapshotExpectations& want) {
  if (!clean_relative_path(e.rel))
    return fmt::format("the entry {} is not a clean path beneath the project", shown(e.rel));
  if (!listed(want.entries, e.rel))
    return fmt::format("the entry {} is not on the protected list", shown(e.rel));
  std::vector<std::string> beneath;
  for (const auto& c : e.children) beneath.push_back(c.rel);
  beneath.insert(beneath.end(), e.tracked_children.begin(), e.tracked_children.end());
  for (const auto& c : beneath)
    if (!clean_relative_path(c) || !starts_with(c, e.rel + "/"))
      return fmt::format("{} is not a clean path inside the protected entry {}", shown(c),
                         shown(e.rel));
  // A link on the way to the entry: one of the folders above it, project-relative.
  if (!e.via_link.empty() &&
      (!clean_relative_path(e.via_link) || !starts_with(e.rel, e.via_link + "/")))
    return fmt::format("the link {} is not on the way to {}", shown(e.via_link), shown(e.rel));
  return "";
}

std::string identity_problem(const IdentityEntry& i, const SnapshotExpectations& want) {
  bool root_ok = false;
  for (const std::string* r : {&want.project, &want.git_dir, &want.common_dir})
    root_ok |= !r->empty() && i.root == *r;
  if (!root_ok)
    return fmt::format("the identity root {} is neither the project nor its git folder",
                       shown(i.root));
  if (!clean_relative_path(i.rel))
    return fmt::format("the identity path {} is not a clean path beneath {}", shown(i.rel),
                       shown(i.root));
  return "";
}

// LL-1, GIT-1: a guarded path is put back by resume: it must lie beneath the project or one
// of its git folders, with a permission mode and nothing else.
std::string guarded_problem(const GuardedEntry& g, const SnapshotExpectations& want) {
  IdentityEntry as_identity{g.root, g.rel, g.kind, g.dev, g.ino, ""};
  if (std::string p = identity_problem(as_identity, want); !p.empty()) return p;
  if (g.mode > 07777) return fmt::format("the guarded path {} has a bad mode", shown(g.rel));
  if (g.has_content && g.content.size() != g.size)
    return fmt::format("the guarded path {} has bytes of the wrong size", shown(g.rel));
  return "";
}

}  // namespace

bool valid_session_id(std::string_view id) {
  if (id.size() != 16) return false;
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool clean_relative_path(std::string_view rel) {
  if (rel.empty() || rel.size() >= kMaxPath || rel[0] == '/') return false;
  if (rel.find('\0') != std::string_view::npos || rel.find('\n') != std::string_view::npos)
    return false;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t slash = rel.find('/', start);
    std::string_view c =
        rel.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (c.empty() || c == "." || c == "..") return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

std::string snapshot_problem(const ProtectedSnapshot& s, const SnapshotExpectations& want) {
  if (s.project != want.project)
    return fmt::format("its project {} is not the session's ({})", shown(s.project),
                       shown(want.project));
  for (const auto& e : s.entries)
    if (std::string p = entry_problem(e, want); !p.empty()) return p;
  if (!s.git_dir.empty() && s.git_dir != want.git_dir)
    return fmt::format("its git folder {} is not the project's", shown(s.git_dir));
  if (!s.common_dir.empty() && s.common_dir != want.common_dir)
    return fmt::format("its common git folder {} is not the project's", shown(s.common_dir));
  if (!s.dir_index.empty() && s.dir_index != want.dir_index)
    return fmt::format("its directory index {} is not the project's", shown(s.dir_index));
  for (const auto& i : s.identities)
    if (std::string p = identity_problem(i, want); !p.empty()) return p;
  for (const auto& g : s.guarded)
    if (std::string p = guarded_problem(g, want); !p.empty()) return p;
  for (const auto& [path, exists] : s.git_candidates)
    if (!clean_absolute(path)) return fmt::format("the git path {} is not clean", shown(path));
  for (const auto& [link, target] : s.git_links)
    if (!clean_absolute(link)) return fmt::format("the git link {} is not clean", shown(link));
  for (const auto& u : s.unreadable)
    if (!clean_relative_path(u) && !(clean_absolute(u) && path_within(u, want.project)))
      return fmt::format("the unreadable folder {} is not inside the project", shown(u));
  return "";
}

}  // namespace cordon
