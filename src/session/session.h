// A session (SES-1): one stretch of work on one project, and the place where a command goes
// through facts -> plan -> launch -> aftercare, with its leftover record (SES-2), the holds of
// PROC-3 and SES-3, and resume (SES-3, SES-4).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

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
#include "session/command_result.h"
#include "session/plant_watch.h"
#include "session/session_store.h"

namespace cordon {

struct SessionOptions {
  Policy policy;
  Folders folders;
  EnvMap env;                 // cordon's own environment
  std::string home;
  std::string cwd;            // real working folder of the caller
  std::string project;        // explicit project root (--project), else found from cwd
  std::string id;             // a named session (made when missing), else an ephemeral one
  bool create = true;         // make a named session that does not exist yet
  std::string cordon_exe;     // this program, for the probe's checker
  bool use_probe_cache = true;
  // Called with each start notice as soon as it is known (before the command runs); the
  // notices are in the result as well.
  std::function<void(const std::string&)> on_notice;
  // NET-10: asks about a host no [network] entry names, for `command` (its text), when the
  // config says unknown = "ask"; blocks until answered. `warning`: what the question must add
  // (the address is this machine itself), or empty; `cancel_fd`: the command's cancel
  // (LaunchIo::cancel_fd), which withdraws the question. Unset: such hosts are refused.
  std::function<HostAnswer(const std::string& command, const std::string& host_port,
                           const std::string& warning, int cancel_fd)>
      ask_host;
  // NET-8: connections open at once through the proxies of all this session's commands
  // (0: kSessionConnections, or fewer when cordon's open-files limit is low).
  unsigned max_session_connections = 0;
};

// What `cordon session resume` reports (SES-3).
struct ResumeReport {
  std::vector<std::string> notes;          // one per leftover handled
  std::vector<QuarantineMove> quarantined;
  std::optional<Refusal> hold;             // the session is held (re-checked on each call)
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

  // The backend every sandboxed command of this session runs in (MAC-5), chosen once.
  const BackendChoice& backend() const { return backend_; }

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

  // A last check before the command starts, run while a sandboxed command's bwrap (started
  // early) waits for its options, so its cost overlaps bwrap's start: the face's command policy
  // (CMD-4). A refusal stops the command.
  using PreCheck = std::function<std::optional<Refusal>()>;

  // Runs one command: holds, plan, probe when sandboxed, leftover record, launch, aftercare.
  CommandResult run(const Request& req, const LaunchIo& io, const PreCheck& check = nullptr);

  // Ends a named session: removes its private /tmp and its record (SES-1).
  Status end();

  // A file the file tools wrote (approved when it needed approval, FILE-5, FILE-6): the
  // aftercare of a command running at the same time leaves it alone as long as it is still the
  // very file written (same inode, size and time), and moves aside anything else (PROT-6).
  void note_file_tool_write(const std::string& abs_path);

 private:
  explicit Session(SessionOptions opts) : opts_(std::move(opts)) {}
  Status prepare();
  Status save_record();
  // One command on its way through Session::run's steps.
  struct Command {
    Command(const Request& r, const LaunchIo& i, const PreCheck& c) : req(r), io(i), check(c) {}
    Request req;
    LaunchIo io;  // the caller's, plus NET-7's stage when the command uses the proxy
    const PreCheck& check;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    CommandResult res;
    std::string bwrap;                         // bwrap's path, when it starts early
    std::optional<ProcessPart> part;           // the sandboxed process, computed once
    std::optional<PendingSandbox> early;       // its bwrap, started before the plan is known
    std::optional<std::string> early_failure;  // why that bwrap could not be started
    std::optional<Refusal> hold;               // SES-3: left by leftover records swept
    Facts facts;
    Plan plan;
    std::string profile;  // Seatbelt: the profile sandbox-exec is given (MAC-1)
    LeftoverRecord record;
    std::string record_path;
    std::optional<PlantWatch> watch;  // GIT-8, PROT-6 below the root
    std::unique_ptr<CommandProxy> net;  // NET-7: the allowlist proxy, when the command uses it
  };
  // Session::run's steps, in their order.
  std::optional<Refusal> start_sandbox_early(Command& c);
  void plan_command(Command& c);
  std::optional<Refusal> refusal_before_start(Command& c);
  std::optional<Refusal> hand_over(Command& c);
  std::optional<Refusal> command_policy(Command& c);
  void show_first_notices(Command& c);
  std::optional<Refusal> write_record(Command& c);
  Result<ProcessOutcome> launch(Command& c);
  CommandResult launch_error(Command& c, const Error& e);
  void take_output(Command& c, ProcessOutcome& o);
  std::optional<Refusal> setup_failure(Command& c, const ProcessOutcome& o);
  CommandResult withhold(Command& c, const ProcessOutcome& o);
  void set_exit_status(Command& c, ProcessOutcome& o);
  void add_outcome_notes(Command& c, const ProcessOutcome& o);
  void aftercare(Command& c);
  CommandResult refused(Command& c, const Refusal& r);
  CommandResult finish(Command& c);
  bool under_bwrap(const Command& c) const;
  Plan plan_with(const Request& req, const Facts& facts, const ProcessPart* part) const;
  void first_notices(const Plan& plan, CommandResult& res);
  std::vector<std::string> pending_quarantine() const;
  bool stripped_names_changed(const std::vector<std::string>& names) const;
  void remember_failed_moves(const std::vector<std::string>& failed);
  // Handles the leftover records of dead cordons (of this session, and of ephemeral sessions
  // of this project), adding notes; returns the holds they leave.
  ResumeReport sweep_leftovers(bool include_other_ephemeral);
  // Where a `[sandbox] writable` entry that does not exist yet may be made, or nullopt when it
  // leads into a hidden path or out of the home folder (CFG-3).
  std::optional<std::string> writable_to_make(const std::string& entry) const;
  // Why a leftover record at `path` cannot be trusted (SES-3), or "". `want` is filled on first
  // use (it costs a git run).
  std::string record_problem(const LeftoverRecord& rec, const std::string& path,
                             std::optional<SnapshotExpectations>& want) const;

  SessionOptions opts_;
  BackendChoice backend_;
  SessionStore store_{Folders{}};
  SessionRecord record_;
  bool ephemeral_ = true;
  bool created_ = false;
  std::string tmp_, empty_file_, empty_dir_;
  // Several commands may be in flight at once (SRV-4): `mu_` guards the record (its counters,
  // holds, unreadable folders, tracked set) and first_command_; `probe_mu_` the probe, which
  // runs once; `sweep_mu_` the leftover sweep and the blocked-paths file, so two commands never
  // handle the same leftover record or rewrite that file at the same time.
  std::optional<ProbeReport> probe_;
  bool first_command_ = true;
  // Keeps the aftercare of `snapshot`'s command off the file tools' writes (PROT-6).
  ProtectedSnapshot without_file_tool_writes(const ProtectedSnapshot& snapshot) const;
  struct ToolWrite {
    std::string path;
    uint64_t dev = 0, ino = 0, size = 0;
    long long mtime_ns = 0;
  };
  std::vector<ToolWrite> tool_writes_;  // under mu_; the latest kMaxToolWrites
  mutable std::mutex mu_;
  std::mutex probe_mu_;
  // NET-8: the connections all this session's commands hold through their proxies at once.
  std::shared_ptr<ConnectionBudget> connections_;
  mutable std::mutex sweep_mu_;
};

}  // namespace cordon
