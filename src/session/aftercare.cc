#include "session/aftercare.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/fs_util.h"
#include "core/paths.h"
#include "host/after_snapshot.h"

namespace cordon {

Result<std::string> quarantine(const std::string& path, const std::string& dest_dir) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string dest = path_join(dest_dir, quarantine_name(path_base(path), random_hex16()));
    // renameat2 moves a link itself (never follows it) and RENAME_NOREPLACE never overwrites.
    long rc = syscall(SYS_renameat2, AT_FDCWD, path.c_str(), AT_FDCWD, dest.c_str(),
                      RENAME_NOREPLACE);
    if (rc == 0) return dest;
    if (errno == EEXIST) continue;
    return make_error("io", fmt::format("cannot move {} aside ({})", path, std::strerror(errno)),
                      path, errno);
  }
  return make_error("io", fmt::format("cannot move {} aside (no free name)", path), path, EEXIST);
}

AftercareOutcome run_aftercare(const ProtectedSnapshot& before) {
  AftercareOutcome out;
  ProtectedSnapshot after = read_snapshot_after(before);
  AftercareReport rep = compare_snapshots(before, after);
  for (const auto& m : rep.moves) {
    auto moved = quarantine(m.path, m.dest_dir);
    // A protected folder on another filesystem keeps what was planted in it, moved aside in
    // place (a rename cannot cross filesystems, and nothing is ever copied and deleted).
    if (!moved.ok() && moved.error().sys_errno == EXDEV)
      moved = quarantine(m.path, path_parent(m.path));
    if (moved.ok()) {
      std::string shown_to = path_within(*moved, before.project)
                                 ? path_relative(*moved, before.project)
                                 : *moved;
      out.moved.push_back(QuarantineMove{m.shown, shown_to});
      out.notes.push_back(quarantine_note(m.shown, shown_to));
    } else {
      out.failed.push_back(m.path);
      out.notes.push_back(fmt::format(
          "the command created {}, which runs code or steers an agent later, and cordon could "
          "not move it aside ({}). Sandboxed commands are refused until it is moved: move it "
          "away on the host (PROT-7).",
          m.shown, std::strerror(moved.error().sys_errno)));
    }
  }
  out.notes.insert(out.notes.end(), rep.notes.begin(), rep.notes.end());
  out.newly_unreadable = rep.newly_unreadable;
  return out;
}

}  // namespace cordon
