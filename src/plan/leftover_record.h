// SES-2: the leftover record of one command, written before it starts and removed after its
// aftercare, so that a cordon killed meanwhile leaves what the next one needs to clean up.
// Its content is decided here, purely; session/session_store.h writes and reads it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/aftercare_rules.h"
#include "plan/plan.h"

namespace cordon {

inline constexpr int kRecordVersion = 1;

struct LeftoverRecord {
  int version = kRecordVersion;
  std::string cordon_version;
  std::string session, project;
  uint64_t effect = 0;
  bool sandboxed = true;
  int owner_pid = 0;  // the cordon that ran the command
  long long owner_start = 0;
  int pid = 0;  // bwrap, or the unconfined command (0: not started yet)
  long long pid_start = 0;
  int pgid = 0;
  std::vector<std::string> command;
  std::optional<ProtectedSnapshot> snapshot;  // sandboxed commands
  long long started = 0;
  std::string boot_id;
};

// Who writes the record, and when (read from the host by the caller).
struct LeftoverOwner {
  std::string cordon_version;
  std::string session, project;
  int owner_pid = 0;
  long long owner_start = 0;
  long long now = 0;  // unix seconds
  std::string boot_id;
};

// The record of `plan`'s command before it starts (pid 0: not created yet). The snapshot and
// the effect number are the caller's to add.
LeftoverRecord leftover_record(const Plan& plan, const LeftoverOwner& owner);

// The command's first process exists: `pid` (every command gets its own process group).
void record_started(LeftoverRecord& r, int pid, long long pid_start);

}  // namespace cordon
