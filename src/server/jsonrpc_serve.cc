#include "server/jsonrpc_serve.h"

#include <fmt/format.h>

#include "approval/request.h"
#include "core/version.h"
#include "server/jsonrpc_tools.h"

namespace cordon::rpc {

namespace {

constexpr const char* kProtocol = "cordon/1";

json invalid_params(const json& id, const std::string& message) {
  return make_error_reply(id, kInvalidParams, message, "invalid");
}

}  // namespace

PersonAnswer read_approval_answer(const Peer::CallResult& r, bool session_grant_offered) {
  switch (r.status) {
    case Peer::CallResult::kTimeout:
      return {Reply::kTimeout, ""};
    case Peer::CallResult::kClosed:
      return {Reply::kUnavailable, "the client went away before answering"};
    case Peer::CallResult::kError: {
      std::string msg =
          r.value.is_object() && r.value.contains("message") && r.value["message"].is_string()
              ? r.value["message"].get<std::string>()
              : std::string("no message");
      return {Reply::kUnavailable,
              fmt::format("the client answered `approval/ask` with an error ({}), which counts "
                          "as no",
                          msg)};
    }
    case Peer::CallResult::kResult:
      break;
  }
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
  return read_approval_answer(peer_.call("approval/ask", std::move(params), q.deadline),
                              q.session_grant_offered);
}

ServeConnection::ServeConnection(ServeOptions options, Peer& peer)
    : opts_(std::move(options)), peer_(peer), asker_(peer), workers_(SIZE_MAX, opts_.threads) {}

ServeConnection::~ServeConnection() {
  close();
  // The session ends after every request that used it (an ephemeral one removes its /tmp).
  std::lock_guard<std::mutex> lock(mu_);
  session_.reset();
}

void ServeConnection::log(const std::string& line) const {
  if (opts_.log) opts_.log(line);
}

bool ServeConnection::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_;
}

void ServeConnection::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    for (auto& [id, cancel] : running_) cancel->cancel();
  }
  peer_.close();  // questions waiting for the client are answered "unavailable"
  workers_.wait_all();
}

void ServeConnection::on_line(const LineFramer::Line& line) {
  Message m = line.too_long ? too_long_message() : parse_message(line.text);
  switch (m.kind) {
    case Message::Kind::kEmpty:
      return;
    case Message::Kind::kInvalid:
      peer_.send(m.reply);
      return;
    case Message::Kind::kResponse:
      if (!peer_.on_response(m)) log("ignored a response to no question of ours: " + m.id.dump());
      return;
    case Message::Kind::kNotification:
      return;  // none are defined for the client; unknown ones are ignored (JSON-RPC 2.0)
    case Message::Kind::kRequest:
      on_request(m);
      return;
  }
}

void ServeConnection::on_request(const Message& m) {
  const json& id = m.id;
  if (m.method == "initialize") {
    peer_.send(initialize(id, m.params));
    return;
  }
  if (m.method == "shutdown") {
    peer_.send(shutdown(id));
    return;
  }
  static const char* kWorkerMethods[] = {"exec",   "read_file", "write_file", "edit_file",
                                         "search", "classify",  "review",     "policy"};
  bool worker = false;
  for (const char* w : kWorkerMethods) worker = worker || m.method == w;
  if (!worker && m.method != "away" && m.method != "cancel") {
    peer_.send(make_error_reply(
        id, kMethodNotFound,
        fmt::format("there is no method `{}`; see docs/protocol.md.", m.method), "invalid"));
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (closing_) {
    lock.unlock();
    peer_.send(
        make_error_reply(id, kUnavailableCode, "the server is shutting down.", "unavailable"));
    return;
  }
  if (!session_) {
    lock.unlock();
    peer_.send(make_error_reply(id, kInvalidRequest,
                                "call `initialize` first: it opens the session on the project.",
                                "invalid"));
    return;
  }
  api::Session* session = session_.get();  // lives until every worker has finished
  if (m.method == "away") {
    lock.unlock();
    Params p(m.params);
    auto on = p.boolean("on");
    p.no_others();
    if (!p.ok() || !on) {
      peer_.send(invalid_params(id, p.ok() ? "`on` is required (true or false)." : p.problem()));
      return;
    }
    if (auto st = session->set_away(*on); !st.ok()) {
      peer_.send(error_response(id, st.error()));
      return;
    }
    peer_.send(make_response(id, {{"away", session->away()}}));
    return;
  }
  if (m.method == "cancel") {
    const json& params = m.params;
    if (!params.is_object() || params.size() != 1 || !params.contains("id") ||
        !(params["id"].is_string() || params["id"].is_number())) {
      lock.unlock();
      peer_.send(invalid_params(id,
                                "`cancel` takes one parameter, `id`: the id of a request "
                                "in flight."));
      return;
    }
    auto it = running_.find(params["id"].dump());
    bool found = it != running_.end();
    if (found) it->second->cancel();
    lock.unlock();
    peer_.send(make_response(id, {{"canceled", found}}));
    return;
  }
  const std::string key = id.dump();
  if (running_.count(key)) {
    lock.unlock();
    peer_.send(
        make_error_reply(id, kInvalidRequest,
                         fmt::format("the id {} is already used by a request in flight; give "
                                     "each request its own id.",
                                     key),
                         "invalid"));
    return;
  }
  // The limit counts requests by their entry here, which is removed before the response is
  // sent: a client that sends its next request on receiving a response never finds it full.
  if (running_.size() >= opts_.max_in_flight) {
    lock.unlock();
    peer_.send(make_error_reply(id, kUnavailableCode,
                                fmt::format("{} requests are running already; send this one "
                                            "again when one has finished.",
                                            opts_.max_in_flight),
                                "unavailable"));
    return;
  }
  auto cancel = std::make_shared<api::Cancel>();
  running_[key] = cancel;
  lock.unlock();
  std::string method = m.method;
  json params = m.params;
  bool started = workers_.run([this, method, params, id, key, cancel] {
    json response;
    try {
      response = handle(method, params, id, cancel.get());
    } catch (const std::exception& e) {
      response = make_error_reply(id, kInternalError, fmt::format("internal error: {}", e.what()),
                                  "unavailable");
    } catch (...) {
      response = make_error_reply(id, kInternalError, "internal error", "unavailable");
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      running_.erase(key);
    }
    peer_.send(response);
  });
  if (!started) {
    {
      std::lock_guard<std::mutex> l(mu_);
      running_.erase(key);
    }
    peer_.send(make_error_reply(id, kUnavailableCode,
                                "no thread could be started for this request; send it "
                                "again later.",
                                "unavailable"));
  }
}

json ServeConnection::handle(const std::string& method, const json& params, const json& id,
                             const api::Cancel* cancel) {
  api::Session* session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    session = session_.get();
  }
  if (auto tool = tool_by_name(method)) {
    auto r = call_tool(*session, *tool, params, cancel);
    return r.ok() ? make_response(id, std::move(*r)) : error_response(id, r.error());
  }
  if (method == "review") {
    Params p(params);
    std::string action = p.str("action").value_or("show");
    p.no_others();
    if (!p.ok()) return invalid_params(id, p.problem());
    if (action == "start") {
      auto r = session->review_start();
      if (!r.ok()) return error_response(id, r.error());
      return make_response(
          id, {{"started", true}, {"commit", r->commit}, {"ignored_files", r->ignored_files}});
    }
    if (action != "show") return invalid_params(id, "`action` must be \"start\" or \"show\".");
    auto r = session->review();
    if (!r.ok()) return error_response(id, r.error());
    return make_response(id, to_json(*r));
  }
  if (method == "policy") {
    Params p(params);
    p.no_others();
    if (!p.ok()) return invalid_params(id, p.problem());
    auto r = session->policy_json();
    if (!r.ok()) return error_response(id, r.error());
    json j = json::parse(*r, nullptr, false);
    if (j.is_discarded())
      return make_error_reply(id, kInternalError, "the policy could not be read back",
                              "unavailable");
    return make_response(id, std::move(j));
  }
  return make_error_reply(id, kMethodNotFound, "no such method", "invalid");
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
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (session_ || closing_)
      return make_error_reply(
          id, kInvalidRequest,
          "the connection is initialized already; it holds one session (SES-1).", "invalid");
  }
  auto s = opts_.open(ip, &asker_);
  if (!s.ok()) return error_response(id, s.error());
  api::Session& session = **s;
  const api::SessionInfo& info = session.info();
  json notice = json::array();
  for (const auto& n : session.start_notices()) notice.push_back(n);
  for (const auto& n : info.resume_notes) notice.push_back(n);
  for (const auto& m : info.resume_quarantined)
    notice.push_back(fmt::format("moved aside at resume: {} -> {}", m.from, m.to));
  if (!info.hold.empty()) notice.push_back(info.hold);
  json result{{"session", info.id},
              {"project", info.project},
              {"notice", std::move(notice)},
              {"sandbox", to_json(session.sandbox_status())},
              {"away", session.away()},
              {"protocol", kProtocol},
              {"server", {{"name", "cordon"}, {"version", kCordonVersion}}}};
  std::lock_guard<std::mutex> lock(mu_);
  session_ = std::move(*s);
  return make_response(id, std::move(result));
}

json ServeConnection::shutdown(const json& id) {
  close();
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = true;
  return make_response(id, json::object());
}

}  // namespace cordon::rpc
