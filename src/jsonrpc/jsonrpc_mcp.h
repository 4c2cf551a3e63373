// `cordon mcp` (SRV-2): a Model Context Protocol server over stdio. It offers the tools `bash`,
// `bash_output` and `kill_bash` (its background jobs, issue 30: jsonrpc_mcp_jobs.h),
// `read_file`, `write_file`, `edit_file` and `search`, each with a JSON Schema for its input,
// over the same library calls as `cordon serve`. Questions (APR-7) go to the user as MCP
// elicitation when the client declares that capability; otherwise they are refused with a
// message naming the server option that approves the kind in advance (`--allow-network`).
//
// Protocol versions: 2025-11-25 (the current one), 2025-06-18, 2025-03-26 and 2024-11-05. A
// client asking for another gets the current one (the client then decides). Structured tool
// output (`structuredContent`, `outputSchema`) and elicitation exist from 2025-06-18 on.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cordon/cordon.h"
#include "jsonrpc/jsonrpc.h"
#include "jsonrpc/jsonrpc_core.h"
#include "jsonrpc/jsonrpc_mcp_jobs.h"
#include "jsonrpc/jsonrpc_mcp_progress.h"
#include "jsonrpc/jsonrpc_peer.h"
#include "jsonrpc/jsonrpc_tools.h"

namespace cordon::rpc {

inline constexpr const char* kMcpLatestVersion = "2025-11-25";
// The version to answer a client's `initialize` with (lifecycle: version negotiation).
std::string negotiate_mcp_version(const json& requested);
bool mcp_version_at_least(const std::string& version, const std::string& other);

// The server option that approves a kind in advance: "--allow-network", ...; empty for
// outside_sandbox, which no option approves (APR-3).
std::string allow_option(AskKind kind);

// The `tools/list` result for a negotiated version.
json mcp_tools(const std::string& version);

// Puts questions to the user through MCP elicitation (`elicitation/create`), or, for a client
// without it, refuses them naming the option that would approve them (APR-7).
class ElicitAsker : public Asker {
 public:
  explicit ElicitAsker(Peer& peer) : peer_(peer) {}
  // Set at `initialize` from the client's capabilities.
  void set_supported(bool supported);
  PersonAnswer ask(const Question& question) override;

 private:
  Peer& peer_;
  std::mutex mu_;
  bool supported_ = false;
};

// Reads the client's answer to `elicitation/create`. `accept` with no content (or empty
// content) is "allow once": a client that cannot show the form (Codex's yes/no dialog) answers
// so when the user says yes. `decline` and `cancel` are no.
PersonAnswer read_elicit_answer(const Peer::CallResult& r, bool session_grant_offered);

struct McpOptions {
  // Opens the session at `initialize` (the project, session and `--allow-*` options of the
  // command line are the opener's). A failure is reported by every tool call.
  std::function<Result<std::unique_ptr<api::Session>>(Asker* asker)> open;
  size_t max_in_flight = 32;
  // `notifications/progress` while a tool runs, when the call asked for it (at most 30 s
  // apart, so that a client's idle time-out never fires under a long command).
  std::chrono::milliseconds progress_interval = std::chrono::seconds(10);
  // The `bash` tool's time-out when the call gives no `timeout_ms`: some clients never cancel
  // a call they gave up on, and the command would run on unseen. Zero: none.
  std::chrono::milliseconds default_timeout = std::chrono::minutes(10);
  bool threads = true;
  std::function<void(const std::string&)> log;
};

class McpConnection : private ConnectionProtocol {
 public:
  McpConnection(McpOptions options, Peer& peer);
  ~McpConnection() override;
  McpConnection(const McpConnection&) = delete;
  McpConnection& operator=(const McpConnection&) = delete;

  void on_line(const LineFramer::Line& line) { core_.on_line(line); }
  bool finished() const { return false; }  // MCP over stdio ends when the client closes stdin
  // End of input or a signal: ends running commands, waits for their aftercare.
  void close() { core_.close(); }

 private:
  // ConnectionProtocol
  Route route(const std::string& method) const override;
  json answer_now(const Message& m) override;
  json run(const Message& m, const api::Cancel* cancel) override;
  bool ready() const override;
  json refusal(CoreRefusal why, const json& id, const Message& m,
               const std::string& detail) const override;
  void on_notification(const Message& m) override;
  std::shared_ptr<ProgressTicker> progress_for(const Message& m) override;

  json initialize(const json& id, const json& params);
  std::string instructions() const;
  json call_tool(const json& id, const json& params, const api::Cancel* cancel);
  // `bash` in the background, bash_output and kill_bash (issue 30); nullopt: `bash` in the
  // foreground, `args` without `run_in_background`.
  std::optional<Result<json>> call_job_tool(api::Session& s, const std::string& name, json& args,
                                            const api::Cancel* cancel);
  std::string tool_text(Tool t, const json& result, bool default_timeout) const;
  OutputSink progress_sink(Tool t, const json& id) const;

  McpOptions opts_;
  Peer& peer_;
  ElicitAsker asker_;
  mutable std::mutex mu_;
  bool initialized_ = false;
  std::string version_ = kMcpLatestVersion;
  std::unique_ptr<api::Session> session_;
  std::optional<Error> open_error_;
  std::string project_;
  McpJobs jobs_;         // the offsets bash_output read the session's jobs up to
  ConnectionCore core_;  // last: its workers are waited for before the session goes
};

}  // namespace cordon::rpc
