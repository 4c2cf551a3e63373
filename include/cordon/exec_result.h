// What one command did (RES-1): the result Session::exec returns (cordon/cordon.h), the same
// for every face.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cordon/violation.h"

namespace cordon::api {

struct Moved {
  std::string from;  // the path moved aside (PROT-7)
  std::string to;    // where it is now
};

// NET-9: one host a command reached or was refused through the allowlist proxy.
struct Connection {
  std::string host;  // "registry.npmjs.org:443"
  bool allowed = false;
  std::string rule;  // "allow registry.npmjs.org", "not in allow", "deny ...", "address ..."
  unsigned long long bytes_out = 0, bytes_in = 0;  // to the host, from the host
  unsigned count = 0;                              // connections made or refused
};

struct ExecResult {
  int exit_code = 0;  // PROC-5: its own status; 128+N on signal N; 124 timeout; 126/127
  std::optional<int> signal;
  std::string stdout_text, stderr_text;  // captured
  bool stdout_truncated = false, stderr_truncated = false;
  bool timed_out = false;
  bool canceled = false;  // Cancel::cancel() ended it (exit 130)
  // PROC-3: processes the command started could not be confirmed ended: its output is
  // withheld, exit_code is 125, the note says which processes and how to end them, and the
  // session is held (later calls fail with "held") until they are gone.
  bool withheld = false;
  std::vector<std::string> notices;  // start notices, with the session's first command only
  // RES-1 notes (quarantine moves, git files not updated, symlink warnings, processes left
  // running, approvals worth telling the person about), then the blocked-command note (RES-2).
  std::vector<std::string> notes;
  std::vector<Moved> quarantined;
  std::vector<int> processes_left;    // NET-4: still running outside the sandbox, never killed
  std::vector<Connection> connections;  // NET-9: hosts through the proxy ([network] allow)
  std::vector<std::string> messages;  // cordon's own words about it ("make: command not found")
  std::vector<Violation> violations;  // AUD-2: what was refused, each with its rule and fix
  double duration_ms = 0;
};

}  // namespace cordon::api
