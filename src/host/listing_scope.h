// PERF-1: a missing path answered from its folder's listing, not one lstat each.
//
// The facts of a command look up a few hundred paths that mostly do not exist (the hidden list
// in the home, the protected names in the project, the config copies). While a ListingScope is
// alive on a thread, read_path_info() asks it first: the path's folder is listed once (one
// open, one or two getdents) and a name absent from it is missing without a syscall. A name
// present, a folder that cannot be listed, or one the scope does not trust, goes to lstat as
// before, so every answer is the one lstat would give at that moment. A folder is listed only
// after lstat found two names missing in it.
//
// Trusted folders are an allowlist: a filesystem that compares names byte for byte (ext4,
// btrfs, tmpfs, overlayfs, f2fs) and a folder without the case-folding flag. A folder on any
// other filesystem (vfat, NFS, FUSE, XFS, which has an ASCII case-insensitive format, autofs,
// whose names appear only once mounted) or a case-folded one, where `.SSH` answers for `.ssh`,
// is never answered from its listing. A folder of more than kListingCap entries is not listed
// in full either (its listing would cost more than the lookups it saves).
//
//   { ListingScope scope;  Facts f = gather_facts(...); }   // the listings die with the scope
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cordon {

class ListingScope {
 public:
  static constexpr size_t kListingCap = 4096;
  static constexpr int kListAfterMisses = 2;

  ListingScope();
  ~ListingScope();
  ListingScope(const ListingScope&) = delete;
  ListingScope& operator=(const ListingScope&) = delete;

  // An absolute path without `.`, `..`, `//` or a trailing `/` (what the scope answers for).
  static bool plain_absolute(const std::string& path);
  // The scope alive on this thread, or nullptr.
  static ListingScope* current();
  // True when `path` (absolute, normalized) is certainly missing: its folder was listed in
  // this scope, is trusted, and has no entry of that name. False means "ask lstat".
  bool known_missing(const std::string& path);
  // lstat found `path` missing: its folder is worth listing once that happens again.
  void note_missing(const std::string& path);
  // realpath() of a folder, remembered for the scope; empty when it does not resolve.
  const std::string& real_dir(const std::string& dir);

 private:
  struct Listing {
    bool trusted = false;
    std::vector<std::string> names;  // sorted
    bool has(const std::string& name) const;
  };
  const Listing& listing_of(const std::string& dir);

  std::map<std::string, Listing> listings_;
  std::map<std::string, std::string> real_dirs_;
  std::map<std::string, int> misses_;
  ListingScope* outer_ = nullptr;
};

}  // namespace cordon
