#include "jsonrpc/jsonrpc_mcp_jobs.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <chrono>

#include "core/error_code.h"
#include "jsonrpc/jsonrpc_tools.h"

namespace cordon::rpc {

namespace {

// The names a job's id goes by: ours, then Claude Code's BashOutput's and KillShell's.
constexpr const char* kIdNames[] = {"job", "bash_id", "shell_id"};
// How long kill_bash waits for the end it caused (the sandbox's aftercare included).
constexpr std::chrono::seconds kKillWait{60};

Error bad_job_args(std::string message) {
  return make_error(ErrorKind::kInvalid, std::move(message));
}

// The job's id from the first of kIdNames given: a string, or a number as models write them.
Result<std::string> read_id(const json& args) {
  for (const char* name : kIdNames) {
    if (!args.contains(name) || args[name].is_null()) continue;
    const json& v = args[name];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
    return bad_job_args(fmt::format("`{}` must be the job's id, a string such as \"1\".", name));
  }
  return bad_job_args(
      "give `job`: the id that `bash` with `run_in_background: true` answered when it started "
      "the job.");
}

std::string unknown_job(const std::string& id, const std::vector<std::shared_ptr<api::Job>>& jobs) {
  if (jobs.empty())
    return fmt::format(
        "there is no background job \"{}\": none was started in this "
        "connection. `bash` with `run_in_background: true` starts one.",
        id);
  std::vector<std::string> ids;
  for (const auto& j : jobs) ids.push_back(j->id());
  return fmt::format(
      "there is no background job \"{}\" in this connection; its jobs are {}. "
      "`bash` with `run_in_background: true` starts another.",
      id, fmt::join(ids, ", "));
}

// A running job's state has the fields every bash result has, empty.
json running_state(const std::string& id, const api::JobOutput& o) {
  return json{{"job", id},
              {"running", true},
              {"stdout", o.stdout_text},
              {"stderr", o.stderr_text},
              {"timed_out", false},
              {"notes", json::array()},
              {"quarantined", json::array()}};
}

}  // namespace

bool McpJobs::is_job_tool(std::string_view name) {
  return name == "bash_output" || name == "kill_bash" || name == "bash_write";
}

Result<json> McpJobs::start(api::Session& s, const json& args) {
  auto req = read_exec_request(args, /*bash=*/true);
  if (!req.ok()) return req.error();
  auto job = s.start_job(*req);
  if (!job.ok()) {
    api::Error e = job.error();
    if (e.code == api::ErrorCode::kUnavailable) e.message += " kill_bash ends a job.";
    return e;
  }
  // Its input stays open for bash_write (a prompt answered, a REPL driven) until bash_write
  // gives `eof`.
  std::lock_guard<std::mutex> lock(mu_);
  // Forget the offsets of the jobs the session no longer lists.
  std::map<std::string, uint64_t> kept;
  for (const auto& j : s.jobs())
    if (auto it = read_.find(j->id()); it != read_.end()) kept.insert(*it);
  read_ = std::move(kept);
  return running_state((*job)->id(), api::JobOutput{});
}

Result<json> McpJobs::call(api::Session& s, std::string_view tool, const json& args,
                           const api::Cancel* cancel) {
  if (tool == "kill_bash") return kill(s, args, cancel);
  if (tool == "bash_write") return write(s, args);
  auto job = find(s, args);
  if (!job.ok()) return job.error();
  return read(**job);
}

Result<std::shared_ptr<api::Job>> McpJobs::find(api::Session& s, const json& args) const {
  auto id = read_id(args);
  if (!id.ok()) return id.error();
  json rest = args;
  for (const char* name : kIdNames) rest.erase(name);
  Params p(rest);
  p.no_others();
  if (!p.ok()) return bad_job_args(p.problem());
  auto jobs = s.jobs();
  for (auto& j : jobs)
    if (j->id() == *id) return j;
  return bad_job_args(unknown_job(*id, jobs));
}

Result<json> McpJobs::kill(api::Session& s, const json& args, const api::Cancel* cancel) {
  auto job = find(s, args);
  if (!job.ok()) return job.error();
  const bool killed = (*job)->signal(SIGKILL).ok();  // "invalid": it had ended already
  (void)wait_for_end(**job, kKillWait, cancel);
  auto r = read(**job);
  if (r.ok()) (*r)["killed"] = killed;
  return r;
}

// Writes `data` (and `eof`) to the job's input, then answers as bash_output does, with
// `written` and `eof`.
Result<json> McpJobs::write(api::Session& s, const json& args) {
  json rest = args;
  std::string data;
  bool eof = false;
  if (rest.contains("data") && !rest["data"].is_null()) {
    if (!rest["data"].is_string()) return bad_job_args("`data` must be a string.");
    data = rest["data"].get<std::string>();
  }
  if (rest.contains("eof") && !rest["eof"].is_null()) {
    if (!rest["eof"].is_boolean()) return bad_job_args("`eof` must be true or false.");
    eof = rest["eof"].get<bool>();
  }
  if (!rest.contains("data") && !eof)
    return bad_job_args("give `data` (a string) to write, or `eof`: true to close the input.");
  rest.erase("data");
  rest.erase("eof");
  auto job = find(s, rest);
  if (!job.ok()) return job.error();
  if (auto st = (*job)->write(data, eof); !st.ok()) return st.error();
  auto r = read(**job);
  if (!r.ok()) return r;
  (*r)["written"] = data.size();
  (*r)["eof"] = eof;
  return r;
}

Result<json> McpJobs::read(const api::Job& job) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t& at = read_[job.id()];
  api::JobOutput o = job.output(at);
  at = o.offset;
  auto end = o.running ? std::nullopt : job.result();
  if (!end) {
    json j = running_state(job.id(), o);
    if (o.dropped) j["dropped"] = o.dropped;
    return j;
  }
  if (!end->ok()) {  // refused before it started, as bash would have been
    api::Error e = end->error();
    e.message = fmt::format("job {} did not run: {}", job.id(), e.message);
    return e;
  }
  json j = to_json(**end);
  j["job"] = job.id();
  j["running"] = false;
  j["stdout"] = std::move(o.stdout_text);  // only what was not read before
  j["stderr"] = std::move(o.stderr_text);
  j.erase("stdout_truncated");  // the job's own log: `dropped` says what was lost
  j.erase("stderr_truncated");
  if (o.dropped) j["dropped"] = o.dropped;
  return j;
}

}  // namespace cordon::rpc
