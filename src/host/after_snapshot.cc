#include "host/after_snapshot.h"

#include <unistd.h>

#include "core/paths.h"
#include "host/beneath.h"
#include "host/listing_scope.h"
#include "host/path_info.h"
#include "host/protected_facts.h"

namespace cordon {

ProtectedSnapshot read_snapshot_after(const ProtectedSnapshot& before) {
  ListingScope listings;  // PERF-1: reads only, after the command
  std::vector<ProtectEntry> entries;
  GitFacts git;
  for (const auto& e : before.entries) {
    ProtectEntry pe;
    pe.rel = e.rel;
    pe.folder = true;
    entries.push_back(pe);
    git.tracked.insert(git.tracked.end(), e.tracked_children.begin(), e.tracked_children.end());
  }
  Facts f;
  f.project = before.project;
  f.protected_paths = read_protected_facts(entries, before.project, git);
  ProtectedSnapshot after = snapshot_of(f, nullptr);
  for (size_t i = 0; i < after.entries.size() && i < before.entries.size(); ++i)
    after.entries[i].file_by_file = before.entries[i].file_by_file;
  for (const auto& [path, existed] : before.git_candidates)
    after.git_candidates.push_back({path, read_path_info(path).exists()});
  for (const auto& [link, target] : before.git_links) {
    PathInfo l = read_path_info(link);
    if (l.kind == Kind::kSymlink) after.git_links.push_back({link, l.link_target});
  }
  // GIT-9: the identities, read beneath their roots without following links.
  for (const auto& b : before.identities) {
    IdentityEntry a = b;
    a.kind = Kind::kMissing;
    a.dev = a.ino = 0;
    if (auto root = Beneath::open(b.root); root.ok()) {
      BeneathStat st = root->lstat(b.rel);
      if (st.via_link.empty() && !st.error) {
        a.kind = st.kind;
        a.dev = st.dev;
        a.ino = st.ino;
      } else if (st.error) {
        a = b;  // cannot tell: not a change
      }
    }
    after.identities.push_back(std::move(a));
  }
  after.git_dir = before.git_dir;
  after.commondir_exists =
      !before.git_dir.empty() && access(path_join(before.git_dir, "commondir").c_str(), F_OK) == 0;
  return after;
}

}  // namespace cordon
