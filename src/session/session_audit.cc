// AUD-1: what a session writes to its audit log (session/audit_log.h): each command's start,
// with its decision and who made it, its ways out, its end, the paths moved aside, the proxy's
// connections, and what resuming found. The events are made by audit/audit_event.h, which
// replaces the values of the stripped variables wherever they occur.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

#include "audit/audit_time.h"
#include "core/duration.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "plan/env_filter.h"
#include "session/session.h"

namespace cordon {

namespace {

const char* backend_word(Backend b) {
  switch (b) {
    case Backend::kBwrap:
      return "bwrap";
    case Backend::kSeatbelt:
      return "seatbelt";
    case Backend::kLandlock:
      return "landlock";
  }
  return "?";
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Who let a command run that no question was put for.
std::string unasked_by(const CommandStart& s, bool sandboxed, SandboxMode mode,
                       bool ways_out_approved) {
  if (mode == SandboxMode::kOff) return "mode-off";
  if ((s.network || s.outside_sandbox) && ways_out_approved) return "command-line";
  if (sandboxed) return "sandbox";
  return "read-only";  // unconfined with nothing to ask: the command policy found it read-only
}

}  // namespace

void Session::open_audit() {
  // CORDON_AUDIT_ROTATE: another size to rotate the log past (for tests: "4K").
  uint64_t rotate = kAuditRotateBytes;
  if (auto v = opts_.env.get("CORDON_AUDIT_ROTATE"))
    if (auto n = parse_size(*v); n && *n > 0) rotate = *n;
  audit_ = std::make_unique<AuditLog>(audit_dir(opts_.folders), record_.id, rotate);
  // An ephemeral session's id was made here and is given to no other process: its log has one
  // writer, which needs no lock (the cost of a `cordon run` without a session).
  if (ephemeral_) audit_->set_sole_writer();
  // Made now, before any command is planned, so that every command's plan hides it (FS-8).
  if (!audit_->make_dir().ok()) trace("audit: the folder was not made");
}

// The variables ENV-1 strips, whatever the mode: their values never reach the log. In mode on a
// command's plan has the list (taken from it: filtering the environment again costs as much as
// the rest of the log); else, and before any plan, the environment is filtered here, once.
const AuditSecrets& Session::audit_secrets(const Plan* plan) {
  std::lock_guard<std::mutex> lock(secrets_mu_);
  if (secrets_) return *secrets_;
  std::vector<std::string> names;
  if (plan && opts_.policy.mode == SandboxMode::kOn)
    names = plan->stripped;
  else
    names = filter_env(opts_.env, opts_.policy, false).stripped;
  secrets_.emplace();
  for (const auto& name : names)
    if (auto v = opts_.env.get(name)) secrets_->vars.emplace_back(name, *v);
  // AUD-3: the credentials' real values (their variables hold placeholders in the sandbox, so
  // the plan does not list them as stripped; files are read by the session).
  for (const auto& c : opts_.policy.credentials)
    if (auto v = c.env.empty() ? std::nullopt : opts_.env.get(c.env))
      secrets_->vars.emplace_back(c.env, *v);
  if (!opts_.policy.credentials.empty() && credentials().proxying)
    for (const auto& b : credentials().proxying->bindings)
      secrets_->vars.emplace_back("credentials." + b.name, b.secret);
  return *secrets_;
}

AuditCommon Session::audit_common() const { return AuditCommon{record_.id, iso_time(now_ms())}; }

void Session::audit(const nlohmann::json& event) {
  if (!audit_) return;
  Status st = audit_->append(event);
  if (!st.ok()) trace("audit: the log was not written");
}

std::shared_ptr<CommandStart> Session::audit_start(const Request& req) {
  auto s = std::make_shared<CommandStart>();
  s->command = fmt::format("{}-{}", getpid(), ++audit_commands_);
  s->job = req.job;
  s->argv = req.argv;
  s->script = req.script;
  s->cwd = run_folder(req.cwd);
  s->mode = to_string(opts_.policy.mode);
  s->backend = backend_word(backend_.backend);
  s->network = req.network;
  s->outside_sandbox = req.outside_sandbox;
  return s;
}

void Session::audit_decided(CommandStart& s, const std::vector<AuditAnswer>& answers,
                            const std::optional<CommandResult>& refused, const Plan* plan) {
  const bool planned = plan && !plan->argv.empty() && !plan->refusal;
  (void)audit_secrets(planned ? plan : nullptr);
  AuditDecision& d = s.decision;
  d.answers = answers;
  if (refused) {
    d.allowed = false;
    const bool answered_no = !answers.empty() && !answers.back().allowed;
    d.by = answered_no ? answers.back().by : "cordon";
    if (refused->refusal)
      d.reason = refused->refusal->message;
    else if (!refused->out.notes.empty())
      d.reason = refused->out.notes.front();  // canceled while asked
    return;
  }
  d.allowed = true;
  const bool sandboxed = !(plan && plan->runner == Runner::kUnconfined);
  s.runner = sandboxed ? "sandbox" : "unconfined";
  d.by = !answers.empty() ? answers.back().by
                          : unasked_by(s, sandboxed, opts_.policy.mode, opts_.ways_out_approved);
}

void Session::audit_started(const CommandStart& s) {
  const AuditCommon c = audit_common();
  audit(command_start_event(c, s, audit_secrets(nullptr)));
  if (!s.decision.allowed) return;
  // The ways out given (NET-3, NET-4), each with who allowed it.
  for (const auto& [asked, kind] :
       {std::pair{s.network, "network"}, std::pair{s.outside_sandbox, "outside_sandbox"}}) {
    if (!asked) continue;
    std::string by = s.decision.by;
    for (const auto& a : s.decision.answers)
      if (a.kind == kind) by = a.by;
    audit(way_out_event(c, s.command, kind, by));
  }
}

void Session::audit_ended(const CommandStart& s, const CommandResult& res) {
  const AuditCommon c = audit_common();
  for (const auto& m : res.out.quarantined)  // PROT-7, and SES-3's moves before it
    audit(quarantine_event(c, s.command, in_project(m.from), in_project(m.to),
                           audit_secrets(nullptr)));
  CommandEnd e;
  e.command = s.command;
  e.job = s.job;
  e.ran = res.ran;
  e.exit_code = res.out.exit_code;
  e.duration_ms = res.out.duration_ms;
  e.timed_out = res.out.timed_out;
  e.canceled = res.out.canceled;
  e.withheld = res.out.withheld;
  if (res.refusal) e.refusal = res.refusal->message;
  e.quarantined = res.out.quarantined.size();
  for (const auto& conn : res.out.connections)  // NET-9: the proxy's summary
    e.connections.emplace_back(conn.host, conn.allowed);
  audit(command_end_event(c, e, audit_secrets(nullptr)));
}

void Session::audit_file_tool(const std::string& path, const AuditAnswer& answer) {
  audit(file_tool_event(audit_common(), path, answer, audit_secrets(nullptr)));
}

void Session::audit_job_input(const std::string& job, uint64_t bytes, bool eof) {
  audit(job_input_event(audit_common(), job, bytes, eof));
}

void Session::audit_job_signal(const std::string& job, int signal) {
  audit(job_signal_event(audit_common(), job, signal));
}

void Session::audit_resume(const ResumeReport& rep, bool moves) {
  const AuditCommon c = audit_common();
  for (const auto& n : rep.notes) audit(resume_event(c, n, audit_secrets(nullptr)));
  if (moves)
    for (const auto& m : rep.quarantined)
      audit(quarantine_event(c, "", in_project(m.from), in_project(m.to), audit_secrets(nullptr)));
}

// A moved path as the log keeps it: absolute (the results give it relative to the project).
std::string Session::in_project(const std::string& path) const {
  return path.empty() || path[0] == '/' ? path : path_join(record_.project, path);
}

void Session::audit_credentials(const std::string& command, const CommandProxy* net) {
  if (!net) return;
  for (const auto& u : net->credential_uses())
    audit(credential_event(audit_common(), command, u.name, u.host_port, u.count));
}

const SessionCredentials& Session::credentials() const {
  std::call_once(credentials_once_, [this] {
    credentials_ = make_session_credentials(opts_.policy, opts_.env, opts_.home,
                                            opts_.folders.data, record_.id);
  });
  return credentials_;
}

}  // namespace cordon
