// Request: one command to run, as a face (CLI, server, MCP) asked for it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace cordon {

struct Request {
  std::vector<std::string> argv;      // the command and its arguments, or empty with `script`
  std::optional<std::string> script;  // `-c 'SCRIPT'`: run by the shell
  std::string cwd;                    // absolute; empty means the project root
  bool network = false;               // way out 1 (NET-3): asks first (APR-1)
  bool outside_sandbox = false;       // way out 2 (NET-4): asks a person every time (APR-3)
  std::optional<std::chrono::milliseconds> timeout;
  std::string reason;                 // the caller's words, shown with any question
  std::string job;                    // a background job's id ("" for exec): for AUD-1's log
};

}  // namespace cordon
