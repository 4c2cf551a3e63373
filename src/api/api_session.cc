// The public API (cordon/cordon.h) as a thin layer over the library: Session, Approver, the
// file tools, review and the command policy.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <thread>
#include <set>

#include "api/face_options.h"
#include "approval/approver.h"
#include "approval/exec_gate.h"
#include "commands/classify.h"
#include "config/config_file.h"
#include "cordon/cordon.h"
#include "core/error_code.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "file_tools/file_tools.h"
#include "host/glob_expander.h"
#include "host/host_context.h"
#include "host/path_resolver.h"
#include "host/steady_clock.h"
#include "launch/judge_process.h"
#include "launch/linux/probe.h"
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
Error from_refusal(const Refusal& r) {
  return fail(public_error_code(r.reason), printable(r.message));
}

Error normalized(const cordon::Error& e) {
  return Error{public_error_code(e.code), printable(e.message), printable(e.path), e.sys_errno};
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

// An exec canceled while its question was open: nothing ran (exit 130, as for a command
// canceled while it ran).
ExecResult canceled_before_start(const std::string& message) {
  ExecResult out;
  out.exit_code = 130;
  out.canceled = true;
  out.notes.push_back(message);
  return out;
}

Result<ExecResult> printable_result(Result<ExecResult> r) {
  if (!r.ok()) {
    Error e = r.error();
    e.message = printable(e.message);
    e.path = printable(e.path);
    return e;
  }
  ExecResult out = std::move(*r);
  out.notices = printable_all(std::move(out.notices));
  out.notes = printable_all(std::move(out.notes));
  out.messages = printable_all(std::move(out.messages));
  for (auto& m : out.quarantined) m = Moved{printable(m.from), printable(m.to)};
  for (auto& c : out.connections) c.host = printable(c.host);  // NET-9
  return out;
}

// A person-facing form of the command for the questions and the leftover notes.
std::string command_text(const ExecRequest& r) {
  return r.command ? *r.command : shell_join(r.argv);
}

class SessionImpl : public Session {
 public:
  SessionImpl(const Options& opts, const FaceOptions& face, HostContext host, Policy policy)
      : opts_(opts), face_(face), host_(std::move(host)), policy_(std::move(policy)) {}
  ~SessionImpl() override {
    if (warm_.joinable()) warm_.join();
  }

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
    so.approver = approver_.get();  // NET-10's questions
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
    const bool seatbelt = session_->backend().backend == Backend::kSeatbelt;  // MAC-5
    s.backend = policy_.mode != SandboxMode::kOn ? "none" : seatbelt ? "seatbelt" : "bubblewrap";
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
    if (req.command && !req.argv.empty())
      return fail(ErrorCode::kInvalid, "give either `command` or `argv`, not both.");
    if (!req.command && req.argv.empty())
      return fail(ErrorCode::kInvalid, "no command was given: set `command` or `argv`.");
    if (req.command && trim(*req.command).empty())
      return fail(ErrorCode::kInvalid, "the command is empty.");
    if (!req.argv.empty() && req.argv[0].empty())
      return fail(ErrorCode::kInvalid, "argv[0] is empty: name the program to run.");
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

    ExecGateInput gi;
    gi.mode = policy_.mode;
    gi.command = command_text(req);
    gi.network = req.network;
    gi.outside_sandbox = req.outside_sandbox;
    gi.ways_out_approved = face_.ways_out_typed;
    gi.reason = req.reason;
    const std::string run_in = run_folder(r.cwd);
    gi.cwd = run_in;  // the question shows where it will run
    gi.argv_form = !req.command;
    // Without questions to put (the usual case: a sandboxed command, mode "on"), the command
    // policy only refuses denied commands, and is checked while bwrap starts (PERF-1). With
    // questions, it is checked first: a denied command is refused before anyone is asked.
    cordon::Session::PreCheck check;
    std::vector<std::string> approval_notes;
    if (gate_exec(gi).asks.empty() && policy_.mode != SandboxMode::kExternal) {
      check = [this, gi, run_in, &req]() mutable -> std::optional<Refusal> {
        auto v = verdict_for(req, run_in);
        if (!v.ok()) return Refusal{ErrorKind::kUnavailable, v.error().message};
        gi.verdict = *v;
        ExecGate gate = gate_exec(gi);
        trace("api: command classified");
        if (gate.refusal) return Refusal{ErrorKind::kRefused, *gate.refusal};
        return std::nullopt;
      };
    } else {
      gi.stdin_data = req.stdin_data;  // questions show it, and grants cover only it (APR)
      auto v = verdict_for(req, run_in);
      if (!v.ok()) return normalized(v.error());
      gi.verdict = *v;
      ExecGate gate = gate_exec(gi);
      if (gate.refusal) return fail(ErrorCode::kRefused, *gate.refusal);
      // A person is never asked a question whose answer cannot matter: a plan that is refused
      // anyway, or a sandbox that cannot start, is reported before any question.
      if (!gate.asks.empty()) {
        Facts f = session_->facts(r);
        Plan p = session_->plan(r, f);
        if (p.refusal) return from_refusal(*p.refusal);
        if (p.runner == Runner::kSandbox && !session_->probe().ok)
          return fail(ErrorCode::kUnavailable, session_->probe().message());
      }
      for (const auto& ask : gate.asks) {
        Decision d = approver_->ask(ask, req.cancel ? req.cancel->fd() : -1);
        if (d.basis == Basis::kCanceled) return canceled_before_start(d.message);
        if (!d.allowed) return fail(ErrorCode::kRefused, d.message);
        if (d.basis != Basis::kUser && d.basis != Basis::kGrant && !d.message.empty())
          approval_notes.push_back(fmt::format("{}: {}.", describe(ask), d.message));
      }
    }

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
    }
    io.cancel_fd = req.cancel ? req.cancel->fd() : -1;
    // PERF-1: the command policy's tables are built (once per process) on a thread while the
    // sandbox starts; the check waits for them only if they are not ready by then.
    if (check) warm_classifier();
    cordon::Session::Prepared ready = session_->prepare_command(r, io, check);
    // The start notices, for a face that shows them apart: before the command runs (refused or
    // not, they were shown).
    if (opts_.on_notice)
      for (const auto& n : ready.notices) opts_.on_notice(printable(n));
    CommandResult cr = session_->run(std::move(ready));
    if (cr.refusal && !cr.out.withheld) return from_refusal(*cr.refusal);
    ExecResult out = std::move(cr.out);
    out.notes.insert(out.notes.begin(), approval_notes.begin(), approval_notes.end());
    return out;
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
    auto c = classify_words(req.argv, req.command, run_folder(resolve_cwd(req.cwd)), req.network);
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

  struct NoAsker : Asker {
    std::string note;
    PersonAnswer ask(const Question&) override { return {Reply::kUnavailable, note}; }
  };

  // An absolute cwd as given; a relative one under the project root; empty: the session's.
  // Where a command asked to run in `cwd` really runs: there when it is inside the project,
  // else at the project root (as the planner chooses).
  std::string run_folder(const std::string& cwd) const {
    return path_within(cwd, session_->project()) ? cwd : session_->project();
  }

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
      if (!d.allowed) return fail(ErrorCode::kRefused, d.message, r->ask->path);
      req.approved = *r->ask;
    }
    return fail(ErrorCode::kRefused,
                "the path kept changing while it was being approved; nothing "
                "was done. Check it, then try again.");
  }

  // CMD-6: the server and MCP classify before exec, with the same classifier as `cordon
  // classify`, built on first use.
  cordon::Result<CommandVerdict> verdict_for(const ExecRequest& req, const std::string& cwd) {
    auto c = classify_words(req.argv, req.command, cwd, req.network);
    if (!c.ok()) return c.error();
    CommandVerdict v;
    v.cls = c->cls == CommandClass::kDenied     ? CommandVerdict::kDenied
            : c->cls == CommandClass::kReadOnly ? CommandVerdict::kReadOnly
                                                : CommandVerdict::kNeedsApproval;
    v.reason = c->reason;
    return v;
  }

  // The command classifier, made once (classifier_mu_ held).
  void make_classifier_locked() {
    if (classifier_ || classifier_error_) return;
    auto c = CommandClassifier::create(policy_.commands);
    trace("api: command classifier made");
    if (c.ok())
      classifier_.emplace(std::move(*c));
    else
      classifier_error_ =
          make_error(ErrorKind::kUnavailable,
                     fmt::format("{}: {} Commands are refused until the config is fixed.",  // CFG-2
                                 policy_.source_file, c.error().message));
  }

  void warm_classifier() {
    std::lock_guard<std::mutex> lock(warm_mu_);
    if (warm_.joinable()) return;  // started once: the classifier lasts the session
    warm_ = std::thread([this] {
      std::lock_guard<std::mutex> l(classifier_mu_);
      make_classifier_locked();
    });
  }

  cordon::Result<cordon::Classification> classify_words(const std::vector<std::string>& argv,
                                                        const std::optional<std::string>& command,
                                                        const std::string& cwd, bool network) {
    const CommandClassifier* classifier;
    {
      std::lock_guard<std::mutex> lock(classifier_mu_);
      make_classifier_locked();
      if (classifier_error_) return *classifier_error_;
      classifier = &*classifier_;
    }
    ClassifyContext cc;
    cc.cwd = cwd;
    cc.home = host_.home;
    cc.network = network;
    cc.resolve = host_path_resolver();
    cc.expander = host_expander();
    cc.project = session_->project();
    // Without a sandbox other processes' environments are in reach (CMD-3, issue 27).
    cc.unconfined = policy_.mode != SandboxMode::kOn;
    return command ? classifier->classify_line(*command, cc) : classifier->classify_argv(argv, cc);
  }

  Options opts_;
  FaceOptions face_;
  HostContext host_;
  Policy policy_;
  std::mutex classifier_mu_;
  std::optional<CommandClassifier> classifier_;
  std::optional<cordon::Error> classifier_error_;
  std::mutex warm_mu_;
  std::thread warm_;  // makes the classifier while the first command's sandbox starts
  SessionInfo info_;
  SteadyClock clock_;
  std::unique_ptr<JudgeProcess> judge_;
  NoAsker no_asker_;
  Asker* asker_ = nullptr;
  std::unique_ptr<Approver> approver_;
  std::unique_ptr<cordon::Session> session_;  // holds approver_ (NET-10): ends first
  std::mutex files_mu_;
  std::optional<FileContext> files_ctx_;
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
  return -1;
}

}  // namespace cordon::api
