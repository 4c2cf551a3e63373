// `cordon serve` and `cordon mcp`: the JSON-RPC connections on standard input and output, with
// logs on standard error. They return the process's exit status.
#pragma once

#include <chrono>
#include <set>
#include <string>

#include "cordon/approval.h"

namespace cordon {

struct ServeArgs {
  size_t max_in_flight = 32;
};
int serve_main(const ServeArgs& args);

struct McpArgs {
  std::string project;  // empty: the git top-level of the working folder, else that folder
  std::string session;  // a lasting session; empty: one for this connection only
  bool away = false;
  // --allow-network, --allow-command, ...: kinds approved in advance (never outside_sandbox).
  std::set<AskKind> allow;
  size_t max_in_flight = 32;
  // `bash` without `timeout_ms` ends after this (zero: never); progress notifications this
  // far apart (CORDON_MCP_PROGRESS_MS overrides it, for tests).
  std::chrono::milliseconds default_timeout = std::chrono::minutes(10);
  std::chrono::milliseconds progress_interval = std::chrono::seconds(10);
};
int mcp_main(const McpArgs& args);

}  // namespace cordon
