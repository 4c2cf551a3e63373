// The texts a model reads in `cordon mcp`'s tool results (SRV-2): a tool's result as JSON (the
// fields of docs/protocol.md) written as lines, output first, then cordon's words about it.
#pragma once

#include <string>

#include "jsonrpc/jsonrpc.h"

namespace cordon::rpc {

// `bash`: stdout, stderr, then `[exit code N]`, `[note] ...` and `[moved aside] ...` lines.
std::string exec_text(const json& exec_result);
// AUD-2: the result's violations, a "[violation] ..." line each (each line starts with a newline).
std::string violations_text(const json& exec_result);
// `read_file`: the content, and where to go on when more lines follow.
std::string read_text(const json& read_result);
// `search`: path:line:text lines and what was searched and skipped.
std::string search_text(const json& search_result);
// `bash` with `run_in_background` (issue 30): the job's id and the tools that read and end it.
std::string started_text(const json& started);
// `bash_output` and `kill_bash` (issue 30): what the job printed since the last read; while
// it runs, that it still does; once ended, the rest of exec_text's lines.
std::string job_text(const json& job_state);

}  // namespace cordon::rpc
