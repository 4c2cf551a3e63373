// The structured result of one command (RES-1): what every face prints or sends.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/net_rules.h"
#include "plan/plan.h"

namespace cordon {

struct QuarantineMove {
  std::string from;  // project-relative or absolute path that was moved aside
  std::string to;    // where it went
};

struct CommandResult {
  bool ran = false;                // false: refused (or failed) before the command started
  std::optional<Refusal> refusal;  // why it did not run
  int exit_code = 0;               // PROC-5: own status, 128+N on signal N, 124, 125, 126, 127
  std::optional<int> signal;       // the signal that ended it, when one did
  std::string stdout_text, stderr_text;  // captured output (faces that capture)
  bool stdout_truncated = false, stderr_truncated = false;
  bool timed_out = false;
  bool canceled = false;
  bool withheld = false;           // PROC-3: the result is withheld (processes left)
  std::vector<std::string> notices;      // start notices (first command of a session)
  std::vector<std::string> notes;        // RES-1 notes, each a sentence for a person
  std::vector<QuarantineMove> quarantined;
  std::vector<int> processes_left;       // NET-4: still running, never killed
  std::optional<std::string> blocked_note;  // RES-2
  // NET-9: every host the command reached or was refused through the allowlist proxy.
  std::vector<NetConnection> connections;
  // cordon's own messages about this command ("make: command not found"), for stderr after
  // the command's output.
  std::vector<std::string> messages;
  double duration_ms = 0;
};

}  // namespace cordon
