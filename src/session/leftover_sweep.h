// The leftover records of cordons killed mid-command (SES-2, SES-3): each is checked, its
// processes named, what its command planted moved aside (PROT-7), then it is removed. And the
// holds (PROC-3, SES-3) that refuse sandboxed commands until a person has looked.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config/folders.h"
#include "config/policy.h"
#include "core/env.h"
#include "plan/plan.h"
#include "session/command_result.h"
#include "session/session_store.h"

namespace cordon {

// What `cordon session resume` reports (SES-3).
struct ResumeReport {
  std::vector<std::string> notes;          // one per leftover handled
  std::vector<QuarantineMove> quarantined;
  std::optional<Refusal> hold;             // the session is held (re-checked on each call)
};

// Whose leftover records a sweep handles, and what they are checked against.
struct SweepScope {
  const SessionStore& store;
  const std::string& session_id;
  const std::string& project;
  const Policy& policy;
  const Folders& folders;
  const std::string& home;
  const EnvMap& env;
  // Also the records of ephemeral sessions of the project (a killed `cordon run` has no
  // session to resume).
  bool include_other_ephemeral = false;
  // Records of commands this process is running now: passed by unread (their owner is alive).
  const std::set<std::string>* running = nullptr;
};

struct SweepOutcome {
  ResumeReport report;
  std::vector<std::string> failed_moves;  // for remember_failed_moves (PROT-7)
};

// Handles the records of dead cordons in `scope`. Two sweeps of one session must not run at
// once (SRV-4): the caller keeps them apart.
SweepOutcome sweep_leftovers(const SweepScope& scope);

// PROC-3: the refusal while processes `pids` (not empty) an earlier command left still run.
Refusal held_processes_refusal(const std::vector<int>& pids);

// "12 34 56", at most eight, then "and N more".
std::string pid_list(const std::vector<int>& pids);

}  // namespace cordon
