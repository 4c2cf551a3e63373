#include "plan/mount_order.h"

#include <fmt/format.h>

#include <map>

#include "core/paths.h"

namespace cordon {

namespace {

bool writable(const MountOp& m) { return m.kind == MountKind::kBind; }

// A later writable bind of the host path itself over what an earlier mount protected (made
// read-only, hid, replaced). A writable bind of another folder there (PKG-2's project cache
// over the user's own) shows other content: not a conflict.
bool conflicts(const MountOp& earlier, const MountOp& later) {
  return earlier.dest == later.dest && writable(later) && later.src == later.dest &&
         !writable(earlier);
}

Refusal conflict_refusal(const MountOp& earlier, const MountOp& later) {
  return Refusal{ErrorKind::kInvalid,
                 fmt::format("the sandbox would bind {} writable over {} ({}), which an earlier "
                             "mount made read-only ({}). The command was not run. Fix: remove "
                             "one of the two from the configuration ([sandbox] writable, "
                             "protected or hidden paths).",
                             later.src, later.dest, later.why, earlier.why)};
}

// Whether a mount between `from` and `to` (exclusive) lies below `dest`.
bool child_between(const std::vector<MountOp>& mounts, size_t from, size_t to,
                   const std::string& dest) {
  for (size_t k = from + 1; k < to; ++k)
    if (mounts[k].dest != dest && path_within(mounts[k].dest, dest)) return true;
  return false;
}

}  // namespace

std::optional<Refusal> conflicting_mount(const std::vector<MountOp>& mounts) {
  std::map<std::string, size_t> protected_at;  // destination -> an earlier read-only mount
  for (size_t i = 0; i < mounts.size(); ++i) {
    auto at = protected_at.find(mounts[i].dest);
    if (at != protected_at.end() && conflicts(mounts[at->second], mounts[i]))
      return conflict_refusal(mounts[at->second], mounts[i]);
    if (!writable(mounts[i]) && at == protected_at.end()) protected_at[mounts[i].dest] = i;
  }
  return std::nullopt;
}

std::optional<Refusal> dedupe_mounts(std::vector<MountOp>& mounts) {
  if (auto r = conflicting_mount(mounts)) return r;
  std::map<std::string, size_t> last;  // destination -> index of its last mount
  for (size_t i = 0; i < mounts.size(); ++i) last[mounts[i].dest] = i;
  std::vector<MountOp> kept;
  kept.reserve(mounts.size());
  for (size_t i = 0; i < mounts.size(); ++i) {
    const size_t j = last[mounts[i].dest];
    if (j != i && !child_between(mounts, i, j, mounts[i].dest)) continue;  // covered by j
    kept.push_back(std::move(mounts[i]));
  }
  mounts = std::move(kept);
  return std::nullopt;
}

}  // namespace cordon
