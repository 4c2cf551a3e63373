// A session (SES-1): one stretch of work on one project, and the place where a command goes
// through facts -> plan -> launch -> aftercare, with its leftover record (SES-2), the holds of
// PROC-3 and SES-3, and resume (SES-3, SES-4).
//
// session.cc opens it and answers facts, plans and holds; run_pipeline.cc runs a command. The
// jobs they hand out: leftover_sweep.h (SES-3's sweep), project_memory.h (the project's files
// in cordon's folders), file_tool_writes.h (PROT-6's pass for the file tools' writes),
// session_folders.h (the folders made when it opens), command_outcome.h (a process outcome
// read into the result).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "audit/audit_event.h"
#include "config/folders.h"
#include "config/policy.h"
#include "core/env.h"
#include "core/result.h"
#include "launch/linux/launcher.h"
#include "launch/linux/probe.h"
#include "net/linux/command_proxy.h"
#include "plan/facts.h"
#include "plan/plan.h"
#include "plan/record_check.h"
#include "plan/request.h"
#include "render/backend_choice.h"
#include "render/seatbelt_plan.h"
#include "session/audit_log.h"
#include "session/command_policy.h"
#include "session/command_result.h"
#include "session/file_tool_writes.h"
#include "session/leftover_sweep.h"
#include "session/plant_watch.h"
#include "session/record_sync.h"
#include "session/session_credentials.h"
#include "session/session_network.h"
#include "session/session_store.h"

namespace cordon {

class Approver;

struct SessionOptions {
  Policy policy;
  Folders folders;
  EnvMap env;                 // cordon's own environment
  std::string home;
  std::string cwd;            // real working folder of the caller
  std::string project;        // explicit project root (--project), else found from cwd
  std::string id;             // a named session (made when missing), else an ephemeral one
  bool create = true;         // make a named session that does not exist yet
  std::string cordon_exe;     // this program, for the probe's checker and the tty stage (JOB-3)
  bool use_probe_cache = true;
  // Who answers NET-10's questions (a host no [network] entry names, when the config says
  // unknown = "ask"): the face's approver, which must outlive the session. Null: such hosts
  // are refused.
  Approver* approver = nullptr;
  // The ways out a command asks for (Request::network, outside_sandbox) were typed by the
  // person (the CLI's --network, --outside-sandbox): that is their approval, and no question
  // is asked for them (APR-7).
  bool ways_out_approved = false;
  // NET-8: connections open at once through the proxies of all this session's commands
  // (0: kSessionConnections, or fewer when cordon's open-files limit is low).
  unsigned max_session_connections = 0;
  // JOB-2: the session's commands and jobs share one loopback of their own (the faces that
  // keep a session across commands: serve, mcp, the C++ API). False: one per command.
  bool session_loopback = false;
  // JOB-2: join the session loopback another cordon of this session holds (its keeper's
  // holder: pid, start time) instead of making one; told the holder once one is made here.
  std::optional<std::pair<int, long long>> loopback_holder;
  std::function<void(int pid, long long start)> on_loopback_made;
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> open(SessionOptions opts);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& id() const { return record_.id; }
  const std::string& project() const { return record_.project; }
  const std::string& tmp() const { return tmp_; }
  bool ephemeral() const { return ephemeral_; }
  bool created() const { return created_; }
  const Policy& policy() const { return opts_.policy; }
  const SessionRecord& record() const { return record_; }
  // JOB-2: "session" when its commands share one loopback (made now if it was not
  // yet, to know), else "command"; and why a wanted session loopback could not be made.
  std::string loopback_kind() const {
    (void)network_.loopback();
    return network_.kind();
  }
  std::string loopback_fallback() const { return network_.fallback_reason(); }

  // The backend every sandboxed command of this session runs in (MAC-5), chosen once; on Linux
  // settled by its probe at the first use (LL-1: "auto" may hand over to Landlock).
  const BackendChoice& backend() const;

  // Facts and plan for a request, without running anything (cordon policy, tests).
  Facts facts(const Request& req) const;
  Plan plan(const Request& req, const Facts& facts) const;
  // The Seatbelt plan and profile for a request (MAC-1), whichever backend is in use.
  SeatbeltPlan seatbelt_plan(const Request& req, const Facts& facts) const;
  // The probe, run once per session (and cached per boot). Thread-safe: a second caller waits
  // for the first one's run.
  const ProbeReport& probe();
  // The start notices are shown by the face before any command (`initialize`): the first
  // command's result then does not repeat them.
  void mark_notices_shown();

  // SES-3 and SES-4: handles every record left by a cordon killed mid-command, then takes a
  // fresh tracked set.
  ResumeReport resume();
  // The hold that refuses sandboxed commands now, if any (PROC-3, SES-3); re-checked each call.
  std::optional<Refusal> current_hold();

  // CMD-6: the command policy's verdict on a command, as it would run (where the request's cwd
  // says, inside the project, else at its root).
  Result<Classification> classify(const Request& req);

  // One command runs in two steps, so that a face can show the start notices before it runs.
  // prepare_command: holds, the command policy (CMD-4) and the questions it needs (APR-1, put
  // through the approver), plan, probe when sandboxed, leftover record; then run: launch,
  // aftercare. A command prepared and never run gives up its sandbox and its record. A command
  // canceled while its question was open ends here, with exit 130 and nothing run.
  struct Ready;  // a command ready to run: what run() needs
  struct Prepared {
    // Set when the command ends here, refused before it could start; else `ready` is.
    std::optional<CommandResult> result;
    // The start notices (the session's first command only), known now; in the result as well.
    std::vector<std::string> notices;
    std::shared_ptr<Ready> ready;
    // AUD-1: the command's start event, with its decision; logged by run().
    std::shared_ptr<CommandStart> audit;
  };
  Prepared prepare_command(const Request& req, const LaunchIo& io);
  CommandResult run(Prepared prepared);

  // Ends a named session: removes its private /tmp and its record (SES-1).
  Status end();

  // A file the file tools wrote (approved when it needed approval, FILE-5, FILE-6): the
  // aftercare of a command running at the same time leaves it alone as long as it is still the
  // very file written (same inode, size and time), and moves aside anything else (PROT-6).
  void note_file_tool_write(const std::string& abs_path);
  // AUD-1: a file tool's question (FILE-4..6) decided: logged with who decided it.
  void audit_file_tool(const std::string& path, const AuditAnswer& answer);
  // AUD-1: a background job's input written (its length only) and a signal sent to it.
  void audit_job_input(const std::string& job, uint64_t bytes, bool eof);
  void audit_job_signal(const std::string& job, int signal);

 private:
  explicit Session(SessionOptions opts)
      : opts_(std::move(opts)), network_(opts_.session_loopback,
                 {opts_.cordon_exe, opts_.loopback_holder, opts_.on_loopback_made}) {}
  // Opening and the session's record (session.cc).
  Status prepare();
  Status find_record(const std::string& project);
  Status start_record();
  Status make_folders();
  Status save_record();
  // Takes in what other processes of this session saved since (record_sync.h); under mu_.
  void refresh_record();
  void take_tracked_set();  // SES-1, SES-4: the tracked protected files now
  static std::string shell_for_scripts();
  // LL-1: `loopback_proxy_port` and `proxy_password`, the allowlist proxy the session started
  // on the machine's loopback for this command (0: none).
  Plan plan_with(const Request& req, const Facts& facts, const ProcessPart* part,
                 int loopback_proxy_port = 0, const std::string& proxy_password = {}) const;
  // SES-3: the leftover records of dead cordons (of this session, and of ephemeral sessions of
  // this project) handled, with their notes and the hold they leave.
  ResumeReport sweep_leftovers(bool include_other_ephemeral);
  void remember_failed_moves(const std::vector<std::string>& failed);  // PROT-7

  // AUD-1: the audit log (session_audit.cc). A log that cannot be written costs the command
  // nothing: the failure is traced.
  void open_audit();
  AuditCommon audit_common() const;
  void audit(const nlohmann::json& event);
  std::shared_ptr<CommandStart> audit_start(const Request& req);
  void audit_decided(CommandStart& s, const std::vector<AuditAnswer>& answers,
                     const std::optional<CommandResult>& refused, const Plan* plan);
  const AuditSecrets& audit_secrets(const Plan* plan);
  void audit_started(const CommandStart& s);
  void audit_ended(const CommandStart& s, const CommandResult& res);
  // What a sweep found; with `moves`, the paths it moved aside too (a command's sweep leaves
  // them to the command's end, whose result carries them).
  void audit_resume(const ResumeReport& rep, bool moves);
  std::string in_project(const std::string& path) const;

  // One command on its way through Session::run (run_pipeline.cc). The pieces several steps
  // share are in Command; the others are handed from step to step.
  struct Early;     // bwrap started before the plan is known, with NET-7's proxy
  struct Planned;   // the facts, the plan and the hold the leftovers swept leave
  struct Leftover;  // SES-2: the command's leftover record
  struct Command;   // what a refusal gives up (Early, Leftover) and the result
  // The command policy and the approvals (command_gate.cc): a denied command is refused
  // before any question, and no question is put whose answer cannot matter.
  struct Asked {
    std::optional<Refusal> refusal;      // refused by the policy, the plan, or an answer
    std::optional<std::string> canceled;  // canceled while a question was open: why
    std::vector<std::string> notes;      // approvals worth telling, first in the result
    std::vector<AuditAnswer> answers;    // AUD-1: who answered each question
  };
  ExecGateInput gate_input(const Request& req, const LaunchIo& io) const;
  std::optional<Refusal> policy_refusal(ExecGateInput gi, const Request& req);
  Asked ask_first(ExecGateInput gi, const Request& req, int cancel_fd);
  std::optional<Refusal> pointless_question(const Request& req);
  std::optional<CommandResult> asked_first(Ready& r, const ExecGateInput& gi, const Request& req);
  std::string run_folder(const std::string& cwd) const;
  std::optional<Refusal> plan_and_check(Ready& r, const Request& req, const ExecGateInput* check);
  CommandResult run_started(Command& c, const Planned& p, const LaunchIo& io);
  std::optional<Refusal> start_sandbox_early(const Request& req, LaunchIo& io, Early& early,
                                             const std::string& audit_id);
  std::optional<Refusal> start_loopback_proxy(const Request& req, const LaunchIo& io,
                                              Early& early, const std::string& audit_id);
  HostAsk host_ask(const Request& req, const LaunchIo& io, const std::string& audit_id);
  Planned plan_command(const Request& req, const Early& early, api::ExecResult& out);
  std::optional<Refusal> refusal_before_start(const Planned& p, const Early& early,
                                              const ExecGateInput* check, const Request& req,
                                              api::ExecResult& out);
  void show_first_notices(const Plan& plan, api::ExecResult& out);
  void first_notices(const Plan& plan, api::ExecResult& out);
  std::optional<Refusal> write_record(const Planned& p, const Early& early, Leftover& out,
                                      std::vector<std::string>& notes);
  Status store_leftover(Leftover& out);
  Result<ProcessOutcome> launch(Command& c, const Planned& p, const LaunchIo& io);
  CommandResult launch_error(Command& c, const Error& e);
  CommandResult withhold(Command& c, const ProcessOutcome& o);
  void aftercare(Leftover& record, const Plan& plan, api::ExecResult& out);
  void remember_unreadable(const std::vector<std::string>& dirs);  // FS-10
  bool under_bwrap(const Plan& plan) const;
  void settle_backend() const;
  ProbeInput bwrap_probe_input() const;
  static std::optional<Refusal> hand_over(Early& early, const Plan& plan);
  static CommandResult refused(Command& c, const Refusal& r);
  static CommandResult finish(Command& c);

  SessionOptions opts_;
  mutable SessionNetwork network_;  // JOB-2: the session's loopback and its commands' proxy ports
  // Settled once (settle_backend): read freely after settled_ has run.
  mutable BackendChoice backend_;
  mutable std::once_flag settled_;
  SessionStore store_{Folders{}};
  SessionRecord record_;
  RecordStamp record_stamp_;  // the record file as this process last read or wrote it
  bool ephemeral_ = true;
  bool created_ = false;
  std::string tmp_, empty_file_, empty_dir_;
  // Several commands may be in flight at once (SRV-4): `mu_` guards the record (its counters,
  // holds, unreadable folders, tracked set) and first_command_; `probe_mu_` the probe, which
  // runs once; `sweep_mu_` the leftover sweep and the blocked-paths file, so two commands never
  // handle the same leftover record or rewrite that file at the same time.
  mutable std::optional<ProbeReport> probe_;
  bool first_command_ = true;
  FileToolWrites tool_writes_;  // PROT-6: kept out of the commands' aftercare
  mutable std::mutex mu_;
  mutable std::mutex probe_mu_;
  // NET-8: the connections all this session's commands hold through their proxies at once.
  std::shared_ptr<ConnectionBudget> connections_;
  mutable std::mutex sweep_mu_;
  // The leftover records of this session's commands that run now in this process (background
  // jobs among them), guarded by `mu_`: the sweep before each command passes them by unread,
  // as it would pass them by once read (their owner, this process, is alive), so that running
  // jobs cost the session's other commands nothing (issue 30). A command's own end handles its
  // record.
  std::set<std::string> running_records_;
  std::unique_ptr<CommandPolicy> commands_;  // CMD-4, CMD-6: the classifier, made on first use
  // AUD-1: the session's audit log, the stripped variables it never shows, its command count.
  std::unique_ptr<AuditLog> audit_;
  std::mutex secrets_mu_;
  std::optional<AuditSecrets> secrets_;  // made once, by audit_secrets
  std::atomic<uint64_t> audit_commands_{0};
  // AUD-3: the session's [credentials], made on first use (session_credentials.h).
  const SessionCredentials& credentials() const;
  mutable std::once_flag credentials_once_;
  mutable SessionCredentials credentials_;
  void audit_credentials(const std::string& command, const CommandProxy* net);
};

}  // namespace cordon
