#include "jsonrpc/jsonrpc_mcp.h"

#include <fmt/format.h>

#include <algorithm>

#include "approval/request.h"
#include "core/error_code.h"
#include "core/strings.h"
#include "core/version.h"
#include "jsonrpc/jsonrpc_mcp_jobs.h"
#include "jsonrpc/jsonrpc_mcp_text.h"
#include "jsonrpc/jsonrpc_tools.h"
#include "jsonrpc/peer_answer.h"

namespace cordon::rpc {

namespace {

constexpr const char* kVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

constexpr const char* kAllowOnce = "allow once";
constexpr const char* kAllowSession = "allow for this session";
constexpr const char* kDeny = "deny";

json str_prop(const char* description) {
  return json{{"type", "string"}, {"description", description}};
}
json bool_prop(const char* description) {
  return json{{"type", "boolean"}, {"description", description}};
}
json int_prop(const char* description, uint64_t minimum, uint64_t maximum) {
  return json{{"type", "integer"},
              {"description", description},
              {"minimum", minimum},
              {"maximum", maximum}};
}
json object_schema(json properties, std::vector<std::string> required) {
  return json{{"type", "object"},
              {"properties", std::move(properties)},
              {"required", std::move(required)},
              {"additionalProperties", false}};
}

json tool(const std::string& version, const char* name, const char* title, const char* description,
          json input, std::optional<json> output, bool read_only, bool idempotent = false) {
  json t{{"name", name}, {"description", description}, {"inputSchema", std::move(input)}};
  if (mcp_version_at_least(version, "2025-03-26"))
    t["annotations"] = {{"title", title},
                        {"readOnlyHint", read_only},
                        {"destructiveHint", false},
                        {"openWorldHint", std::string(name) == "bash"}};
  if (idempotent && t.contains("annotations")) t["annotations"]["idempotentHint"] = true;
  if (mcp_version_at_least(version, "2025-06-18")) {
    t["title"] = title;
    if (output) t["outputSchema"] = std::move(*output);
  }
  return t;
}

json tool_result(const std::string& version, std::string text, std::optional<json> structured,
                 bool is_error) {
  json r{{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})},
         {"isError", is_error}};
  if (structured && mcp_version_at_least(version, "2025-06-18"))
    r["structuredContent"] = std::move(*structured);
  return r;
}

// A refusal is the tool's answer, for the model to read and act on (isError), led by the
// same stable reason word as the server's errors. AUD-2: a refusal with violations ends with
// their `[violation]` lines and has them as structured content, as a command's result does; a
// client checks structured content against the tool's output schema even in an error, so a
// command tool's carries the fields bash's schema requires (nothing ran: empty output, the
// message as its note). The job tools' (a job refused before it ran, read by bash_output) have
// the lines only: their schema wants the job's state, which a refusal does not have. Other
// refusals have none.
enum class Shape { kFree, kBash, kJobTool };
json refusal_result(const std::string& version, const Error& e, Shape shape) {
  std::string text = fmt::format("[{}] {}", wire_reason(e), e.message);
  if (e.violations.empty()) return tool_result(version, std::move(text), std::nullopt, true);
  json structured{{"violations", violations_json(e.violations)}};
  text += violations_text(structured);
  if (shape == Shape::kJobTool) return tool_result(version, std::move(text), std::nullopt, true);
  if (shape == Shape::kBash) {
    structured["stdout"] = "";
    structured["stderr"] = "";
    structured["timed_out"] = false;
    structured["notes"] = json::array({e.message});
    structured["quarantined"] = json::array();
  }
  return tool_result(version, std::move(text), std::move(structured), true);
}

}  // namespace

std::string negotiate_mcp_version(const json& requested) {
  if (requested.is_string())
    for (const char* v : kVersions)
      if (requested == v) return v;
  return kMcpLatestVersion;
}

bool mcp_version_at_least(const std::string& version, const std::string& other) {
  return version >= other;  // dates in ISO form compare as text
}

std::string allow_option(AskKind kind) {
  if (kind == AskKind::kOutsideSandbox) return "";
  std::string name = to_string(kind);
  for (char& c : name)
    if (c == '_') c = '-';
  return "--allow-" + name;
}

json mcp_tools(const std::string& v) {
  auto typed = [](const char* type) { return json{{"type", type}}; };
  json moved = object_schema({{"from", typed("string")}, {"to", typed("string")}}, {"from", "to"});
  json connection = object_schema({{"host", typed("string")},
                                   {"allowed", typed("boolean")},
                                   {"rule", typed("string")},
                                   {"bytes_out", typed("integer")},
                                   {"bytes_in", typed("integer")},
                                   {"count", typed("integer")}},
                                  {"host", "allowed", "rule"});
  json violation = object_schema({{"kind", typed("string")},
                                  {"path", typed("string")},
                                  {"host", typed("string")},
                                  {"rule", typed("string")},
                                  {"fix", typed("string")},
                                  {"source", typed("string")}},
                                 {"kind", "rule", "fix", "source"});  // AUD-2
  json bash_out =
      object_schema({{"exit_code", typed("integer")},
                     {"signal", typed("integer")},
                     {"stdout", typed("string")},
                     {"stderr", typed("string")},
                     {"timed_out", typed("boolean")},
                     {"notes", json{{"type", "array"}, {"items", typed("string")}}},
                     {"quarantined", json{{"type", "array"}, {"items", moved}}},
                     {"violations", json{{"type", "array"}, {"items", violation}}},
                     {"withheld", typed("boolean")},
                     {"canceled", typed("boolean")},
                     {"stdout_truncated", typed("boolean")},
                     {"stderr_truncated", typed("boolean")},
                     {"processes_left", json{{"type", "array"}, {"items", typed("integer")}}},
                     {"connections", json{{"type", "array"}, {"items", connection}}},
                     {"duration_ms", typed("integer")},
                     // issue 30: a background job's state (bash_output, kill_bash)
                     {"job", typed("string")},
                     {"running", typed("boolean")},
                     {"dropped", typed("integer")},
                     {"killed", typed("boolean")},
                     {"written", typed("integer")},  // bash_write
                     {"eof", typed("boolean")}},
                    // A job started in the background has no exit code yet.
                    {"stdout", "stderr", "timed_out", "notes", "quarantined"});
  json job_out = bash_out;
  job_out["required"] = {"job", "running", "stdout", "stderr", "timed_out", "notes", "quarantined"};
  json tools = json::array();
  tools.push_back(tool(
      v, "bash", "Run a shell command in the sandbox",
      "Runs a shell command line (bash -c) in cordon's sandbox around the project: it reads "
      "almost everything, writes only in the project and a private /tmp, and cannot reach the "
      "network or the user's secrets (~/.ssh and other credential folders read as empty). A "
      "command that fails because the sandbox blocked it gets a note saying so. Ask for "
      "`network: true` only when the command needs the internet (a package install), and for "
      "`outside_sandbox: true` only when nothing else works: both ask the user first. The result "
      "has the exit code, stdout, stderr and notes (files moved aside, processes left "
      "running).",
      object_schema(
          {{"command", str_prop("The command line, run by bash -c in the project folder.")},
           {"network",
            bool_prop("Share the machine's network for this command (the project's credential "
                      "files are hidden). Asks the user first.")},
           {"outside_sandbox",
            bool_prop("Run the command unconfined, as the user. Asks the user every time; use "
                      "only when the sandbox is the obstacle.")},
           {"timeout_ms", int_prop("End the whole command after this many milliseconds (exit "
                                   "code 124). Default: the server's (10 minutes unless "
                                   "`cordon mcp --timeout` says otherwise).",
                                   1, kMaxTimeoutMs)},
           {"reason", str_prop("Why the command needs network or outside_sandbox: shown to the "
                               "user with the question.")},
           {"run_in_background",
            bool_prop("Start the command as a background job and answer at once with its id "
                      "(for a server, a watcher, a long build): bash_output reads what it "
                      "prints, bash_write writes to its input, kill_bash ends it. It has no "
                      "time-out unless `timeout_ms` gives one, and ends when the client "
                      "disconnects.")},
           {"tty",
            bool_prop("Give the command a new terminal of the sandbox's own (for a REPL, a "
                      "prompt, a program that wants one): its output is stdout, as a terminal "
                      "shows it (\\r\\n line ends, what bash_write types echoed).")},
           {"cols", int_prop("The terminal's width (with tty). Default: 80.", 1, 10000)},
           {"rows", int_prop("The terminal's height (with tty). Default: 24.", 1, 10000)}},
          {"command"}),
      bash_out, false));
  tools.push_back(tool(
      v, "bash_output", "Read a background job's output",
      "Returns what a background job (started by bash with `run_in_background: true`) printed "
      "since the last bash_output call for it, so nothing is read twice or missed, and whether "
      "it still runs; once it has ended, its exit code and notes as bash gives them.",
      object_schema({{"job", str_prop("The job's id, as bash answered it.")},
                     {"bash_id", str_prop("The same as `job` (the name Claude Code's BashOutput "
                                          "uses); give one of the two.")}},
                    {}),
      job_out, true));
  tools.push_back(tool(
      v, "kill_bash", "End a background job",
      "Ends a background job and every process it started (KILL), and answers with its final "
      "state: the output not read yet, its exit code and notes. A job that had ended already "
      "is left as it is.",
      object_schema({{"job", str_prop("The job's id, as bash answered it.")},
                     {"shell_id", str_prop("The same as `job` (the name Claude Code's KillShell "
                                           "uses); give one of the two.")}},
                    {}),
      job_out, false, /*idempotent=*/true));
  tools.push_back(
      tool(v, "bash_write", "Write to a background job's input",
           "Writes text to the input of a background job (started by bash with "
           "`run_in_background: true`): an answer to a prompt, a line for a REPL. With `tty` the "
           "text is typed into the job's terminal (end a line with \\n). `eof: true` closes the "
           "input after the text (with `tty`: Ctrl-D). Answers as bash_output does, with what the "
           "job printed since the last read.",
           object_schema({{"job", str_prop("The job's id, as bash answered it.")},
                          {"bash_id", str_prop("The same as `job`; give one of the two.")},
                          {"data", str_prop("The text to write.")},
                          {"eof", bool_prop("Close the input after the text.")}},
                         {}),
           job_out, false));
  tools.push_back(tool(
      v, "read_file", "Read a text file",
      "Reads a text file, whole or a range of lines. Paths are absolute, `~/...`, or relative "
      "to the project. Hidden paths (~/.ssh, ...) read as refused; a credential file (.env, "
      "*.pem, *.key) asks the user first.",
      object_schema({{"path", str_prop("The file to read.")},
                     {"offset", int_prop("The first line to return, from 1.", 0, UINT32_MAX)},
                     {"limit", int_prop("How many lines to return (default: all).", 0, UINT32_MAX)},
                     {"reason", str_prop("Why, shown to the user if the read needs approval.")}},
                    {"path"}),
      std::nullopt, true));
  tools.push_back(tool(
      v, "write_file", "Write a file",
      "Creates or replaces a file with the given text, atomically. Writing outside the project "
      "and the writable folders, or to a protected file (.envrc, .vscode/, CLAUDE.md, .git "
      "hooks, build files such as Makefile or package.json), asks the user first.",
      object_schema({{"path", str_prop("The file to write.")},
                     {"content", str_prop("The whole new content.")},
                     {"reason", str_prop("Why, shown to the user if the write needs approval.")}},
                    {"path", "content"}),
      std::nullopt, false));
  tools.push_back(tool(
      v, "edit_file", "Edit a file",
      "Replaces exact text in a file: `old_text` must occur exactly once (or set `replace_all`). "
      "The same approvals as write_file apply.",
      object_schema({{"path", str_prop("The file to edit.")},
                     {"old_text", str_prop("The text to replace, exactly as it is in the file.")},
                     {"new_text", str_prop("The text to put in its place.")},
                     {"replace_all", bool_prop("Replace every occurrence instead of exactly one.")},
                     {"reason", str_prop("Why, shown to the user if the edit needs approval.")}},
                    {"path", "old_text", "new_text"}),
      std::nullopt, false));
  tools.push_back(tool(
      v, "search", "Search file contents",
      "Finds the lines matching a regular expression (RE2 syntax) in the files under a folder "
      "(default: the project). Skips credential files, hidden paths, binary files, files over "
      "16 MiB and dependency folders (node_modules, .git, ...), and says how many it skipped.",
      object_schema(
          {{"pattern", str_prop("The regular expression (or text, with fixed_string).")},
           {"path", str_prop("The folder or file to search (default: the project root).")},
           {"fixed_string", bool_prop("The pattern is plain text.")},
           {"ignore_case", bool_prop("Match without regard to case.")},
           {"glob", str_prop("Only files whose name matches, such as *.cc.")},
           {"max_results", int_prop("At most this many matching lines (default 100).", 1, 1000)}},
          {"pattern"}),
      std::nullopt, true));
  return json{{"tools", std::move(tools)}};
}

void ElicitAsker::set_supported(bool supported) {
  std::lock_guard<std::mutex> lock(mu_);
  supported_ = supported;
}

PersonAnswer read_elicit_answer(const Peer::CallResult& r, bool session_grant_offered) {
  if (auto a = unanswered(
          r, "the MCP client went away before the user answered", [](const std::string& msg) {
            return fmt::format("the MCP client could not ask the user ({}), which counts as no",
                               msg);
          }))
    return *a;
  const json& v = r.value;
  if (!v.is_object() || !v.contains("action") || !v["action"].is_string())
    return {Reply::kUnavailable, "the MCP client's answer had no `action`, which counts as no"};
  // decline and cancel (the user dismissed the question) are both a no.
  if (v["action"] != "accept") return {Reply::kDeny, ""};
  const json content = v.contains("content") ? v["content"] : json();
  // The user pressed yes in a client that shows a yes/no dialog instead of the form.
  if (content.is_null() || (content.is_object() && content.empty())) return {Reply::kAllowOnce, ""};
  if (content.is_object() && content.contains("decision") && content["decision"].is_string()) {
    const std::string d = content["decision"].get<std::string>();
    if (d == kAllowOnce) return {Reply::kAllowOnce, ""};
    if (d == kAllowSession)
      return {session_grant_offered ? Reply::kAllowForSession : Reply::kAllowOnce, ""};
  }
  return {Reply::kDeny, ""};
}

PersonAnswer ElicitAsker::ask(const Question& q) {
  bool supported;
  {
    std::lock_guard<std::mutex> lock(mu_);
    supported = supported_;
  }
  const ApprovalRequest& r = q.request;
  if (!supported && r.kind == AskKind::kNetworkHost)  // NET-10: no option approves any host
    return {Reply::kUnavailable,
            fmt::format("this MCP client cannot ask the user (it has no elicitation), so {} "
                        "was not reached. The user can add it to [network] allow in the config; "
                        "until then, carry on without it and name the skipped step in your "
                        "final report",
                        r.host.value_or("the host"))};
  if (!supported) {
    std::string option = allow_option(r.kind);
    if (option.empty())
      return {Reply::kUnavailable,
              "this MCP client cannot ask the user (it has no elicitation), and running outside "
              "the sandbox needs the user's own yes every time, so no server option "  // APR-3
              "approves it. Carry on inside the sandbox, or ask the user to run it themselves "
              "with `cordon run --outside-sandbox -- ...`"};
    return {Reply::kUnavailable,
            fmt::format("this MCP client cannot ask the user (it has no elicitation). The user "
                        "can approve this kind of request for every call by starting the server "
                        "as `cordon mcp {}`; until then, carry on without it and name the "
                        "skipped step in your final report",
                        option)};
  }
  std::string message = fmt::format("cordon asks: allow {}?", question_text(r));
  if (!r.reason.empty()) message += "\nWhy: " + r.reason;
  if (!q.judge_note.empty()) message += "\n(" + q.judge_note + ")";
  json options = json::array({kAllowOnce});
  if (q.session_grant_offered) options.push_back(kAllowSession);
  options.push_back(kDeny);
  json params{{"message", message},
              {"requestedSchema",
               {{"type", "object"},
                {"properties",
                 {{"decision",
                   {{"type", "string"},
                    {"title", "Decision"},
                    {"description", "Allow or deny this request"},
                    {"enum", options}}}}},
                {"required", {"decision"}}}}};
  Peer::CallResult res =
      peer_.call("elicitation/create", std::move(params), q.deadline, q.cancel_fd);
  // MCP: a request the server gives up on is cancelled with notifications/cancelled.
  if (res.status == Peer::CallResult::kCanceled || res.status == Peer::CallResult::kTimeout)
    if (res.id)
      peer_.send(make_notification(
          "notifications/cancelled",
          {{"requestId", res.id},
           {"reason", res.status == Peer::CallResult::kCanceled ? "the tool call was cancelled"
                                                                : "no answer in time"}}));
  return read_elicit_answer(res, q.session_grant_offered);
}

McpConnection::McpConnection(McpOptions options, Peer& peer)
    : opts_(std::move(options)),
      peer_(peer),
      asker_(peer),
      core_(*this, peer, CoreOptions{opts_.max_in_flight, opts_.threads, opts_.log}) {}

McpConnection::~McpConnection() {
  close();
  std::lock_guard<std::mutex> lock(mu_);
  session_.reset();
}

bool McpConnection::ready() const {
  std::lock_guard<std::mutex> lock(mu_);
  return initialized_;
}

ConnectionProtocol::Route McpConnection::route(const std::string& method) const {
  if (method == "initialize" || method == "ping" || method == "tools/list") return Route::kNow;
  if (method == "tools/call") return Route::kWorker;
  return Route::kUnknown;
}

json McpConnection::refusal(CoreRefusal why, const json& id, const Message& m,
                            const std::string& detail) const {
  switch (why) {
    case CoreRefusal::kUnknownMethod:
      return make_error_reply(id, kMethodNotFound,
                              fmt::format("cordon's MCP server has no method `{}`.", m.method));
    case CoreRefusal::kClosing:
      return make_error_reply(id, kInvalidRequest, "the server is shutting down.");
    case CoreRefusal::kNotReady:
      return make_error_reply(id, kInvalidRequest, "call `initialize` first.");
    case CoreRefusal::kDuplicateId:
      return make_error_reply(
          id, kInvalidRequest,
          fmt::format("the id {} is already used by a request in flight.", id.dump()));
    case CoreRefusal::kFull:
      return make_error_reply(id, kInternalError,
                              fmt::format("{} tool calls are running already; call again when "
                                          "one has finished.",
                                          opts_.max_in_flight));
    case CoreRefusal::kNoThread:
      return make_error_reply(id, kInternalError,
                              "no thread could be started for this request; send it "
                              "again later.");
    case CoreRefusal::kInternal:
      return make_error_reply(
          id, kInternalError,
          detail.empty() ? std::string("internal error") : "internal error: " + detail);
  }
  return make_error_reply(id, kInternalError, "internal error");
}

void McpConnection::on_notification(const Message& m) {
  if (m.method != "notifications/cancelled") return;  // initialized, roots, ...: nothing to do
  if (!m.params.is_object() || !m.params.contains("requestId")) return;
  const json& target = m.params["requestId"];
  if (!target.is_string() && !target.is_number()) return;
  core_.cancel(target, true);  // MCP: a cancelled request gets no response
}

std::shared_ptr<ProgressTicker> McpConnection::progress_for(const Message& m) {
  auto token = progress_token(m.params);
  if (!token) return nullptr;
  return std::make_shared<ProgressTicker>(peer_, *token, opts_.progress_interval);
}

json McpConnection::answer_now(const Message& m) {
  if (m.method == "initialize") return initialize(m.id, m.params);
  if (m.method == "ping") return make_response(m.id, json::object());
  std::lock_guard<std::mutex> lock(mu_);
  return make_response(m.id, mcp_tools(version_));  // tools/list
}

json McpConnection::run(const Message& m, const api::Cancel* cancel) {
  return call_tool(m.id, m.params, cancel);
}

json McpConnection::initialize(const json& id, const json& params) {
  if (!params.is_object() || !params.contains("protocolVersion"))
    return make_error_reply(id, kInvalidParams, "`initialize` needs `protocolVersion`.");
  std::unique_lock<std::mutex> lock(mu_);
  if (initialized_)
    return make_error_reply(id, kInvalidRequest, "the connection is initialized already.");
  version_ = negotiate_mcp_version(params["protocolVersion"]);
  bool elicitation = false;
  if (params.contains("capabilities") && params["capabilities"].is_object() &&
      params["capabilities"].contains("elicitation")) {
    const json& e = params["capabilities"]["elicitation"];
    // An empty object means form mode (2025-06-18); 2025-11-25 names the modes.
    elicitation = e.is_object() && (e.empty() || e.contains("form"));
  }
  asker_.set_supported(elicitation && mcp_version_at_least(version_, "2025-06-18"));
  initialized_ = true;
  lock.unlock();
  auto s = opts_.open(&asker_);
  lock.lock();
  if (s.ok()) {
    session_ = std::move(*s);
    project_ = session_->info().project;
  } else {
    open_error_ = s.error();
  }
  std::string version = version_;
  lock.unlock();
  return make_response(id, {{"protocolVersion", version},
                            {"capabilities", {{"tools", {{"listChanged", false}}}}},
                            {"serverInfo", {{"name", "cordon"}, {"version", kCordonVersion}}},
                            {"instructions", instructions()}});
}

// What the model is told at `initialize` about the tools and the sandbox.
std::string McpConnection::instructions() const {
  if (!session_) {
    std::string text =
        "cordon could not open its session, so every tool call fails: " + open_error_->message;
    core_.log(text);
    return text;
  }
  api::SandboxStatus st = session_->sandbox_status();
  std::string text = fmt::format(
      "Shell commands (the `bash` tool) and the file tools work on the project {} through "
      "cordon, a sandbox: commands can write only in the project and /tmp, cannot use the "
      "network, and see the user's credential folders as empty. A failure that the sandbox "
      "caused comes with a note. Ask for `network: true` only for commands that need the "
      "internet, and `outside_sandbox: true` only when nothing else works; both ask the user.",
      project_);
  if (!st.available) text += " The sandbox is unavailable now: " + st.reason;
  for (const auto& n : session_->start_notices()) text += " Note: " + n;
  return text;
}

json McpConnection::call_tool(const json& id, const json& params, const api::Cancel* cancel) {
  std::string version;
  api::Session* session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    version = version_;
    session = session_.get();
  }
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string())
    return make_error_reply(id, kInvalidParams, "`tools/call` needs `name`, a string.");
  const std::string name = params["name"].get<std::string>();
  std::optional<Tool> t = tool_by_name(name);
  const bool job_tool = McpJobs::is_job_tool(name);
  if (!job_tool && (!t || *t == Tool::kExec || *t == Tool::kClassify))
    return make_error_reply(id, kInvalidParams, fmt::format("there is no tool `{}`.", name));
  json args = params.contains("arguments") ? params["arguments"] : json::object();
  if (!args.is_object())
    return make_response(
        id, tool_result(version, "`arguments` must be an object.", std::nullopt, true));
  if (!session)
    return make_response(
        id, tool_result(version, "cordon could not open its session: " + open_error_->message,
                        std::nullopt, true));
  if (job_tool || *t == Tool::kBash)
    if (auto r = call_job_tool(*session, name, args, cancel)) {
      if (!r->ok())
        return make_response(
            id, refusal_result(version, r->error(), job_tool ? Shape::kJobTool : Shape::kBash));
      std::string text = job_tool ? job_text(**r) : started_text(**r);
      return make_response(id, tool_result(version, std::move(text), std::move(**r), false));
    }
  const bool default_timeout =
      *t == Tool::kBash && !args.contains("timeout_ms") && opts_.default_timeout.count() > 0;
  if (default_timeout)
    args["timeout_ms"] =
        std::min<uint64_t>(static_cast<uint64_t>(opts_.default_timeout.count()), kMaxTimeoutMs);
  auto r = rpc::call_tool(*session, *t, args, cancel, progress_sink(*t, id));
  if (!r.ok())
    return make_response(
        id, refusal_result(version, r.error(), *t == Tool::kBash ? Shape::kBash : Shape::kFree));
  std::string text = tool_text(*t, *r, default_timeout);
  return make_response(id, tool_result(version, std::move(text), std::move(*r), false));
}

// A bash call's output, for its progress notifications' last line (issue 30 item 4); none
// when the call asked for no progress.
OutputSink McpConnection::progress_sink(Tool t, const json& id) const {
  if (t != Tool::kBash) return {};
  auto ticker = core_.progress(id);
  if (!ticker) return {};
  return [ticker](int, std::string_view data) { ticker->note_output(data); };
}

std::optional<Result<json>> McpConnection::call_job_tool(api::Session& s, const std::string& name,
                                                         json& args, const api::Cancel* cancel) {
  if (McpJobs::is_job_tool(name)) return jobs_.call(s, name, args, cancel);
  if (!args.contains("run_in_background")) return std::nullopt;
  const json background = args["run_in_background"];
  args.erase("run_in_background");
  if (background.is_null()) return std::nullopt;
  if (!background.is_boolean())
    return Result<json>(
        make_error(ErrorKind::kInvalid, "`run_in_background` must be true or false."));
  // No default time-out: a job runs until it ends, kill_bash, its own timeout_ms or the
  // connection's end.
  if (!background.get<bool>()) return std::nullopt;
  return jobs_.start(s, args);
}

std::string McpConnection::tool_text(Tool t, const json& result, bool default_timeout) const {
  switch (t) {
    case Tool::kBash: {
      std::string text = exec_text(result);
      if (default_timeout && result.value("timed_out", false))
        text += fmt::format(
            "\n[note] ended after cordon mcp's default time-out of {} s; give `timeout_ms` for "
            "a longer command",
            opts_.default_timeout.count() / 1000);
      return text;
    }
    case Tool::kReadFile:
      return read_text(result);
    case Tool::kSearch:
      return search_text(result);
    default:
      return result.dump(2, ' ', false, json::error_handler_t::replace);
  }
}

}  // namespace cordon::rpc
