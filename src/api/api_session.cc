// The public API (cordon/cordon.h) as a thin layer over the library: Session, Approver, the
// file tools, review and classify; the session decides the command policy itself.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <set>

#include "api/face_options.h"
#include "api/job_registry.h"
#include "approval/approver.h"
#include "approval/refusal_violation.h"
#include "config/config_file.h"
#include "cordon/cordon.h"
#include "core/error_code.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "file_tools/file_tools.h"
#include "host/host_context.h"
#include "host/steady_clock.h"
#include "launch/judge_process.h"
#include "launch/linux/probe.h"
#include "launch/linux/tty_stage.h"
#include "net/linux/net_stage.h"
#include "plan/project_rules.h"
#include "plan/run_decisions.h"
#include "review/review.h"
#include "session/policy_report.h"
#include "session/session.h"

extern char** environ;

namespace cordon::api {

namespace {

Error fail(ErrorCode code, std::string message, std::string path = {}) {
  return Error{code, std::move(message), std::move(path), 0};
}

// Every message and name handed to a face is printable (issue 13: a planted file name must not
// rewrite the terminal or start a forged `cordon: note:` line). Every error of the library
// becomes one of the public codes (core/error_code.h).
// AUD-2: paths and hosts come from the disk, the command and the output.
std::vector<Violation> printable_violations(std::vector<Violation> vs) {
  for (auto& v : vs)
    for (std::string* f : {&v.path, &v.host, &v.rule, &v.fix}) *f = printable(*f);
  return vs;
}

Error from_refusal(const Refusal& r) {
  Error e = fail(public_error_code(r.reason), printable(r.message));
  e.violations = printable_violations(r.violations);  // AUD-2
  return e;
}

Error normalized(const cordon::Error& e) {
  return Error{public_error_code(e.code), printable(e.message), printable(e.path), e.sys_errno,
               printable_violations(e.violations)};
}

template <class T>
Result<T> to_api(cordon::Result<T> r) {
  if (!r.ok()) return normalized(r.error());
  return std::move(*r);
}

std::vector<std::string> printable_all(std::vector<std::string> v) {
  for (auto& s : v) s = printable(s);
  return v;
}

Result<ExecResult> printable_result(Result<ExecResult> r) {
  if (!r.ok()) {
    Error e = r.error();
    e.message = printable(e.message);
    e.path = printable(e.path);
    e.violations = printable_violations(std::move(e.violations));
    return e;
  }
  ExecResult out = std::move(*r);
  out.notices = printable_all(std::move(out.notices));
  out.notes = printable_all(std::move(out.notes));
  out.messages = printable_all(std::move(out.messages));
  for (auto& m : out.quarantined) m = Moved{printable(m.from), printable(m.to)};
  for (auto& c : out.connections) c.host = printable(c.host);  // NET-9
  out.violations = printable_violations(std::move(out.violations));  // AUD-2
  return out;
}

class SessionImpl : public Session {
 public:
  SessionImpl(const Options& opts, const FaceOptions& face, HostContext host, Policy policy)
      : opts_(opts),
        face_(face),
        host_(std::move(host)),
        policy_(std::move(policy)),
        jobs_(opts.max_jobs, job_observer()) {}
  // Every job ends (its whole tree) before the session it runs in (issue 30).
  ~SessionImpl() override { jobs_.end_all(); }

  Status init() {
    make_approver();
    SessionOptions so;
    so.policy = policy_;
    so.folders = host_.folders;
    so.env = host_.env;
    so.home = host_.home;
    so.cwd = host_.cwd;
    so.project = opts_.project;
    so.id = opts_.session;
    so.create = opts_.create_session;
    so.cordon_exe = opts_.cordon_binary.empty() ? host_.exe : opts_.cordon_binary;
    so.approver = approver_.get();  // the exec's questions (APR-1) and NET-10's
    so.ways_out_approved = face_.ways_out_typed;
    so.session_loopback = opts_.session_loopback || face_.loopback_holder.has_value();
    so.loopback_holder = face_.loopback_holder;
    so.on_loopback_made = face_.on_loopback_made;
    auto s = cordon::Session::open(std::move(so));
    trace("api: session opened");
    if (!s.ok()) return normalized(s.error());
    session_ = std::move(*s);
    info_.id = session_->id();
    info_.project = session_->project();
    info_.ephemeral = session_->ephemeral();
    info_.created = session_->created();
    if (opts_.refuse_unsuitable_project && policy_.mode == SandboxMode::kOn) {
      Request req;
      req.argv = {"true"};
      if (auto r = project_refusal(session_->facts(req))) {
        if (info_.created && !info_.ephemeral) (void)session_->end();
        return from_refusal(*r);
      }
    }

    if (opts_.away)
      if (auto st = approver_->set_away(true); !st.ok()) return normalized(st.error());

    if (opts_.on_notice)
      for (const auto& w : policy_.warnings) opts_.on_notice("warning: " + w);
    if (opts_.resume) {
      ResumeReport rep = session_->resume();
      info_.resume_notes = printable_all(rep.notes);
      for (const auto& m : rep.quarantined)
        info_.resume_quarantined.push_back({printable(m.from), printable(m.to)});
      if (rep.hold) info_.hold = printable(rep.hold->message);
    }
    return Ok{};
  }

  const SessionInfo& info() const override { return info_; }

  std::vector<std::string> start_notices() override {
    Request req;
    req.argv = {"true"};
    Facts f = session_->facts(req);
    Plan p = session_->plan(req, f);
    std::vector<std::string> out =
        cordon::start_notices(p, /*say_stripped=*/true, policy_.warnings);
    session_->mark_notices_shown();
    return printable_all(std::move(out));
  }

  SandboxStatus sandbox_status() override {
    SandboxStatus s;
    s.mode = to_string(policy_.mode);
    const Backend b = session_->backend().backend;  // MAC-5, LL-1
    s.backend = policy_.mode != SandboxMode::kOn ? "none" : backend_name(b);
    if (policy_.mode != SandboxMode::kOn) {
      s.available = true;  // commands run, with no sandbox from cordon (MODE-2, MODE-3)
      return s;
    }
    Request req;
    req.argv = {"true"};
    Facts f = session_->facts(req);
    Plan p = session_->plan(req, f);
    if (p.refusal) {
      s.reason = printable(p.refusal->message);
      return s;
    }
    const ProbeReport& pr = session_->probe();
    s.available = pr.ok;
    if (!pr.ok) s.reason = pr.message();
    return s;
  }

  Result<ExecResult> exec(const ExecRequest& req) override {
    return printable_result(exec_as_run(req));
  }

  Result<ExecResult> exec_as_run(const ExecRequest& req) {
    auto r = checked_request(req);
    if (!r.ok()) return r.error();
    return run_request(*r, launch_io(req));
  }

  Result<std::shared_ptr<Job>> start_job(const ExecRequest& req,
                                         std::function<void(Job&)> on_end) override {
    auto r = checked_request(req);
    if (!r.ok()) return r.error();
    auto run = [this, r = *r](const ExecRequest& q, const std::string& id,
                              std::shared_ptr<ProcessFeed> feed, const Cancel& cancel) mutable {
      r.job = id;  // AUD-1: its start and end in the log name the job
      return printable_result(run_request(r, job_io(q, std::move(feed), cancel)));
    };
    return jobs_.start(req, command_text(req), std::move(run), std::move(on_end));
  }

  std::vector<std::shared_ptr<Job>> jobs() override { return jobs_.list(); }

  // The request checked and read into the library's; an error for a wrong one or a hold.
  Result<Request> checked_request(const ExecRequest& req) {
    if (req.command && !req.argv.empty())
      return fail(ErrorCode::kInvalid, "give either `command` or `argv`, not both.");
    if (!req.command && req.argv.empty())
      return fail(ErrorCode::kInvalid, "no command was given: set `command` or `argv`.");
    if (req.command && trim(*req.command).empty())
      return fail(ErrorCode::kInvalid, "the command is empty.");
    if (!req.argv.empty() && req.argv[0].empty())
      return fail(ErrorCode::kInvalid, "argv[0] is empty: name the program to run.");
    if (req.tty)  // JOB-3
      if (std::string p = tty_size_problem(req.cols, req.rows); !p.empty())
        return fail(ErrorCode::kInvalid, p);
    if (auto h = session_->current_hold()) return from_refusal(*h);

    Request r;
    r.argv = req.argv;
    r.script = req.command;
    r.cwd = resolve_cwd(req.cwd);
    if (!req.cwd.empty()) {
      struct stat st;
      if (stat(r.cwd.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return fail(ErrorCode::kInvalid,
                    fmt::format("the working folder {} does not exist.", r.cwd));
    }
    r.network = req.network;
    r.outside_sandbox = req.outside_sandbox;
    r.timeout = req.timeout;
    r.reason = req.reason;
    return r;
  }

  // One command through the session, as exec() and each job run it.
  Result<ExecResult> run_request(const Request& r, const LaunchIo& io) {
    // The session decides the command policy and puts its questions (CMD-4, APR-1).
    cordon::Session::Prepared ready = session_->prepare_command(r, io);
    // The start notices, for a face that shows them apart: before the command runs (refused or
    // not, they were shown).
    if (opts_.on_notice)
      for (const auto& n : ready.notices) opts_.on_notice(printable(n));
    CommandResult cr = session_->run(std::move(ready));
    if (cr.refusal && !cr.out.withheld) return from_refusal(*cr.refusal);
    return std::move(cr.out);
  }

  LaunchIo launch_io(const ExecRequest& req) const {
    LaunchIo io;
    if (face_.inherit_stdio) {
      io.in = isatty(0) ? InputMode::kNull : InputMode::kInherit;  // PROC-2
      io.out = OutputMode::kInherit;
      io.err = OutputMode::kTee;  // the tail is read for the blocked-command note (RES-2)
      io.capture_limit = 64 << 10;
    } else {
      io.in = req.stdin_data ? InputMode::kData : InputMode::kNull;
      if (req.stdin_data) io.in_data = *req.stdin_data;
      io.out = OutputMode::kCapture;
      io.err = OutputMode::kCapture;
      io.capture_limit = req.output_limit;
      if (req.on_output) io.feed = output_feed(req.on_output, req.output_limit);
    }
    io.cancel_fd = req.cancel ? req.cancel->fd() : -1;
    with_tty(req, io);
    return io;
  }

  // ExecRequest::on_output through the process's feed: each stream's pieces up to the bytes
  // its capture keeps. The sink runs on the process loop's thread only.
  static std::shared_ptr<ProcessFeed> output_feed(
      std::function<void(int, std::string_view)> on_output, size_t limit) {
    size_t sent[3] = {0, 0, 0};
    return std::make_shared<ProcessFeed>([on_output = std::move(on_output), limit, sent](
                                             int stream, const char* d, size_t n) mutable {
      if (stream < 1 || stream > 2) return;
      size_t room = sent[stream] < limit ? limit - sent[stream] : 0;
      n = std::min(n, room);
      if (n == 0) return;
      sent[stream] += n;
      on_output(stream, std::string_view(d, n));
    });
  }

  // A job's: output captured as exec's and handed to the job's log as it comes; input a pipe
  // fed by Job::write; ended by the job's own cancel (issue 30).
  static LaunchIo job_io(const ExecRequest& req, std::shared_ptr<ProcessFeed> feed,
                         const Cancel& cancel) {
    LaunchIo io;
    io.in = InputMode::kStream;
    io.in_data = req.stdin_data.value_or("");
    io.feed = std::move(feed);
    io.out = OutputMode::kCapture;
    io.err = OutputMode::kCapture;
    io.capture_limit = req.output_limit;
    io.cancel_fd = cancel.fd();
    with_tty(req, io);
    return io;
  }

  // JOB-3: a terminal of the sandbox's own; its output is stdout, captured as exec's.
  static void with_tty(const ExecRequest& req, LaunchIo& io) {
    if (!req.tty) return;
    io.tty = TtySize{req.cols, req.rows};
    if (io.in == InputMode::kInherit) io.in = InputMode::kNull;  // never the machine's terminal
  }

  static std::string command_text(const ExecRequest& req) {
    return printable(req.command ? *req.command : join(req.argv, " "));
  }

  Result<ReadFileResult> read_file(const ReadFileRequest& req) override {
    files::ReadFileRequest in;
    in.path = req.path;
    in.offset = req.offset;
    in.limit = req.limit;
    return with_approval<ReadFileResult>(req.reason, in,
                                         [](const FileContext& c, const files::ReadFileRequest& q) {
                                           return files::read_file(c, q);
                                         });
  }

  Result<WriteFileResult> write_file(const WriteFileRequest& req) override {
    files::WriteFileRequest in;
    in.path = req.path;
    in.content = req.content;
    auto r = with_approval<files::WriteFileResult>(
        req.reason, in, [](const FileContext& c, const files::WriteFileRequest& q) {
          return files::write_file(c, q);
        });
    if (r.ok()) session_->note_file_tool_write(r->path);  // PROT-6: aftercare keeps it
    return r;
  }

  Result<EditFileResult> edit_file(const EditFileRequest& req) override {
    files::EditFileRequest in;
    in.path = req.path;
    in.old_text = req.old_text;
    in.new_text = req.new_text;
    in.replace_all = req.replace_all;
    auto r = with_approval<files::EditFileResult>(
        req.reason, in, [](const FileContext& c, const files::EditFileRequest& q) {
          return files::edit_file(c, q);
        });
    if (r.ok()) session_->note_file_tool_write(r->path);  // PROT-6: aftercare keeps it
    return r;
  }

  Result<SearchResult> search(const SearchRequest& req) override {
    if (auto h = session_->current_hold()) return from_refusal(*h);
    auto r = files::search(file_context(), req);
    if (!r.ok()) return normalized(r.error());
    for (auto& m : r->matches) m.path = printable(m.path);
    return std::move(*r);
  }

  Result<Classification> classify(const ClassifyRequest& req) override {
    if (req.command && !req.argv.empty())
      return fail(ErrorCode::kInvalid, "give either `command` or `argv`, not both.");
    if (!req.command && req.argv.empty())
      return fail(ErrorCode::kInvalid, "no command was given: set `command` or `argv`.");
    Request r;
    r.argv = req.argv;
    r.script = req.command;
    r.cwd = resolve_cwd(req.cwd);
    r.network = req.network;
    auto c = session_->classify(r);
    if (!c.ok()) return normalized(c.error());
    return Classification{to_string(c->cls), c->reason, c->word, c->rule};
  }

  Result<ReviewStarted> review_start() override {
    auto r = cordon::review_start(session_->project(), host_.env, review_record());
    if (!r.ok()) return normalized(r.error());
    return ReviewStarted{r->commit, r->ignored.size()};
  }

  Result<ReviewReport> review() override {
    auto r = cordon::review_run(session_->project(), host_.env, review_record());
    if (!r.ok()) return normalized(r.error());
    ReviewReport out;
    // The names are the command's (REV-1 lists files a command made): printable before shown.
    for (auto* v : {&r->replace_refs, &r->changed, &r->added, &r->added_ignored})
      *v = printable_all(std::move(*v));
    out.commit = r->commit;
    out.replace_refs = r->replace_refs;
    out.changed = r->changed;
    out.added = r->added;
    out.added_ignored = r->added_ignored;
    out.limits = r->limits;
    out.text = format_review(*r);
    return out;
  }

  Result<std::string> policy_json() override {
    Request req;
    req.argv = {"true"};
    Facts f = session_->facts(req);
    if (session_->backend().backend == Backend::kSeatbelt) {  // MAC-5
      SeatbeltPlan sp = session_->seatbelt_plan(req, f);
      return cordon::policy_json(policy_, *session_, sp.plan, &sp).dump(2);
    }
    Plan p = session_->plan(req, f);
    return cordon::policy_json(policy_, *session_, p).dump(2);
  }

  Status set_away(bool on) override { return to_api(approver_->set_away(on)); }
  bool away() const override { return approver_->away(); }
  void begin_task() override { approver_->begin_task(); }
  void end_task() override { approver_->end_task(); }

  Status end() override {
    if (session_->ephemeral()) return Ok{};
    return to_api(session_->end());
  }

 private:
  // The approver of every question (APR-1): the exec's ways out, the file tools', and NET-10's,
  // which the session puts while a command runs.
  void make_approver() {
    ApproverConfig ac = ApproverConfig::from_policy(policy_);
    for (AskKind k : opts_.preapproved)
      if (k != AskKind::kOutsideSandbox) ac.preapproved.insert(k);
    if (policy_.approvals.mode == ApprovalMode::kAuto && !policy_.approvals.judge.empty())
      judge_ = std::make_unique<JudgeProcess>(policy_.approvals.judge, host_.env);
    asker_ = opts_.asker ? opts_.asker : &no_asker_;
    no_asker_.note = face_.no_asker_note;
    approver_ = std::make_unique<Approver>(ac, clock_, judge_.get(), asker_);
  }

  // AUD-1: each job's input written and signal sent, in the session's log. The jobs end before
  // the session does (the destructor), so the session is there whenever a job is.
  JobObserver job_observer() {
    return JobObserver{
        [this](const std::string& job, uint64_t bytes, bool eof) {
          if (session_) session_->audit_job_input(job, bytes, eof);
        },
        [this](const std::string& job, int sig) {
          if (session_) session_->audit_job_signal(job, sig);
        }};
  }

  struct NoAsker : Asker {
    std::string note;
    PersonAnswer ask(const Question&) override { return {Reply::kUnavailable, note}; }
  };

  // An absolute cwd as given; a relative one under the project root; empty: the session's.
  std::string resolve_cwd(const std::string& cwd) const {
    if (cwd.empty()) return host_.cwd;
    if (cwd[0] == '/') return normalize_path(cwd);
    return normalize_path(path_join(session_->project(), cwd));
  }

  std::string review_record() const {
    // A lasting session keeps its own review; an ephemeral one shares the project's with
    // `cordon review` in a terminal, so the person sees the review the agent started.
    return review_record_path(host_.folders, session_->project(),
                              session_->ephemeral() ? "" : session_->id());
  }

  const FileContext& file_context() {
    std::lock_guard<std::mutex> lock(files_mu_);
    if (!files_ctx_) {
      Request req;
      req.argv = {"true"};
      files_ctx_ = make_file_context(policy_, session_->facts(req));
    }
    return *files_ctx_;
  }

  // Runs a file tool; when it asks (FILE-4..6), puts the question through the approver and,
  // when allowed, runs it again with that approval. A path that now leads elsewhere asks again,
  // at most a few times.
  template <class T, class Req, class Fn>
  Result<T> with_approval(const std::string& reason, Req req, Fn tool) {
    if (auto h = session_->current_hold()) return from_refusal(*h);
    const FileContext& ctx = file_context();
    for (int round = 0; round < 3; ++round) {
      auto r = tool(ctx, req);
      if (!r.ok()) return normalized(r.error());
      if (!r->asked()) return std::move(r->value);
      ApprovalRequest ask;
      ask.kind = r->ask->kind;
      ask.path = r->ask->path;
      ask.reason = reason.empty() ? r->ask->reason : r->ask->reason + " (" + reason + ")";
      Decision d = approver_->ask(ask);
      session_->audit_file_tool(  // AUD-1
          r->ask->path, AuditAnswer{to_string(ask.kind), d.allowed, to_string(d.basis), d.risk,
                                    d.breaker_tripped});
      if (!d.allowed) {  // AUD-2: the refused read or write, with its rule and fix
        Error e = fail(ErrorCode::kRefused, d.message, r->ask->path);
        e.violations = printable_violations({answer_violation(ask, d)});
        return e;
      }
      req.approved = *r->ask;
    }
    return fail(ErrorCode::kRefused,
                "the path kept changing while it was being approved; nothing "
                "was done. Check it, then try again.");
  }

  Options opts_;
  FaceOptions face_;
  HostContext host_;
  Policy policy_;
  SessionInfo info_;
  SteadyClock clock_;
  std::unique_ptr<JudgeProcess> judge_;
  NoAsker no_asker_;
  Asker* asker_ = nullptr;
  std::unique_ptr<Approver> approver_;
  std::unique_ptr<cordon::Session> session_;  // holds approver_ (NET-10): ends first
  std::mutex files_mu_;
  std::optional<FileContext> files_ctx_;
  JobRegistry jobs_;  // issue 30: ended in the destructor, before anything they use
};

}  // namespace

Result<std::unique_ptr<Session>> Session::open(const Options& options) {
  return open_for_face(options, FaceOptions{});
}

Result<std::unique_ptr<Session>> open_for_face(const Options& options, const FaceOptions& face) {
  EnvMap env = options.environment ? EnvMap{} : EnvMap::from_environ(environ);
  if (options.environment)
    for (const auto& kv : *options.environment) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) continue;
      env.set(kv.substr(0, eq), kv.substr(eq + 1));
    }
  // The system reads a path up to its first NUL: the rest would go unseen (issue 15).
  if (options.cwd.find('\0') != std::string::npos)
    return normalized(make_error(ErrorKind::kInvalid,
                                 "the working folder (Options::cwd) holds a NUL byte. Fix: "
                                 "remove it."));
  HostContext host = read_host_context(std::move(env), options.cwd);
  trace("api: host read");
  // A policy made in code (PolicyBuilder) takes the place of the user's config file; it was
  // checked when built, by the same parser.
  auto policy = options.policy
                    ? parse_config(options.policy->toml(), "the policy given in Options::policy")
                    : load_user_policy(host.folders);
  trace("api: config read");
  if (!policy.ok())
    return fail(
        ErrorCode::kUnavailable,
        policy.error().message + " Commands are refused until the config is fixed.",  // CFG-2
        policy.error().path);
  auto s = std::make_unique<SessionImpl>(options, face, std::move(host), std::move(*policy));
  if (auto st = s->init(); !st.ok()) return st.error();
  return std::unique_ptr<Session>(std::move(s));
}

int helper_main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "__probe-inside") return probe_inside_main(argc, argv);
  // Issue 30: the session's loopback is made by this program run afresh.
  if (argc == 2 && std::string(argv[1]) == kLoopbackChildWord) return loopback_child_main();
  // The first stages inside a sandbox run from this program too (/proc/self/exe): NET-7's
  // proxy stage and JOB-3's terminal.
  if (argc >= 2 && std::string(argv[1]) == kNetStageWord) return net_stage_main(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == kTtyStageWord) return tty_stage_main(argc, argv);
  return -1;
}

}  // namespace cordon::api
