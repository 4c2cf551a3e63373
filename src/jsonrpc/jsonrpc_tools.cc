#include "jsonrpc/jsonrpc_tools.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error_code.h"

namespace cordon::rpc {

namespace {

Error invalid_arguments(std::string message) { return make_error(ErrorKind::kInvalid, std::move(message)); }

json moved_json(const std::vector<api::Moved>& moved) {
  json a = json::array();
  for (const auto& m : moved) a.push_back({{"from", m.from}, {"to", m.to}});
  return a;
}

// `command` or `argv`: exactly one.
Status read_command(Params& p, std::optional<std::string>& command, std::vector<std::string>& argv,
                    bool shell_only) {
  command = p.str("command");
  if (!shell_only) {
    if (auto a = p.strings("argv")) argv = *a;
  }
  if (!p.ok()) return invalid_arguments(p.problem());
  if (shell_only && !command) return invalid_arguments("`command` is required (a string).");
  if (command && !argv.empty()) return invalid_arguments("give either `command` or `argv`, not both.");
  if (!command && argv.empty()) return invalid_arguments("give `command` (a string) or `argv` (an array).");
  return ok_status();
}

// JOB-3: `tty`, with `cols` and `rows` (80 x 24 when not given; the session checks the range).
Status read_tty(Params& p, api::ExecRequest& r) {
  r.tty = p.boolean("tty").value_or(false);
  auto cols = p.count("cols", UINT16_MAX);
  auto rows = p.count("rows", UINT16_MAX);
  if (!p.ok()) return invalid_arguments(p.problem());
  if ((cols || rows) && !r.tty)
    return invalid_arguments("`cols` and `rows` are a terminal's size: give them with `tty`: true.");
  if (cols) r.cols = static_cast<uint16_t>(*cols);
  if (rows) r.rows = static_cast<uint16_t>(*rows);
  return ok_status();
}

}  // namespace

Result<api::ExecRequest> read_exec_request(const json& params, bool bash) {
  Params p(params);
  api::ExecRequest r;
  if (auto st = read_command(p, r.command, r.argv, bash); !st.ok()) return st.error();
  r.network = p.boolean("network").value_or(false);
  r.outside_sandbox = p.boolean("outside_sandbox").value_or(false);
  if (auto t = p.count("timeout_ms", kMaxTimeoutMs)) {
    if (*t == 0) return invalid_arguments("`timeout_ms` must be at least 1.");
    r.timeout = std::chrono::milliseconds(*t);
  }
  if (!bash) {
    r.stdin_data = p.str("stdin", false, /*data=*/true);
    r.cwd = p.str("cwd").value_or("");
  }
  r.reason = p.str("reason").value_or("");
  if (auto st = read_tty(p, r); !st.ok()) return st.error();
  p.no_others();
  if (!p.ok()) return invalid_arguments(p.problem());
  r.output_limit = kServerOutputLimit;
  return r;
}

namespace {

Result<json> exec(api::Session& s, const json& params, bool bash, const api::Cancel* cancel,
                  OutputSink on_output) {
  auto r = read_exec_request(params, bash);
  if (!r.ok()) return r.error();
  r->cancel = cancel;
  r->on_output = std::move(on_output);
  auto res = s.exec(*r);
  if (!res.ok()) return res.error();
  return to_json(*res);
}

Result<json> read_file(api::Session& s, const json& params) {
  Params p(params);
  api::ReadFileRequest r;
  r.path = p.str("path", true).value_or("");
  if (auto o = p.count("offset", UINT32_MAX)) r.offset = *o;
  if (auto l = p.count("limit", UINT32_MAX)) r.limit = *l;
  r.reason = p.str("reason").value_or("");
  p.no_others();
  if (!p.ok()) return invalid_arguments(p.problem());
  auto res = s.read_file(r);
  if (!res.ok()) return res.error();
  return to_json(*res);
}

Result<json> write_file(api::Session& s, const json& params) {
  Params p(params);
  api::WriteFileRequest r;
  r.path = p.str("path", true).value_or("");
  auto content = p.str("content", true, /*data=*/true);
  r.reason = p.str("reason").value_or("");
  p.no_others();
  if (!p.ok()) return invalid_arguments(p.problem());
  r.content = std::move(*content);
  auto res = s.write_file(r);
  if (!res.ok()) return res.error();
  return to_json(*res);
}

Result<json> edit_file(api::Session& s, const json& params) {
  Params p(params);
  api::EditFileRequest r;
  r.path = p.str("path", true).value_or("");
  auto old_text = p.str("old_text", true, /*data=*/true);
  auto new_text = p.str("new_text", true, /*data=*/true);
  r.replace_all = p.boolean("replace_all").value_or(false);
  r.reason = p.str("reason").value_or("");
  p.no_others();
  if (!p.ok()) return invalid_arguments(p.problem());
  r.old_text = std::move(*old_text);
  r.new_text = std::move(*new_text);
  auto res = s.edit_file(r);
  if (!res.ok()) return res.error();
  return to_json(*res);
}

Result<json> search(api::Session& s, const json& params) {
  Params p(params);
  api::SearchRequest r;
  r.pattern = p.str("pattern", true).value_or("");
  r.path = p.str("path").value_or("");
  r.fixed_string = p.boolean("fixed_string").value_or(false);
  r.ignore_case = p.boolean("ignore_case").value_or(false);
  r.glob = p.str("glob").value_or("");
  if (auto m = p.count("max_results", 1000)) r.max_results = *m;
  p.no_others();
  if (!p.ok()) return invalid_arguments(p.problem());
  auto res = s.search(r);
  if (!res.ok()) return res.error();
  return to_json(*res);
}

Result<json> classify(api::Session& s, const json& params) {
  Params p(params);
  api::ClassifyRequest r;
  if (auto st = read_command(p, r.command, r.argv, false); !st.ok()) return st.error();
  r.network = p.boolean("network").value_or(false);
  r.cwd = p.str("cwd").value_or("");
  p.no_others();
  if (!p.ok()) return invalid_arguments(p.problem());
  auto res = s.classify(r);
  if (!res.ok()) return res.error();
  return to_json(*res);
}

}  // namespace

std::optional<Tool> tool_by_name(std::string_view name) {
  if (name == "exec") return Tool::kExec;
  if (name == "bash") return Tool::kBash;
  if (name == "read_file") return Tool::kReadFile;
  if (name == "write_file") return Tool::kWriteFile;
  if (name == "edit_file") return Tool::kEditFile;
  if (name == "search") return Tool::kSearch;
  if (name == "classify") return Tool::kClassify;
  return std::nullopt;
}

Result<json> call_tool(api::Session& session, Tool tool, const json& params,
                       const api::Cancel* cancel, OutputSink on_output) {
  switch (tool) {
    case Tool::kExec:
      return exec(session, params, false, cancel, std::move(on_output));
    case Tool::kBash:
      return exec(session, params, true, cancel, std::move(on_output));
    case Tool::kReadFile:
      return read_file(session, params);
    case Tool::kWriteFile:
      return write_file(session, params);
    case Tool::kEditFile:
      return edit_file(session, params);
    case Tool::kSearch:
      return search(session, params);
    case Tool::kClassify:
      return classify(session, params);
  }
  return invalid_arguments("unknown tool");
}

// AUD-2: each with kind, rule, fix and source, and the path or host it names.
json violations_json(const std::vector<api::Violation>& violations) {
  json out = json::array();
  for (const auto& v : violations) {
    json j{{"kind", v.kind}, {"rule", v.rule}, {"fix", v.fix}, {"source", v.source}};
    if (!v.path.empty()) j["path"] = v.path;
    if (!v.host.empty()) j["host"] = v.host;
    out.push_back(std::move(j));
  }
  return out;
}

json to_json(const api::ExecResult& r) {
  json j;
  j["exit_code"] = r.exit_code;
  if (r.signal) j["signal"] = *r.signal;
  j["stdout"] = r.stdout_text;
  j["stderr"] = r.stderr_text;
  j["timed_out"] = r.timed_out;
  // cordon's own words about the command (a start notice, "make: command not found") come
  // first, then RES-1's notes.
  json notes = json::array();
  for (const auto& n : r.notices) notes.push_back(n);
  for (const auto& m : r.messages) notes.push_back(m);
  for (const auto& n : r.notes) notes.push_back(n);
  j["notes"] = std::move(notes);
  j["quarantined"] = moved_json(r.quarantined);
  j["violations"] = violations_json(r.violations);  // AUD-2
  if (r.withheld) j["withheld"] = true;
  if (r.canceled) j["canceled"] = true;
  if (r.stdout_truncated) j["stdout_truncated"] = true;
  if (r.stderr_truncated) j["stderr_truncated"] = true;
  if (!r.processes_left.empty()) j["processes_left"] = r.processes_left;
  if (!r.connections.empty()) {  // NET-9
    json conns = json::array();
    for (const auto& c : r.connections)
      conns.push_back(json{{"host", c.host},
                           {"allowed", c.allowed},
                           {"rule", c.rule},
                           {"bytes_out", c.bytes_out},
                           {"bytes_in", c.bytes_in},
                           {"count", c.count}});
    j["connections"] = std::move(conns);
  }
  j["duration_ms"] = static_cast<int64_t>(r.duration_ms + 0.5);
  return j;
}

json to_json(const api::ReadFileResult& r) {
  json j{{"path", r.path},
         {"content", r.content},
         {"first_line", r.first_line},
         {"line_count", r.line_count},
         {"total_lines", r.total_lines},
         {"more", r.more},
         {"size", r.size}};
  if (r.invalid_utf8) j["invalid_utf8"] = r.invalid_utf8;
  return j;
}

json to_json(const api::WriteFileResult& r) {
  return json{{"path", r.path},
              {"bytes", r.bytes},
              {"created", r.created},
              {"created_dirs", r.created_dirs}};
}

json to_json(const api::EditFileResult& r) {
  return json{{"path", r.path}, {"replacements", r.replacements}};
}

json to_json(const api::SearchResult& r) {
  json matches = json::array();
  for (const auto& m : r.matches)
    matches.push_back({{"path", m.path}, {"line", m.line}, {"text", m.text}});
  json j{{"matches", std::move(matches)},
         {"truncated", r.truncated},
         {"files_searched", r.files_searched},
         {"credential_files_skipped", r.credential_files_skipped}};
  if (r.truncated) j["truncated_reason"] = r.truncated_reason;
  // FILE-2: only when above 0.
  if (r.large_files_skipped) j["large_files_skipped"] = r.large_files_skipped;
  if (r.binary_files_skipped) j["binary_files_skipped"] = r.binary_files_skipped;
  if (r.hidden_paths_skipped) j["hidden_paths_skipped"] = r.hidden_paths_skipped;
  if (r.unreadable_skipped) j["unreadable_skipped"] = r.unreadable_skipped;
  return j;
}

json to_json(const api::Classification& c) {
  return json{{"class", c.cls}, {"reason", c.reason}, {"word", c.word}, {"rule", c.rule}};
}

json to_json(const api::ReviewReport& r) {
  return json{{"commit", r.commit}, {"replace_refs", r.replace_refs},   {"changed", r.changed},
              {"added", r.added},   {"added_ignored", r.added_ignored}, {"limits", r.limits},
              {"text", r.text}};
}

json to_json(const api::SandboxStatus& s) {
  json j{{"mode", s.mode}, {"backend", s.backend}, {"available", s.available}};
  if (!s.available) j["reason"] = s.reason;
  return j;
}

ErrorCode wire_code(const Error& e) {
  // libcordon's kind, through the one mapping (core/error_code.h); SRV-1 has no "io".
  const ErrorCode code = public_error_code(e.code);
  return code == ErrorCode::kIo ? ErrorCode::kUnavailable : code;
}

std::string wire_reason(const Error& e) { return std::string(to_string(wire_code(e))); }

json error_response(const json& id, const Error& e) {
  const ErrorCode code = wire_code(e);
  json reply = make_error_reply(id, jsonrpc_code(code), e.message, std::string(to_string(code)));
  // AUD-2: a refusal before anything ran says what was refused, its rule and fix.
  if (!e.violations.empty()) reply["error"]["data"]["violations"] = violations_json(e.violations);
  return reply;
}

bool wait_for_end(const api::Job& job, std::chrono::milliseconds timeout,
                  const api::Cancel* cancel) {
  using namespace std::chrono;
  const auto until = steady_clock::now() + timeout;
  while (true) {
    auto left = duration_cast<milliseconds>(until - steady_clock::now());
    if (job.wait(std::clamp(left, milliseconds(0), milliseconds(100)))) return true;
    if (steady_clock::now() >= until || (cancel && cancel->canceled())) return false;
  }
}

}  // namespace cordon::rpc
