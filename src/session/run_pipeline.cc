// Session::prepare_command and Session::run: one command through its steps, in this order:
// holds, an early bwrap (with NET-7's proxy), SES-3's leftovers, facts and plan, the refusals
// before the start (plan, holds, probe, CMD-4), the start notices, the leftover record (SES-2);
// then the launch, the outcome read into the result (command_outcome.h) and the aftercare
// (PROT-6, PROT-7, GIT-3..GIT-7, FS-10).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include "core/strings.h"
#include "core/trace.h"
#include "core/version.h"
#include "host/dir_index.h"
#include "host/facts_reader.h"
#include "host/guard_reader.h"
#include "host/landlock_facts.h"
#include "launch/linux/tty_link.h"
#include "net/linux/command_proxy.h"
#include "plan/aftercare_rules.h"
#include "plan/content_guard.h"
#include "plan/planner.h"
#include "plan/run_decisions.h"
#include "session/aftercare.h"
#include "plan/violations.h"
#include "session/backend_launch.h"
#include "session/command_outcome.h"
#include "session/host_question.h"
#include "session/project_memory.h"
#include "session/session.h"
#include "sys/fs_util.h"

namespace cordon {

// bwrap started before the plan is known (it sets up while the plan is made), with NET-7's
// proxy. Members in this order: the part outlives what was started from it.
struct Session::Early {
  SessionNetwork::Port port;              // NET-7, NET-1: the proxy's port, held to the end
  std::string bwrap;                      // bwrap's path, found for every command
  std::optional<ProcessPart> part;        // the sandboxed process, computed once
  std::optional<PendingSandbox> pending;  // its bwrap, started before the plan is known
  std::optional<std::string> failure;     // why that bwrap could not be started
  std::unique_ptr<CommandProxy> net;      // NET-7: the allowlist proxy, when the command uses it
  std::string proxy_password;             // LL-1: what the proxy on the machine's loopback asks
  std::unique_ptr<TtyLink> tty;           // JOB-3: the terminal stage, when the command has one

  void abort() {
    if (pending) pending->abort();
  }
};

struct Session::Planned {
  Facts facts;
  Plan plan;
  std::string profile;          // Seatbelt: the profile sandbox-exec is given (MAC-1)
  LandlockRules landlock;       // LL-1: the Landlock backend's rules
  std::optional<Refusal> hold;  // SES-3: left by leftover records swept
};

struct Session::Leftover {
  LeftoverRecord record;
  std::string path;                 // where it was written; "" when it was not
  std::optional<PlantWatch> watch;  // GIT-8, PROT-6 below the root
  // Where it is listed among the session's running records (store_leftover), until the
  // command's end: from then on the sweep reads it like any other (a withheld command's stays).
  Session* session = nullptr;
  std::string listed;

  Leftover() = default;
  Leftover(const Leftover&) = delete;
  Leftover& operator=(const Leftover&) = delete;
  ~Leftover() {
    if (!session) return;
    std::lock_guard<std::mutex> lock(session->mu_);
    session->running_records_.erase(listed);
  }

  void remove() {
    if (!path.empty()) unlink(path.c_str());
    path.clear();
  }
};

struct Session::Command {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  CommandResult res;
  std::optional<std::string> blocked_note;  // RES-2: the result's last note
  Early early;
  Leftover record;
};

namespace {

// LL-1: the plan's hidden paths and writable roots, with the listings read now.
LandlockRules landlock_rules_of(const Plan& plan) {
  return landlock_rules(read_landlock_input(hidden_paths_of(plan), plan.writable_roots));
}

// The command as a person reads it, for NET-10's questions.
std::string command_line(const Request& req) {
  return req.script ? *req.script : shell_join(req.argv);
}

// JOB-3: the terminal is the sandbox's own devpts's; an unconfined command has none to give.
Refusal no_tty_refusal() {
  return Refusal{ErrorKind::kInvalid,
                 "a terminal (tty) is given only to a command in the bubblewrap sandbox; this "
                 "command would run without it (outside the sandbox, or with the sandbox off). "
                 "Run it without tty."};
}

LeftoverOwner leftover_owner(const SessionRecord& session) {
  LeftoverOwner owner{kCordonVersion,     session.id,       session.project, getpid(), 0,
                      std::time(nullptr), current_boot_id()};
  owner.owner_start = process_start_time(owner.owner_pid);
  return owner;
}

// SES-2: a record that could not be written refuses a sandboxed command; an unconfined one
// runs, with a note.
std::optional<Refusal> record_not_written(const Error& e, const std::string& dir, bool sandboxed,
                                          std::vector<std::string>& notes) {
  const std::string why = e.sys_errno ? std::strerror(e.sys_errno) : e.message;
  if (sandboxed)
    return Refusal{ErrorKind::kRefused,
                   fmt::format("sandboxed commands are refused: cordon cannot write in "
                               "{} ({}). Make that folder writable by you, or free "
                               "disk space, then run the command again.",  // SES-2
                               dir, why)};
  notes.push_back(
      fmt::format("leftover record not written: {}; if cordon is killed while "
                  "this command runs, its processes are not reported at "
                  "resume.",
                  why));
  return std::nullopt;
}

}  // namespace

// A command prepared and not run: its early bwrap given up and its record removed.
struct Session::Ready {
  Command c;
  Planned p;
  LaunchIo io;           // the caller's, plus NET-7's stage when the command uses the proxy
  std::vector<std::string> approval_notes;  // approvals worth telling: the result's first notes
  std::vector<AuditAnswer> answers;         // AUD-1: who answered its questions
  std::string audit_id;                     // AUD-1: the command's id in the log
  bool settled = false;  // run, or refused: nothing left to give up

  ~Ready() {
    if (settled) return;
    c.early.abort();
    c.record.remove();
  }
};

// One command, step by step (the steps follow, in this order), up to its launch.
Session::Prepared Session::prepare_command(const Request& request, const LaunchIo& caller_io) {
  auto ready = std::make_shared<Ready>();
  Request req = request;
  if (req.cwd.empty()) req.cwd = opts_.cwd;
  ready->io = caller_io;
  trace("run: start");
  Prepared out;
  trace("audit: writing");
  out.audit = audit_start(req);  // AUD-1
  ready->audit_id = out.audit->command;
  trace("audit: written");
  // Without questions to put (the usual case: a sandboxed command, mode "on"), the command
  // policy only refuses denied commands, and is checked while bwrap starts (PERF-1). With
  // questions, it is checked first: a denied command is refused before anyone is asked.
  std::optional<ExecGateInput> check = gate_input(req, caller_io);
  const bool checked_while_starting =
      gate_exec(*check).asks.empty() && opts_.policy.mode != SandboxMode::kExternal;
  if (!checked_while_starting) {
    if (auto early = asked_first(*ready, *check, req)) {
      out.result = std::move(*early);
      audit_decided(*out.audit, ready->answers, out.result, nullptr);
      return out;
    }
    check.reset();  // asked and allowed: nothing left to check while bwrap starts
  }
  if (auto r = plan_and_check(*ready, req, check ? &*check : nullptr)) {
    ready->settled = true;
    out.result = refused(ready->c, *r);
    out.notices = out.result->out.notices;
    audit_decided(*out.audit, ready->answers, out.result, &ready->p.plan);
    return out;
  }
  audit_decided(*out.audit, ready->answers, std::nullopt, &ready->p.plan);
  out.notices = ready->c.res.out.notices;
  out.ready = std::move(ready);
  return out;
}

// The questions put before the command starts; the result when it ends there.
std::optional<CommandResult> Session::asked_first(Ready& r, const ExecGateInput& gi,
                                                  const Request& req) {
  Asked a = ask_first(gi, req, r.io.cancel_fd);
  r.answers = a.answers;
  if (!a.refusal && !a.canceled) {
    r.approval_notes = std::move(a.notes);
    return std::nullopt;
  }
  r.settled = true;
  if (a.refusal) return refused(r.c, *a.refusal);
  CommandResult res;  // canceled while its question was open: nothing ran (exit 130)
  res.out.exit_code = 130;
  res.out.canceled = true;
  res.out.notes.push_back(std::move(*a.canceled));
  return res;
}

std::optional<Refusal> Session::plan_and_check(Ready& r, const Request& req,
                                               const ExecGateInput* check) {
  Command& c = r.c;
  settle_backend();                       // LL-1: the backend, before bwrap may start early
  if (auto h = current_hold()) return h;  // PROC-3: a held session runs nothing
  // bwrap starts now and waits for its mounts while they are planned; NET-7's proxy with it.
  if (auto x = start_sandbox_early(req, r.io, c.early, r.audit_id)) return x;
  r.p = plan_command(req, c.early, c.res.out);  // SES-3's leftovers, facts and plan
  // The plan, holds, probe, CMD-4.
  if (auto x = refusal_before_start(r.p, c.early, check, req, c.res.out)) return x;
  if (auto x = hand_over(c.early, r.p.plan)) return x;  // the mounts, to the bwrap
  // CMD-4, while bwrap sets up. PERF-1: the command policy is made here, after the hand-over,
  // not on a thread beside the planning: on 2 cores that thread, bwrap's own start and the
  // facts competed, and the options reached bwrap later (measured: 0.5-1 ms); bwrap's set-up
  // after it has its options takes far longer than the policy does.
  if (check) {
    std::optional<Refusal> x = policy_refusal(*check, req);
    trace("run: checked");
    if (x) return x;
  }
  show_first_notices(r.p.plan, c.res.out);
  // SES-2, before the command starts.
  return write_record(r.p, c.early, c.record, c.res.out.notes);
}

// The prepared command, from its launch.
CommandResult Session::run(Prepared prepared) {
  if (prepared.result) {
    if (prepared.audit) {  // AUD-1: refused before it started: its start and its end
      trace("audit: writing");
      audit_started(*prepared.audit);
      audit_ended(*prepared.audit, *prepared.result);
      trace("audit: written");
    }
    return std::move(*prepared.result);
  }
  Ready& r = *prepared.ready;
  r.settled = true;
  trace("audit: writing");
  if (prepared.audit) audit_started(*prepared.audit);  // AUD-1: before it starts
  trace("audit: written");
  CommandResult res = run_started(r.c, r.p, r.io);
  audit_credentials(r.audit_id, r.c.early.net.get());  // AUD-3: after the proxy's end
  res.out.notes.insert(res.out.notes.begin(), r.approval_notes.begin(), r.approval_notes.end());
  trace("audit: writing");
  if (prepared.audit) audit_ended(*prepared.audit, res);
  trace("audit: written");
  return res;
}

CommandResult Session::run_started(Command& c, const Planned& p, const LaunchIo& io) {
  Result<ProcessOutcome> outcome = launch(c, p, io);  // the early bwrap released, or started
  trace("run: command ended");
  if (!outcome.ok()) return launch_error(c, outcome.error());  // 126, 127 or unavailable
  ProcessOutcome& o = *outcome;
  take_output(o, c.res.out);
  const bool bwrap = under_bwrap(p.plan);
  const SandboxStart start{opts_.env, opts_.folders, c.early.bwrap, opts_.policy.source_file};
  if (auto r = setup_failure(bwrap, p.plan, o, c.res.out, start))
    return refused(c, *r);  // nothing of the command ran
  c.res.ran = true;
  if (!o.not_ended.empty()) return withhold(c, o);  // PROC-3
  set_exit_status(bwrap, p.plan, io.err, o, c.res.out);
  c.blocked_note = add_outcome_notes(backend_, p.plan, o, c.early.net.get(), c.res.out);
  aftercare(c.record, p.plan, c.res.out);  // PROT-6, PROT-7, GIT-3..GIT-7, FS-10
  // AUD-2: what was refused, certain (proxy, aftercare) and read from the output.
  c.res.out.violations =
      all_violations(p.plan, c.res.out, !c.res.out.timed_out && !c.res.out.canceled);
  c.record.remove();
  return finish(c);
}

bool Session::under_bwrap(const Plan& plan) const {
  return plan.runner == Runner::kSandbox && backend_.backend == Backend::kBwrap;
}

// NET-10's question about a host the allowlist does not name; AUD-1: each answer logged.
HostAsk Session::host_ask(const Request& req, const LaunchIo& io, const std::string& audit_id) {
  return host_question(opts_.approver, command_line(req), io.cancel_fd,
                       [this, audit_id](const std::string& host, const Decision& d) {
                         audit(host_event(audit_common(), audit_id, host,
                                          AuditAnswer{"network_host", d.allowed,
                                                      to_string(d.basis), d.risk,
                                                      d.breaker_tripped}));
                       });
}

std::optional<Refusal> Session::start_sandbox_early(const Request& req, LaunchIo& io, Early& e,
                                                    const std::string& audit_id) {
  e.bwrap = find_bwrap(opts_.env);
  if (backend_.backend == Backend::kLandlock) return start_loopback_proxy(req, io, e, audit_id);
  if (backend_.backend != Backend::kBwrap || opts_.policy.mode != SandboxMode::kOn ||
      req.outside_sandbox || e.bwrap.empty())
    return io.tty ? std::optional<Refusal>(no_tty_refusal()) : std::nullopt;
  PlanOptions po;
  po.shell = shell_for_scripts();
  po.cache_folder = opts_.folders.cache;
  // JOB-2: the session's loopback, for a command without the machine's network.
  const SessionLoopback* lo = req.network ? nullptr : network_.loopback();
  po.session_loopback = lo != nullptr;
  e.port = network_.take_port(po.session_loopback);
  po.proxy_port = e.port.value();
  const SessionCredentials& creds = credentials();  // AUD-3
  po.credentials = &creds.sandbox;
  e.part = sandbox_process_part(opts_.policy, opts_.env, req, record_.project, po);
  if (e.part->session_loopback) io.join_namespaces = lo->join();
  // NET-7: the allowlist proxy, when the command uses it (its stage goes first in the sandbox).
  auto proxy = CommandProxy::start(*e.part, io, opts_.policy, opts_.home,
                                   host_ask(req, io, audit_id), connections_, creds.proxying);
  if (!proxy.ok()) return Refusal{ErrorKind::kUnavailable, proxy.error().message};
  e.net = std::move(proxy).value();
  if (io.tty) {  // JOB-3: after the proxy's stage, which runs it
    auto tty = TtyLink::add(io, *io.tty, opts_.cordon_exe);
    if (!tty.ok()) return Refusal{ErrorKind::kUnavailable, tty.error().message};
    e.tty = std::move(tty).value();
  }
  auto pending = PendingSandbox::start(*e.part, opts_.policy.limits, req.timeout, e.bwrap,
                                       opts_.folders.cache, io);
  // A command line past the argument limit fails bwrap's execve: the plan says why, in BUD-1's
  // words, when it refuses.
  if (pending.ok())
    e.pending.emplace(std::move(*pending));
  else
    e.failure = pending.error().message;
  return std::nullopt;
}

// LL-1: without a network namespace, the allowlist proxy listens on the machine's loopback, on
// a free port, and asks for a password of this command's (any process of the machine can reach
// the port); the plan is given both. Started before the plan, like bwrap's.
std::optional<Refusal> Session::start_loopback_proxy(const Request& req, const LaunchIo& io,
                                                     Early& e, const std::string& audit_id) {
  if (io.tty) return no_tty_refusal();
  if (opts_.policy.mode != SandboxMode::kOn || !uses_allowlist_proxy(opts_.policy, req))
    return std::nullopt;
  e.proxy_password = random_hex16() + random_hex16();
  auto proxy = CommandProxy::start_on_loopback(opts_.policy, opts_.home, e.proxy_password,
                                               host_ask(req, io, audit_id), connections_);
  if (!proxy.ok()) return Refusal{ErrorKind::kUnavailable, proxy.error().message};
  e.net = std::move(proxy).value();
  return std::nullopt;
}

Session::Planned Session::plan_command(const Request& req, const Early& early,
                                       api::ExecResult& out) {
  Planned p;
  ResumeReport swept = sweep_leftovers(ephemeral_);
  audit_resume(swept, false);  // AUD-1: what the sweep found
  trace("run: leftovers swept");
  out.quarantined = swept.quarantined;
  for (const auto& n : swept.notes) out.notes.push_back(n);
  p.hold = swept.hold;
  p.facts = facts(req);
  trace("run: facts gathered");
  if (backend_.backend == Backend::kSeatbelt) {
    SeatbeltPlan sp = seatbelt_plan(req, p.facts);
    p.plan = std::move(sp.plan);
    p.profile = std::move(sp.profile);
  } else {
    p.plan = plan_with(req, p.facts, early.part ? &*early.part : nullptr,
                       early.net && early.net->port() ? early.net->port() : 0,
                       early.proxy_password);
  }
  if (backend_.backend == Backend::kLandlock && p.plan.runner == Runner::kSandbox) {
    p.landlock = landlock_rules_of(p.plan);  // LL-1
  }
  trace("run: planned");
  return p;
}

std::optional<Refusal> Session::refusal_before_start(const Planned& p, const Early& early,
                                                     const ExecGateInput* check,
                                                     const Request& req, api::ExecResult& out) {
  RefusalCandidates rc;
  rc.sandboxed = p.plan.runner == Runner::kSandbox;
  rc.plan = p.plan.refusal;
  if (!rc.plan && early.failure)
    rc.plan = Refusal{ErrorKind::kUnavailable, "the sandbox could not start: " + *early.failure};
  rc.hold = p.hold;
  if (rc.sandboxed && !rc.plan && !rc.hold) {
    const ProbeReport& pr = probe();
    trace("run: probe checked");
    if (!pr.ok) rc.probe = Refusal{ErrorKind::kUnavailable, pr.message()};  // MODE-4: fail closed
  }
  if (!first_refusal(rc)) return std::nullopt;
  if (check) rc.command_policy = policy_refusal(*check, req);  // once: here, or while bwrap sets up
  if (!rc.command_policy) first_notices(p.plan, out);
  return first_refusal(rc);
}

std::optional<Refusal> Session::hand_over(Early& early, const Plan& plan) {
  if (!early.pending) return std::nullopt;
  auto st = early.pending->hand_over(plan);
  if (st.ok()) return std::nullopt;
  if (st.error().code == ErrorKind::kInvalid)
    return Refusal{ErrorKind::kInvalid, st.error().message};
  return Refusal{ErrorKind::kUnavailable, "the sandbox could not start: " + st.error().message};
}

void Session::show_first_notices(const Plan& plan, api::ExecResult& out) {
  first_notices(plan, out);
  std::lock_guard<std::mutex> lock(mu_);
  first_command_ = false;
}

void Session::first_notices(const Plan& plan, api::ExecResult& out) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!first_command_) return;
  }
  // ENV-4 "on first use": the list is said again only when it names something new.
  // Issue 28: the agent's own provider key is left unsaid (it is still stripped).
  const std::vector<std::string> unsaid = agents_own_keys(opts_.env);
  std::vector<std::string> said;
  for (const auto& n : plan.stripped)
    if (std::find(unsaid.begin(), unsaid.end(), n) == unsaid.end()) said.push_back(n);
  const bool say_stripped = strips_variables(plan) && !said.empty() &&
                            stripped_names_changed(opts_.folders.cache, record_.project, said);
  out.notices = start_notices(plan, say_stripped, {}, unsaid);
}

// SES-2: the leftover record, before the command starts (an early bwrap sets up the mounts
// meanwhile, and waits before the command until this is written).
std::optional<Refusal> Session::write_record(const Planned& p, const Early& early, Leftover& out,
                                             std::vector<std::string>& notes) {
  LeftoverRecord& lr = out.record;
  lr = leftover_record(p.plan, leftover_owner(record_));
  if (early.pending)
    record_started(lr, early.pending->pid(), process_start_time(early.pending->pid()));
  if (lr.sandboxed) {
    lr.snapshot = snapshot_of(p.facts, &p.plan);
    lr.snapshot->dir_index = dir_index_file(opts_.folders.cache, record_.project);
    // LL-1, GIT-1: what the backend cannot keep read-only is kept in the record, bytes and all
    // (cordon's state folder, hidden from commands), and put back after the command.
    lr.snapshot->guarded = read_guarded(guard_targets(p.plan, p.facts), record_.project);
    out.watch = PlantWatch::begin(record_.project, lr.snapshot->dir_index, opts_.folders.state);
  }
  Status written = store_leftover(out);
  trace("run: leftover record written");
  if (written.ok()) return std::nullopt;
  auto r = record_not_written(written.error(), store_.leftovers_dir(record_.id), lr.sandboxed,
                              notes);
  if (!r) out.path.clear();
  return r;
}

// Writes the record under the next effect number free.
Status Session::store_leftover(Leftover& out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto st = make_dirs(store_.leftovers_dir(record_.id), 0700); !st.ok()) return st;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    out.record.effect = ++record_.effects;
    out.path = store_.leftover_path(record_.id, out.record.effect);
    if (access(out.path.c_str(), F_OK) == 0) continue;
    Status st = store_.write_leftover(out.record);
    if (st.ok()) {
      running_records_.insert(out.path);
      out.session = this;
      out.listed = out.path;
    }
    return st;
  }
  return make_error(ErrorKind::kIo, "not written");
}

Result<ProcessOutcome> Session::launch(Command& c, const Planned& p, const LaunchIo& io) {
  if (c.early.pending) {
    if (auto st = c.early.pending->release(); !st.ok()) return st.error();
    return c.early.pending->wait();
  }
  Leftover& record = c.record;
  auto started = [&](pid_t pid) {
    if (record.path.empty()) return;
    record_started(record.record, pid, process_start_time(pid));
    (void)store_.write_leftover(record.record);
  };
  return launch_planned(
      backend_, {p.plan, p.profile, p.facts.machine.bwrap, opts_.folders.cache, &p.landlock}, io,
      started);
}

CommandResult Session::launch_error(Command& c, const Error& e) {
  c.record.remove();
  if (e.code != ErrorKind::kExec) return refused(c, Refusal{ErrorKind::kUnavailable, e.message});
  c.res.out.exit_code = e.sys_errno == ENOENT ? 127 : 126;  // RES-4
  c.res.ran = true;
  c.res.out.messages.push_back(e.message);
  return finish(c);
}

// PROC-3: the result is withheld and the session held until those processes are gone. The
// leftover record stays, so aftercare happens once they have ended.
CommandResult Session::withhold(Command& c, const ProcessOutcome& o) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int pid : o.not_ended) record_.held.push_back(HeldProcess{pid, process_start_time(pid)});
    (void)save_record();
  }
  c.res.out.withheld = true;
  c.res.out.stdout_text.clear();
  c.res.out.stderr_text.clear();
  c.res.refusal = withheld_refusal(o.not_ended);
  c.res.out.notes.insert(c.res.out.notes.begin(), c.res.refusal->message);
  c.res.out.exit_code = 125;
  return finish(c);
}

void Session::aftercare(Leftover& record, const Plan& plan, api::ExecResult& out) {
  if (!record.record.snapshot) return;
  AftercareOutcome after = run_aftercare(tool_writes_.without_them(*record.record.snapshot),
                                         record.watch ? &*record.watch : nullptr);
  out.quarantined.insert(out.quarantined.end(), after.moved.begin(), after.moved.end());
  out.notes.insert(out.notes.end(), after.notes.begin(), after.notes.end());
  if (!after.failed.empty()) remember_failed_moves(after.failed);
  if (!after.newly_unreadable.empty()) remember_unreadable(after.newly_unreadable);
  const std::string output = out.stderr_text + "\n" + out.stdout_text;
  if (auto n = git_stopped_short_note(plan.argv, out.exit_code, output))  // GIT-7
    out.notes.push_back(*n);
  trace("run: aftercare done");
}

// FS-10: folders the command made unreadable, kept in the record.
void Session::remember_unreadable(const std::vector<std::string>& dirs) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& d : dirs)
    if (std::find(record_.unreadable.begin(), record_.unreadable.end(), d) ==
        record_.unreadable.end())
      record_.unreadable.push_back(d);
  (void)save_record();
}

// Nothing of the command runs (or ran): an early bwrap is given up, the record removed.
CommandResult Session::refused(Command& c, const Refusal& r) {
  c.early.abort();
  c.record.remove();
  c.res.refusal = r;
  c.res.out.exit_code = 125;
  return finish(c);
}

// The notes that go last, and the time taken.
CommandResult Session::finish(Command& c) {
  api::ExecResult& out = c.res.out;
  if (out.timed_out)
    out.notes.push_back(
        "the command ran past its timeout and was ended, with every process it started.");
  if (c.blocked_note) out.notes.push_back(std::move(*c.blocked_note));
  out.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c.t0).count();
  return std::move(c.res);
}

}  // namespace cordon
