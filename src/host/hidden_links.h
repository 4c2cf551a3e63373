// FS-5: the targets of links inside hidden folders.
//
// With stow-style dotfiles, ~/.config/gh/hosts.yml is a link to ~/dotfiles/gh/hosts.yml: the
// link reads empty inside the sandbox (its folder is hidden), but its target is readable by its
// own path. This walk finds every link below the hidden folders whose target lies outside them,
// so that the planner hides the target too. Link targets that are folders are walked in turn.
// The walk is bounded like NET-3's search: past the bound the command is refused, naming the
// folder, rather than run with a secret left readable.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/result.h"

#include "plan/facts.h"

namespace cordon {

struct HiddenLinkLimits {
  size_t max_entries = 100000;  // entries listed, over all hidden folders
  size_t max_targets = 1000;    // link targets found outside the hidden folders
};

struct HiddenLink {
  PathInfo info;    // `path` is the link, `real` its fully resolved target
  size_t root = 0;  // index into `roots` of the hidden folder it was found under
};

struct HiddenLinkScan {
  // One per link whose target lies outside every hidden folder (dangling links are left out:
  // they lead to nothing to read).
  std::vector<HiddenLink> links;
  std::string refusal;  // non-empty: the bound was passed (the message names the folder)
  size_t entries_seen = 0;
};

// PERF-1: what the walk read of each folder, kept between commands. A folder's listing is used
// again only while the folder is the same one (device, inode) with the same ctime: an entry
// added, removed or renamed in it, and a utimes() on it, change its ctime. A folder listed
// within the clock's granularity of its last change is "racy" and listed again next time (as
// the directory index and git do). Links are not kept: each link found is resolved again at
// every walk (its target, or a folder on the way to it, may have changed), and a folder that
// could not be listed is tried again.
struct HiddenDirListing {
  uint64_t dev = 0, ino = 0;
  int64_t ctime_ns = 0;
  bool racy = false;
  size_t entries = 0;                 // for the bound
  std::vector<std::string> subdirs;   // names of the folders in it
  std::vector<std::string> links;     // names of the links in it
};
struct HiddenLinkCache {
  std::map<std::string, HiddenDirListing> dirs;  // by the folder's path, as walked
  bool changed = false;  // a listing was read again, or a folder is no longer walked
};
// The cache saved in `file`; empty when it is missing, damaged or of another version.
HiddenLinkCache load_hidden_link_cache(const std::string& file);
// Written atomically (0600); nothing is written when `cache.changed` is false.
Status save_hidden_link_cache(const std::string& file, const HiddenLinkCache& cache);

// Walks the folders `roots` (real paths of hidden folders; `shown[i]` is how roots[i] is named
// to a person, "~/.config/gh"). A folder cordon cannot list is skipped: a command, running with
// the same rights or fewer, cannot list it either. A link's target folder is walked too, unless
// `kept_visible(target)` says it stays visible (the home folder, a system folder: the planner
// will not hide it, so what is inside does not matter).
HiddenLinkScan scan_hidden_links(const std::vector<std::string>& roots,
                                 const std::vector<std::string>& shown,
                                 const std::function<bool(const std::string&)>& kept_visible,
                                 const HiddenLinkLimits& limits = {},
                                 HiddenLinkCache* cache = nullptr);
// With `cache`: the listings of unchanged folders are taken from it (no readdir) and the cache
// is left holding the listings of this walk.

}  // namespace cordon
