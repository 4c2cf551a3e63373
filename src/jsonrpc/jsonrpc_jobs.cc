#include "jsonrpc/jsonrpc_jobs.h"

#include <fmt/format.h>
#include <signal.h>

#include <chrono>
#include <utility>

#include "jsonrpc/jsonrpc_tools.h"

namespace cordon::rpc {

namespace {

json bad_job_params(const json& id, const std::string& message) {
  return make_error_reply(id, kInvalidParams, message, "invalid");
}

// Outcomes of reading a parameter: the job, or the reply to send instead.
struct Found {
  std::shared_ptr<api::Job> job;
  json reply;
};

Found find_job(api::Session& s, Params& p, const json& id) {
  auto name = p.str("job", true);
  if (!p.ok()) return {nullptr, bad_job_params(id, p.problem() + " (the id `exec` answered)")};
  for (auto& j : s.jobs())
    if (j->id() == *name) return {j, {}};
  return {nullptr, bad_job_params(id, fmt::format("`job`: there is no job \"{}\" in this "
                                                  "session; `job/list` names them.",
                                                  *name))};
}

struct SignalName {
  const char* name;
  int number;
};
constexpr SignalName kSignals[] = {{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT},
                                   {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
                                   {"TERM", SIGTERM}, {"STOP", SIGSTOP}, {"CONT", SIGCONT}};

// "TERM", "SIGTERM" or 15; 0 when it is none of them.
int read_signal(const json& v) {
  if (v.is_number_integer()) {
    auto n = v.get<int64_t>();
    return n > 0 && n < NSIG ? static_cast<int>(n) : 0;
  }
  if (!v.is_string()) return 0;
  std::string name = v.get<std::string>();
  if (name.rfind("SIG", 0) == 0) name = name.substr(3);
  for (const auto& s : kSignals)
    if (name == s.name) return s.number;
  return 0;
}

// A job's error as its answers give it: {reason, message}.
json error_fields(const cordon::Error& e) {
  json j{{"reason", wire_reason(e)}, {"message", e.message}};
  if (!e.violations.empty()) j["violations"] = violations_json(e.violations);  // AUD-2
  return j;
}

// The end of a job, as exec would have answered it (an error: what refused it).
void add_end(json& j, const api::Job& job) {
  auto r = job.result();
  if (!r) return;
  if (r->ok()) {
    json res = to_json(**r);
    for (auto it = res.begin(); it != res.end(); ++it)
      if (!j.contains(it.key())) j[it.key()] = it.value();
    return;
  }
  j["error"] = error_fields(r->error());
}

json status_json(const api::Job& job) {
  api::JobOutput o = job.output(UINT64_MAX);
  json j{{"job", job.id()}, {"command", job.command()}, {"running", o.running}};
  if (o.exit_code) j["exit_code"] = *o.exit_code;
  if (o.signal) j["signal"] = *o.signal;
  return j;
}

}  // namespace

bool ServeJobs::is_job_method(const std::string& method) {
  return method == "job/output" || method == "job/write" || method == "job/signal" ||
         method == "job/wait" || method == "job/list" || method == "job/resize";
}

bool ServeJobs::answers_now(const std::string& method) {
  return is_job_method(method) && method != "job/wait";
}

bool ServeJobs::is_background(const json& params) {
  return params.is_object() && params.contains("background");
}

json ServeJobs::start(api::Session& s, const json& id, const json& params) {
  const json& bg = params["background"];
  if (!bg.is_boolean()) return bad_job_params(id, "`background` must be true or false.");
  json rest = params;
  rest.erase("background");
  auto req = read_exec_request(rest, false);
  if (!req.ok()) return error_response(id, req.error());
  if (!bg.get<bool>()) return json();  // the caller runs it in the foreground
  auto job = s.start_job(*req, [this](api::Job& j) { ended(j); });
  if (!job.ok()) return error_response(id, job.error());
  return make_response(id, {{"job", (*job)->id()}});
}

void ServeJobs::ended(api::Job& job) {
  if (quiet_) return;
  json params{{"job", job.id()}};
  add_end(params, job);
  peer_.send(make_notification("job/ended", std::move(params)));
}

json ServeJobs::answer(api::Session& s, const std::string& method, const json& id,
                       const json& params, const api::Cancel* cancel) {
  if (method == "job/output") return output(s, id, params);
  if (method == "job/write") return write(s, id, params);
  if (method == "job/signal") return signal(s, id, params);
  if (method == "job/wait") return wait(s, id, params, cancel);
  if (method == "job/resize") return resize(s, id, params);
  return list(s, id, params);
}

json ServeJobs::output(api::Session& s, const json& id, const json& params) {
  Params p(params);
  Found f = find_job(s, p, id);
  if (!f.job) return f.reply;
  uint64_t offset = p.count("offset", UINT64_MAX).value_or(0);
  p.no_others();
  if (!p.ok()) return bad_job_params(id, p.problem());
  api::JobOutput o = f.job->output(offset);
  json j{{"stdout", o.stdout_text},
         {"stderr", o.stderr_text},
         {"offset", o.offset},
         {"running", o.running}};
  if (o.dropped) j["dropped"] = o.dropped;
  if (o.exit_code) j["exit_code"] = *o.exit_code;
  if (o.signal) j["signal"] = *o.signal;
  if (auto r = f.job->result(); r && !r->ok()) j["error"] = error_fields(r->error());
  return make_response(id, std::move(j));
}

json ServeJobs::write(api::Session& s, const json& id, const json& params) {
  Params p(params);
  Found f = find_job(s, p, id);
  if (!f.job) return f.reply;
  auto data = p.str("data", false, /*data=*/true);
  bool eof = p.boolean("eof").value_or(false);
  p.no_others();
  if (!p.ok()) return bad_job_params(id, p.problem());
  if (!data && !eof)
    return bad_job_params(id,
                          "give `data` (a string) to write, or `eof`: true to close the "
                          "input, or both.");
  std::string d = data.value_or("");
  if (auto st = f.job->write(d, eof); !st.ok()) return error_response(id, st.error());
  return make_response(id, {{"written", d.size()}, {"eof", eof}});
}

json ServeJobs::signal(api::Session& s, const json& id, const json& params) {
  json rest = params.is_object() ? params : json::object();
  json sig = rest.contains("signal") ? rest["signal"] : json();
  rest.erase("signal");
  Params p(rest);
  Found f = find_job(s, p, id);
  if (!f.job) return f.reply;
  p.no_others();
  if (!p.ok()) return bad_job_params(id, p.problem());
  int n = read_signal(sig);
  if (n == 0)
    return bad_job_params(id,
                          "`signal` must be a signal's name (\"TERM\", \"KILL\", \"INT\", "
                          "\"HUP\", ...) or its number (1 to 64).");
  if (auto st = f.job->signal(n); !st.ok()) return error_response(id, st.error());
  return make_response(id, {{"sent", true}});
}

// JOB-3: the job's terminal gets a new size (the command gets SIGWINCH).
json ServeJobs::resize(api::Session& s, const json& id, const json& params) {
  Params p(params);
  Found f = find_job(s, p, id);
  if (!f.job) return f.reply;
  auto cols = p.count("cols", UINT16_MAX, true);
  auto rows = p.count("rows", UINT16_MAX, true);
  p.no_others();
  if (!p.ok()) return bad_job_params(id, p.problem());
  if (auto st = f.job->resize(static_cast<uint16_t>(*cols), static_cast<uint16_t>(*rows)); !st.ok())
    return error_response(id, st.error());
  return make_response(id, {{"cols", *cols}, {"rows", *rows}});
}

json ServeJobs::wait(api::Session& s, const json& id, const json& params,
                     const api::Cancel* cancel) {
  Params p(params);
  Found f = find_job(s, p, id);
  if (!f.job) return f.reply;
  auto ms = p.count("timeout_ms", kMaxTimeoutMs, true);
  p.no_others();
  if (!p.ok()) return bad_job_params(id, p.problem());
  // `cancel` (or the connection's end) ends the wait.
  const bool ended = wait_for_end(*f.job, std::chrono::milliseconds(*ms), cancel);
  json j = status_json(*f.job);
  j["ended"] = ended || !f.job->running();
  if (j["ended"].get<bool>()) add_end(j, *f.job);
  return make_response(id, std::move(j));
}

json ServeJobs::list(api::Session& s, const json& id, const json& params) {
  Params p(params);
  p.no_others();
  if (!p.ok()) return bad_job_params(id, p.problem());
  json jobs = json::array();
  for (const auto& j : s.jobs()) jobs.push_back(status_json(*j));
  return make_response(id, {{"jobs", std::move(jobs)}});
}

}  // namespace cordon::rpc
