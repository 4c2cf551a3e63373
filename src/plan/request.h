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
  bool network = false;               // way out 1 (NET-3), already approved by the face
  bool outside_sandbox = false;       // way out 2 (NET-4), already approved by the face
  std::optional<std::chrono::milliseconds> timeout;
};

}  // namespace cordon
