// The tools both servers offer (SRV-1 `exec` and the file tools; SRV-2's `bash` and the same
// file tools): their parameters read from JSON into the public API's requests, and their
// results written back as JSON. The shapes are the protocol (docs/protocol.md); the work is the
// library's (cordon/cordon.h).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "cordon/cordon.h"
#include "jsonrpc/jsonrpc.h"

namespace cordon::rpc {

// The longest timeout a caller may ask for (PROC-4): a day.
inline constexpr uint64_t kMaxTimeoutMs = 24ull * 60 * 60 * 1000;
// Bytes kept of each output stream of a command run through a server.
inline constexpr size_t kServerOutputLimit = size_t{1} << 20;

// The tools, by their SRV-1 method names ("bash" is MCP's name for "exec" with `command`).
enum class Tool { kExec, kBash, kReadFile, kWriteFile, kEditFile, kSearch, kClassify };
std::optional<Tool> tool_by_name(std::string_view name);

// A command's output as it comes (ExecRequest::on_output): stream 1 or 2, and the bytes.
using OutputSink = std::function<void(int stream, std::string_view data)>;

// Runs one tool: reads `params` (an "invalid" Error naming the bad parameter), calls the
// session, and returns the result as JSON, or the session's Error. `cancel` ends a command;
// `on_output`, when given, has exec's and bash's output as it comes.
Result<json> call_tool(api::Session& session, Tool tool, const json& params,
                       const api::Cancel* cancel, OutputSink on_output = {});

// `exec`'s parameters (`bash`'s: `command` only) read into a request; an "invalid" Error
// naming the bad parameter.
Result<api::ExecRequest> read_exec_request(const json& params, bool bash);

// Waits up to `timeout` for a background job's end (serve's job/wait, MCP's kill_bash), in
// slices so that `cancel` ends the wait early; true once the job has ended.
bool wait_for_end(const api::Job& job, std::chrono::milliseconds timeout,
                  const api::Cancel* cancel);

json to_json(const api::ExecResult& r);
json violations_json(const std::vector<api::Violation>& violations);  // AUD-2
json to_json(const api::ReadFileResult& r);
json to_json(const api::WriteFileResult& r);
json to_json(const api::EditFileResult& r);
json to_json(const api::SearchResult& r);
json to_json(const api::Classification& c);
json to_json(const api::ReviewReport& r);
json to_json(const api::SandboxStatus& s);

// SRV-1's code for an Error of the library: refused, held, unavailable or invalid.
ErrorCode wire_code(const Error& e);
// Its word, data.reason.
std::string wire_reason(const Error& e);
// The JSON-RPC error response for an Error of the library (SRV-1: data.reason).
json error_response(const json& id, const Error& e);

}  // namespace cordon::rpc
