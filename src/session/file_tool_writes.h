// The files the file tools wrote (approved when they needed approval, FILE-5, FILE-6): the
// aftercare of a command running at the same time leaves such a file alone as long as it is
// still the very file written (same inode, size and time), and moves aside anything else
// (PROT-6, GIT-9). Thread-safe: the tools and the commands of a session run at once (SRV-4).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "plan/aftercare_rules.h"

namespace cordon {

class FileToolWrites {
 public:
  // Remembers the file at `abs_path` as it is now (the latest kMax writes are kept).
  void note(const std::string& abs_path);
  // `snapshot` with the noted files still as written taken as expected: a protected file
  // written is kept, a protected folder made by a write expects only what the writes made.
  ProtectedSnapshot without_them(const ProtectedSnapshot& snapshot) const;

  static constexpr size_t kMax = 256;

 private:
  // What identifies the very file written.
  struct Stat {
    uint64_t dev = 0, ino = 0, size = 0;
    long long mtime_ns = 0;
    bool operator==(const Stat&) const = default;
  };
  struct Write {
    std::string path;
    Stat stat;
  };
  static bool stat_write(const std::string& path, Stat& out);
  mutable std::mutex mu_;
  std::vector<Write> writes_;  // under mu_
};

}  // namespace cordon
