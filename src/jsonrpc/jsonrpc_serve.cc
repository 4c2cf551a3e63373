#include "jsonrpc/jsonrpc_serve.h"

#include <fmt/format.h>

#include "approval/request.h"
#include "core/version.h"
#include "jsonrpc/exec_output_notifier.h"
#include "jsonrpc/jsonrpc_tools.h"
#include "jsonrpc/peer_answer.h"

namespace cordon::rpc {

namespace {

constexpr const char* kProtocol = "cordon/1";

json invalid_params(const json& id, const std::string& message) {
  return make_error_reply(id, kInvalidParams, message, "invalid");
}

}  // namespace

PersonAnswer read_approval_answer(const Peer::CallResult& r, bool session_grant_offered) {
  if (auto a = unanswered(r, "the client went away before answering", [](const std::string& msg) {
        return fmt::format(
            "the client answered `approval/ask` with an error ({}), which counts as no", msg);
      }))
    return *a;
  const json& v = r.value;
  if (v.is_object() && v.contains("decision") && v["decision"].is_string()) {
    const std::string d = v["decision"].get<std::string>();
    if (d == "deny") return {Reply::kDeny, ""};
    if (d == "allow") {
      bool session = v.contains("scope") && v["scope"] == "session";
      return {session && session_grant_offered ? Reply::kAllowForSession : Reply::kAllowOnce, ""};
    }
  }
  return {Reply::kUnavailable,
          "the client's answer to `approval/ask` was not {\"decision\": \"allow\"|\"deny\"}, "
          "which counts as no"};
}

PersonAnswer RpcAsker::ask(const Question& q) {
  json params = to_ask_params(q.request);
  params["session_grant_offered"] = q.session_grant_offered;
  if (!q.judge_note.empty()) params["judge_note"] = q.judge_note;
  if (q.deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        *q.deadline - std::chrono::steady_clock::now());
    params["timeout_ms"] = std::max<int64_t>(0, left.count());
  }
  Peer::CallResult r = peer_.call("approval/ask", std::move(params), q.deadline, q.cancel_fd);
  // The client may still show the question: tell it the question is withdrawn (canceled or
  // timed out), so that a late answer is not asked of the person.
  if (r.status == Peer::CallResult::kCanceled || r.status == Peer::CallResult::kTimeout)
    if (r.id) peer_.send(make_notification("approval/withdrawn", {{"id", r.id}}));
  return read_approval_answer(r, q.session_grant_offered);
}

ServeConnection::ServeConnection(ServeOptions options, Peer& peer)
    : opts_(std::move(options)),
      peer_(peer),
      asker_(peer),
      jobs_(peer),
      core_(*this, peer, CoreOptions{opts_.max_in_flight, opts_.threads, opts_.log}) {}

ServeConnection::~ServeConnection() {
  close();
  jobs_.quiet();  // its jobs end with the session, told to nobody
  // The session ends after every request that used it (an ephemeral one removes its /tmp).
  std::lock_guard<std::mutex> lock(mu_);
  session_.reset();
}

bool ServeConnection::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_;
}

bool ServeConnection::ready() const { return session() != nullptr; }

api::Session* ServeConnection::session() const {
  std::lock_guard<std::mutex> lock(mu_);
  return session_.get();  // lives until every worker has finished
}

ConnectionProtocol::Route ServeConnection::route(const std::string& method) const {
  if (method == "initialize" || method == "shutdown") return Route::kNow;
  if (method == "away" || method == "cancel" || ServeJobs::answers_now(method))
    return Route::kNowInSession;
  if (method == "job/wait") return Route::kWorker;
  static const char* kWorkerMethods[] = {"exec",   "read_file", "write_file", "edit_file",
                                         "search", "classify",  "review",     "policy"};
  for (const char* w : kWorkerMethods)
    if (method == w) return Route::kWorker;
  return Route::kUnknown;
}

json ServeConnection::refusal(CoreRefusal why, const json& id, const Message& m,
                              const std::string& detail) const {
  switch (why) {
    case CoreRefusal::kUnknownMethod:
      return make_error_reply(
          id, kMethodNotFound,
          fmt::format("there is no method `{}`; see docs/protocol.md.", m.method), "invalid");
    case CoreRefusal::kClosing:
      return make_error_reply(id, kUnavailableCode, "the server is shutting down.", "unavailable");
    case CoreRefusal::kNotReady:
      return make_error_reply(id, kInvalidRequest,
                              "call `initialize` first: it opens the session on the project.",
                              "invalid");
    case CoreRefusal::kDuplicateId:
      return make_error_reply(id, kInvalidRequest,
                              fmt::format("the id {} is already used by a request in flight; "
                                          "give each request its own id.",
                                          id.dump()),
                              "invalid");
    case CoreRefusal::kFull:
      return make_error_reply(id, kUnavailableCode,
                              fmt::format("{} requests are running already; send this one "
                                          "again when one has finished.",
                                          opts_.max_in_flight),
                              "unavailable");
    case CoreRefusal::kNoThread:
      return make_error_reply(id, kUnavailableCode,
                              "no thread could be started for this request; send it "
                              "again later.",
                              "unavailable");
    case CoreRefusal::kInternal:
      return make_error_reply(
          id, kInternalError,
          detail.empty() ? std::string("internal error") : "internal error: " + detail,
          "unavailable");
  }
  return make_error_reply(id, kInternalError, "internal error", "unavailable");
}

json ServeConnection::answer_now(const Message& m) {
  if (m.method == "initialize") return initialize(m.id, m.params);
  if (m.method == "shutdown") return shutdown(m.id);
  if (m.method == "away") return away(m.id, m.params);
  if (ServeJobs::is_job_method(m.method))
    return jobs_.answer(*session(), m.method, m.id, m.params, nullptr);
  return cancel(m.id, m.params);
}

json ServeConnection::away(const json& id, const json& params) {
  Params p(params);
  auto on = p.boolean("on");
  p.no_others();
  if (!p.ok() || !on)
    return invalid_params(id, p.ok() ? "`on` is required (true or false)." : p.problem());
  api::Session* s = session();
  if (auto st = s->set_away(*on); !st.ok()) return error_response(id, st.error());
  return make_response(id, {{"away", s->away()}});
}

json ServeConnection::cancel(const json& id, const json& params) {
  if (!params.is_object() || params.size() != 1 || !params.contains("id") ||
      !(params["id"].is_string() || params["id"].is_number()))
    return invalid_params(id, "`cancel` takes one parameter, `id`: the id of a request in flight.");
  return make_response(id, {{"canceled", core_.cancel(params["id"], false)}});
}

json ServeConnection::run(const Message& m, const api::Cancel* cancel) {
  api::Session& s = *session();
  if (m.method == "job/wait") return jobs_.answer(s, m.method, m.id, m.params, cancel);
  json params = m.params;
  if (m.method == "exec" && ServeJobs::is_background(params)) {
    if (params["background"] == true && params.contains("stream") && params["stream"] != false)
      return invalid_params(m.id,
                            "`stream` is for an exec in the foreground; read a background "
                            "job's output with `job/output`.");
    json job_params = params;
    job_params.erase("stream");  // exec() below reads it
    if (json r = jobs_.start(s, m.id, job_params); !r.is_null()) return r;
    params.erase("background");  // false: an ordinary exec
  }
  if (m.method == "exec") return exec(m.id, params, cancel);
  if (auto tool = tool_by_name(m.method)) {
    auto r = call_tool(s, *tool, params, cancel);
    return r.ok() ? make_response(m.id, std::move(*r)) : error_response(m.id, r.error());
  }
  if (m.method == "review") return review(m.id, m.params);
  if (m.method == "policy") return policy(m.id, m.params);
  return make_error_reply(m.id, kMethodNotFound, "no such method", "invalid");
}

// An ordinary exec; with "stream": true its output goes out as it comes (`exec/output`, issue
// 30), all of it before the answer.
json ServeConnection::exec(const json& id, json params, const api::Cancel* cancel) {
  std::optional<ExecOutputNotifier> live;
  if (params.is_object() && params.contains("stream")) {
    const json stream = params["stream"];
    params.erase("stream");
    if (!stream.is_boolean()) return invalid_params(id, "`stream` must be true or false.");
    if (stream.get<bool>()) live.emplace(peer_, id);
  }
  auto r = call_tool(*session(), Tool::kExec, params, cancel, live ? live->sink() : OutputSink{});
  if (live) live->finish();
  return r.ok() ? make_response(id, std::move(*r)) : error_response(id, r.error());
}

json ServeConnection::review(const json& id, const json& params) {
  Params p(params);
  std::string action = p.str("action").value_or("show");
  p.no_others();
  if (!p.ok()) return invalid_params(id, p.problem());
  api::Session& s = *session();
  if (action == "start") {
    auto r = s.review_start();
    if (!r.ok()) return error_response(id, r.error());
    return make_response(
        id, {{"started", true}, {"commit", r->commit}, {"ignored_files", r->ignored_files}});
  }
  if (action != "show") return invalid_params(id, "`action` must be \"start\" or \"show\".");
  auto r = s.review();
  if (!r.ok()) return error_response(id, r.error());
  return make_response(id, to_json(*r));
}

json ServeConnection::policy(const json& id, const json& params) {
  Params p(params);
  p.no_others();
  if (!p.ok()) return invalid_params(id, p.problem());
  auto r = session()->policy_json();
  if (!r.ok()) return error_response(id, r.error());
  json j = json::parse(*r, nullptr, false);
  if (j.is_discarded())
    return make_error_reply(id, kInternalError, "the policy could not be read back", "unavailable");
  return make_response(id, std::move(j));
}

json ServeConnection::initialize(const json& id, const json& params) {
  Params p(params);
  InitializeParams ip;
  ip.project = p.str("project", true).value_or("");
  ip.session = p.str("session");
  ip.resume = p.boolean("resume").value_or(false);
  ip.away = p.boolean("away").value_or(false);
  p.no_others();
  if (!p.ok()) return invalid_params(id, p.problem());
  if (ip.project.empty() || ip.project[0] != '/')
    return invalid_params(id, "`project` must be an absolute path to the project's folder.");
  if (ip.resume && !ip.session)
    return invalid_params(id, "`resume` needs `session`: the id of the session to resume.");
  if (session() || core_.closing())
    return make_error_reply(
        id, kInvalidRequest,
        "the connection is initialized already; it holds one session. Open another "  // SES-1
        "connection for another project or session.",
        "invalid");
  auto s = opts_.open(ip, &asker_);
  if (!s.ok()) return error_response(id, s.error());
  api::Session& opened = **s;
  const api::SessionInfo& info = opened.info();
  json notice = json::array();
  for (const auto& n : opened.start_notices()) notice.push_back(n);
  for (const auto& n : info.resume_notes) notice.push_back(n);
  for (const auto& m : info.resume_quarantined)
    notice.push_back(fmt::format("moved aside at resume: {} -> {}", m.from, m.to));
  if (!info.hold.empty()) notice.push_back(info.hold);
  json result{{"session", info.id},
              {"project", info.project},
              {"notice", std::move(notice)},
              {"sandbox", to_json(opened.sandbox_status())},
              {"away", opened.away()},
              {"protocol", kProtocol},
              {"server", {{"name", "cordon"}, {"version", kCordonVersion}}}};
  std::lock_guard<std::mutex> lock(mu_);
  session_ = std::move(*s);
  return make_response(id, std::move(result));
}

json ServeConnection::shutdown(const json& id) {
  core_.close();
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = true;
  return make_response(id, json::object());
}

}  // namespace cordon::rpc
