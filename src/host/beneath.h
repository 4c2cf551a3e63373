// Paths beneath a trusted folder, resolved without following any link (FS-2, PROT-7).
//
// Aftercare looks at and moves paths that a command could have changed: a `.cargo` that is now
// a link to ~/.cargo must never make cordon rename the user's ~/.cargo/config.toml. Every
// lookup here starts from a descriptor of the trusted root and refuses links in any component
// (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so what is seen and what is moved is
// always the entry inside the project, even when a link is swapped in while aftercare runs.
//
//   Beneath b = Beneath::open("/home/u/proj");
//   BeneathStat s = b.lstat(".cargo/config.toml");   // s.via_link == ".cargo" when .cargo is a
//   link b.rename_aside(".envrc", "", "/ .envrc.cordon-quarantined-…");
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "plan/facts.h"
#include "process/process.h"

namespace cordon {

struct BeneathStat {
  Kind kind = Kind::kMissing;  // of the entry itself (a link is kSymlink)
  uint64_t dev = 0, ino = 0;
  int64_t ctime_ns = 0, mtime_ns = 0;
  std::string link_target;  // readlink text when kind is kSymlink
  // The first component on the way that is a link (root-relative), when the entry can only be
  // reached through one; then `kind` is kMissing: the entry is not inside the root.
  std::string via_link;
  std::string via_link_target;
  bool error = false;  // a component could not be searched (EACCES), not "missing"
};

class Beneath {
 public:
  // Opens `root` (an absolute, trusted, real path). Fails when it is not a folder.
  static Result<Beneath> open(const std::string& root);
  // Opens `root` as `open` does, but when it lies below the trusted folder `outer` (a git
  // folder inside the project, which a command could have replaced by a link), reached from
  // `outer` without following any link on the way.
  static Result<Beneath> open_within(const std::string& outer, const std::string& root);

  const std::string& root() const { return root_; }
  int fd() const { return fd_.fd; }

  // lstat of `rel` ("" or "." for the root itself), never following a link.
  BeneathStat lstat(const std::string& rel) const;
  // A descriptor of the folder `rel` (O_DIRECTORY, no link anywhere); -1 with errno on failure.
  Fd open_dir(const std::string& rel) const;
  // Renames `rel` to `dest_dir_rel`/`new_name` (both beneath the root), never replacing and
  // never following a link: a link is moved as the link.
  Status rename(const std::string& rel, const std::string& dest_dir_rel,
                const std::string& new_name) const;
  // Names in the folder `dir_rel` whose (dev, ino) is the given one (links not followed).
  std::vector<std::string> find_by_identity(const std::string& dir_rel, uint64_t dev,
                                            uint64_t ino) const;

 private:
  std::string root_;
  Fd fd_;
};

// The names in the open folder `dirfd` (without "." and ".."), read through a copy of the
// descriptor so that `dirfd` stays usable.
std::vector<std::string> list_names_at(int dirfd);

// openat2(dirfd, rel, flags, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS),
// with a component-by-component O_NOFOLLOW walk where the kernel has no openat2.
int open_beneath(int dirfd, const std::string& rel, int flags);

}  // namespace cordon
