// Session records (SES-1) and leftover records (SES-2), kept in the state folder. Session
// records are written atomically with fsync; a leftover record is written before each command
// and removed after its aftercare.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/folders.h"
#include "core/result.h"
#include "plan/aftercare_rules.h"
#include "plan/leftover_record.h"

namespace cordon {

struct HeldProcess {
  int pid = 0;
  long long start = 0;  // start time in clock ticks since boot (/proc/PID/stat field 22)
  bool operator==(const HeldProcess&) const = default;
};

struct SessionRecord {
  std::string id;
  std::string project;
  long long started = 0;  // unix seconds
  bool tracked_known = false;
  std::vector<std::string> tracked_at_start;  // PROT-3 (SES-4: fresh at resume)
  std::vector<std::string> unreadable;        // FS-10
  std::vector<HeldProcess> held;              // PROC-3: processes not confirmed ended
  uint64_t effects = 0;                       // effect counter
  std::string boot_id;                        // the boot the session started in
};

class SessionStore {
 public:
  explicit SessionStore(Folders folders) : folders_(std::move(folders)) {}

  std::string record_path(const std::string& id) const;
  std::string leftovers_dir(const std::string& id) const;
  std::string tmp_dir(const std::string& id) const;
  // Issue 30: the folder of the session's keeper (the process that holds its background jobs
  // for the CLI): its socket, lock, pid record and log. Removed with the session.
  std::string keeper_dir(const std::string& id) const;

  // nullopt: no such session. An error: the record exists but cannot be read.
  Result<std::optional<SessionRecord>> load(const std::string& id) const;
  Status save(const SessionRecord& r) const;
  Result<std::vector<SessionRecord>> list() const;
  Status remove(const std::string& id) const;

  // SES-2: the record of one command.
  std::string leftover_path(const std::string& id, uint64_t effect) const;
  Status write_leftover(const LeftoverRecord& r) const;
  std::vector<std::string> leftover_files(const std::string& id) const;

 private:
  Folders folders_;
};

// Reads a leftover record; an error says why it cannot be trusted (empty, damaged, another
// version, incomplete).
Result<LeftoverRecord> read_leftover(const std::string& path);

// Start time of a process (/proc/PID/stat field 22), 0 when it does not exist.
long long process_start_time(int pid);
// True when `pid` runs and started at `start` (so a reused pid is not mistaken for it).
bool process_alive(int pid, long long start);

}  // namespace cordon
