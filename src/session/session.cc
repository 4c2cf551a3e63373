#include "session/session.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>

#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "host/facts_reader.h"
#include "host/git_facts.h"
#include "host/path_info.h"
#include "host/quick_exit.h"
#include "launch/backend_probe.h"
#include "launch/sandbox_exec_probe.h"
#include "launch/seatbelt_launcher.h"
#include "plan/planner.h"
#include "plan/protected_list.h"
#include "plan/run_decisions.h"
#include "plan/ssh_rules.h"
#include "render/backend_limits.h"
#include "session/project_memory.h"
#include "session/session_folders.h"
#include "sys/fs_util.h"
#include "sys/open_files.h"

namespace cordon {

namespace {

// A path is read by the system up to its first NUL: the rest would go unseen (issue 15).
Status refuse_nul_paths(const SessionOptions& o) {
  for (const auto& [what, path] :
       {std::pair{"project folder", &o.project}, std::pair{"working folder", &o.cwd}})
    if (path->find('\0') != std::string::npos)
      return make_error(ErrorKind::kInvalid,
                        fmt::format("the {} \"{}…\" holds a NUL byte. Fix: remove it.", what,
                                    path->substr(0, path->find('\0'))));
  return ok_status();
}

}  // namespace

Result<std::unique_ptr<Session>> Session::open(SessionOptions opts) {
  std::unique_ptr<Session> s(new Session(std::move(opts)));
  if (auto st = s->prepare(); !st.ok()) return st.error();
  s->commands_ =
      std::make_unique<CommandPolicy>(s->opts_.policy, s->opts_.home, s->record_.project);
  return s;
}

Status Session::prepare() {
  store_ = SessionStore(opts_.folders);
  if (auto st = refuse_nul_paths(opts_); !st.ok()) return st;
  // MAC-5: the one place the backend is chosen; LL-1: the config's `[sandbox] backend`.
  auto backend = choose_backend(opts_.env, kOnMacos, opts_.policy.backend);
  if (!backend.ok()) return backend.error();
  backend_ = *backend;
  connections_ = std::make_shared<ConnectionBudget>(
      session_connection_limit(opts_.max_session_connections, open_files_limit()));
  std::string project =
      real_or_lexical(opts_.project.empty() ? find_project_root(opts_.cwd) : opts_.project);
  if (auto st = find_record(project); !st.ok()) return st;
  struct stat st;
  if (stat(record_.project.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return make_error(ErrorKind::kInvalid,
                      fmt::format("the project folder {} does not exist", record_.project),
                      record_.project);
  if (created_)
    if (auto s = start_record(); !s.ok()) return s;
  trace("audit: writing");
  open_audit();  // AUD-1
  trace("audit: written");
  if (opts_.policy.mode != SandboxMode::kOn) return ok_status();
  // AUD-3: the CA's key exists before any command's facts are read (which hide it).
  if (!opts_.policy.credentials.empty()) {
    trace("credentials: making");
    (void)credentials();
    trace("credentials: made");
  }
  return make_folders();
}

// The named session's record, loaded (or a new one when it may be made), or an ephemeral one.
Status Session::find_record(const std::string& project) {
  if (opts_.id.empty()) {
    record_.id = random_hex16();
    record_.project = project;
    created_ = true;
    return ok_status();
  }
  auto loaded = store_.load(opts_.id);
  if (!loaded.ok()) return loaded.error();
  if (loaded->has_value()) {
    record_ = **loaded;
    record_stamp_ = record_stamp(store_.record_path(record_.id));
    if (!opts_.project.empty() && real_or_lexical(opts_.project) != record_.project)
      return make_error(ErrorKind::kInvalid,
                        fmt::format("session {} belongs to the project {}, not {}. "
                                    "Run it from there, or start a new session.",
                                    record_.id, record_.project, real_or_lexical(opts_.project)));
  } else if (!opts_.create) {
    return make_error(
        ErrorKind::kInvalid,
        fmt::format("there is no session {}; `cordon session list` shows them.", opts_.id));
  } else {
    record_.id = opts_.id;
    record_.project = project;
    created_ = true;
  }
  ephemeral_ = false;
  return ok_status();
}

// A session made now: when it started, and for a named one its tracked set, recorded.
Status Session::start_record() {
  record_.started = static_cast<long long>(std::time(nullptr));
  record_.boot_id = current_boot_id();
  if (ephemeral_) return ok_status();
  take_tracked_set();  // SES-1, PROT-3: the tracked set is taken when the session starts
  if (auto s = save_record(); !s.ok())
    return make_error(ErrorKind::kState,
                      fmt::format("cannot record the session in {} ({}). Fix: make "
                                  "that folder writable by you.",
                                  path_parent(store_.record_path(record_.id)), s.error().message));
  return ok_status();
}

// With the sandbox on: the private /tmp, the placeholders, the writable entries (CFG-3).
Status Session::make_folders() {
  tmp_ = store_.tmp_dir(record_.id);
  auto real = make_private_tmp(tmp_, opts_.folders.cache, opts_.env);
  if (!real.ok()) return real.error();
  tmp_ = *real;
  Placeholders placeholders = make_placeholders(opts_.folders.cache);
  empty_file_ = placeholders.file;
  empty_dir_ = placeholders.dir;
  make_writable_entries(opts_.policy, opts_.folders, opts_.home);
  return ok_status();
}

void Session::take_tracked_set() {
  GitFactsInput gi;
  gi.project = record_.project;
  gi.home = opts_.home;
  gi.env = opts_.env;
  gi.cache_dir = opts_.folders.cache;
  for (const auto& e : protected_entries(opts_.policy))
    if (!e.anywhere) gi.protected_rels.push_back(e.rel);
  // As the command's facts read them (host/facts_reader.cc), so that both share the cache.
  if (!opts_.folders.cache.empty())
    gi.nested_git =
        indexed_nested_git(dir_index_file(opts_.folders.cache, record_.project), record_.project);
  GitFacts g = read_git_facts(gi);
  record_.tracked_known = g.tracked_known;
  record_.tracked_at_start = std::move(g.tracked);
}

Status Session::save_record() {
  if (ephemeral_) return ok_status();
  refresh_record();
  Status st = store_.save(record_);
  record_stamp_ = record_stamp(store_.record_path(record_.id));
  return st;
}

void Session::refresh_record() {
  if (ephemeral_) return;
  const std::string path = store_.record_path(record_.id);
  RecordStamp now = record_stamp(path);
  if (now == record_stamp_) return;  // nobody else saved it since: one stat per command
  auto disk = store_.load(record_.id);
  if (disk.ok() && disk->has_value()) merge_record(record_, **disk);
  record_stamp_ = now;
}

namespace {

bool empty_folder(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return false;
  }
  bool empty = true;
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) empty = false;
  closedir(d);
  return empty;
}

// PERF-1: an empty folder (the usual case) goes with one rmdir, which never follows a symlink,
// after the process's exit when a one-shot command defers it (host/quick_exit.h).
void remove_empty_folder(const std::string& dir) {
  if (!remove_after_exit(dir)) rmdir(dir.c_str());
}

}  // namespace

Session::~Session() {
  if (ephemeral_ && !tmp_.empty()) {
    // Listed first: a /tmp known to hold something (or not to be a plain folder) goes straight
    // to remove_tree, which never follows a symlink either.
    if (empty_folder(tmp_))
      remove_empty_folder(tmp_);
    else
      (void)remove_tree(tmp_);
  }
  remove_empty_folder(store_.leftovers_dir(record_.id));  // only when empty
  remove_session_credentials(credentials_);               // AUD-3: the placeholder files
}

Status Session::end() {
  for (const auto& f : store_.leftover_files(record_.id))
    return make_error(ErrorKind::kHeld,
                      fmt::format("session {} still has a leftover record ({}); run `cordon "
                                  "session resume {}` first.",
                                  record_.id, f, record_.id));
  tmp_.clear();
  return store_.remove(record_.id);
}

void Session::note_file_tool_write(const std::string& abs_path) { tool_writes_.note(abs_path); }

void Session::remember_failed_moves(const std::vector<std::string>& failed) {
  std::lock_guard<std::mutex> lock(sweep_mu_);
  cordon::remember_failed_moves(opts_.folders, record_.project, failed);
}

Facts Session::facts(const Request& req) const {
  FactsInput in;
  in.env = opts_.env;
  in.folders = opts_.folders;
  in.home = opts_.home;
  in.cwd = opts_.cwd;
  in.project = record_.project;
  in.session_id = record_.id;
  in.session_tmp = tmp_;
  in.empty_file = empty_file_;
  in.empty_dir = empty_dir_;
  in.network = req.network && opts_.policy.mode == SandboxMode::kOn && !req.outside_sandbox;
  in.prepare_caches = opts_.policy.mode == SandboxMode::kOn && !req.outside_sandbox;
  // NET-12: git over ssh through the proxy (Linux backends: the proxy is theirs).
  if (opts_.policy.mode == SandboxMode::kOn && ssh_route_on(opts_.policy, req)) {
    settle_backend();
    in.ssh_route = backend_.backend != Backend::kSeatbelt;
    in.ssh_bwrap = backend_.backend == Backend::kBwrap;
  }
  in.cordon_exe = opts_.cordon_exe;
  Facts f = gather_facts(opts_.policy, in);
  if (backend_.backend == Backend::kSeatbelt)  // MAC-5: the program chosen, when it can run
    f.machine.sandbox_exec =
        access(backend_.sandbox_exec.c_str(), X_OK) == 0 ? backend_.sandbox_exec : "";
  // Another command in flight may change the record (SRV-4): read it under the lock.
  bool tracked_known;
  std::vector<std::string> tracked_at_start, unreadable;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tracked_known = record_.tracked_known;
    tracked_at_start = record_.tracked_at_start;
    unreadable = record_.unreadable;
  }
  // PROT-3: tracked at session start (or the last resume) and still tracked now.
  keep_tracked_since_start(f, !ephemeral_, tracked_known, tracked_at_start);
  f.pending_quarantine = pending_quarantine(opts_.folders, record_.project);
  for (const auto& d : unreadable)
    if (read_path_info(path_join(record_.project, d)).exists()) f.unreadable_dirs.push_back(d);
  return f;
}

std::string Session::shell_for_scripts() {
  return access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh";
}

SeatbeltPlan Session::seatbelt_plan(const Request& req, const Facts& facts) const {
  SeatbeltOptions so;
  so.sandbox_exec = backend_.sandbox_exec.empty() ? kSandboxExec : backend_.sandbox_exec;
  so.shell = shell_for_scripts();
  so.terminals = output_terminals();
  return make_seatbelt_plan(opts_.policy, facts, req, so);
}

Plan Session::plan(const Request& req, const Facts& facts) const {
  settle_backend();
  if (backend_.backend == Backend::kSeatbelt) return seatbelt_plan(req, facts).plan;
  return plan_with(req, facts, nullptr);
}

Plan Session::plan_with(const Request& req, const Facts& facts, const ProcessPart* part,
                        int loopback_proxy_port, const std::string& proxy_password) const {
  settle_backend();
  PlanOptions po;
  po.shell = shell_for_scripts();
  po.process = part;
  po.proxy_port = loopback_proxy_port;  // LL-1: the proxy on the machine's loopback
  po.proxy_password = proxy_password;
  if (backend_.backend == Backend::kLandlock) po.backend = Backend::kLandlock;  // LL-1
  // AUD-3: placeholders and the CA bundle under bubblewrap; under Landlock the variables are
  // stripped and the files hidden, as without [credentials].
  const bool credentials_here =
      !opts_.policy.credentials.empty() && backend_.backend == Backend::kBwrap;
  if (credentials_here) po.credentials = &credentials().sandbox;
  Plan plan = make_plan(opts_.policy, facts, req, po);
  if (!opts_.policy.credentials.empty() && plan.runner == Runner::kSandbox) {
    if (credentials_here && plan.proxy_port)
      plan.notices.insert(plan.notices.end(), credentials().notices.begin(),
                          credentials().notices.end());
    else if (backend_.backend == Backend::kLandlock)
      plan.notices.push_back(
          "[credentials] needs the bubblewrap sandbox; with the Landlock backend the "
          "credentials' variables are stripped and their files hidden.");
    else if (!plan.proxy_port)
      plan.notices.push_back(
          "[credentials] works through the allowlist proxy only; this command has none (no "
          "[network] allow, or a way out), so the credentials' variables are stripped and "
          "their files hidden.");
  }
  // LL-1: said at the session's start, in every face (the start notices come from a plan).
  if (backend_.backend == Backend::kLandlock && plan.runner == Runner::kSandbox)
    plan.notices.push_back(backend_notice(backend_));
  return plan;
}

const BackendChoice& Session::backend() const {
  settle_backend();
  return backend_;
}

ProbeInput Session::bwrap_probe_input() const {
  ProbeInput in;
  in.env = opts_.env;
  in.folders = opts_.folders;
  in.cordon_exe = opts_.cordon_exe;
  in.bwrap = find_bwrap(opts_.env);
  in.use_cache = opts_.use_probe_cache;
  return in;
}

// LL-1: on Linux with the sandbox on, the backend and its probe, once, before the first use
// that depends on them: `auto` hands over to Landlock where bubblewrap cannot run.
void Session::settle_backend() const {
  std::call_once(settled_, [this] {
    if (backend_.backend == Backend::kSeatbelt || opts_.policy.mode != SandboxMode::kOn) return;
    SettledBackend s = cordon::settle_backend(backend_, bwrap_probe_input());
    std::lock_guard<std::mutex> lock(probe_mu_);
    backend_ = s.choice;
    probe_ = std::move(s.probe);
  });
}

const ProbeReport& Session::probe() {
  settle_backend();
  std::lock_guard<std::mutex> lock(probe_mu_);
  if (!probe_ && backend_.backend == Backend::kSeatbelt)
    probe_ = run_seatbelt_probe(backend_.sandbox_exec, opts_.env);
  if (!probe_) probe_ = run_probe(bwrap_probe_input());
  return *probe_;
}

void Session::mark_notices_shown() {
  std::lock_guard<std::mutex> lock(mu_);
  first_command_ = false;
}

ResumeReport Session::sweep_leftovers(bool include_other_ephemeral) {
  SweepOutcome swept;
  {
    // Two commands in flight must not handle the same record twice (SRV-4).
    std::lock_guard<std::mutex> sweep_lock(sweep_mu_);
    std::set<std::string> running;
    {
      std::lock_guard<std::mutex> lock(mu_);
      running = running_records_;
    }
    swept = cordon::sweep_leftovers(SweepScope{store_, record_.id, record_.project, opts_.policy,
                                               opts_.folders, opts_.home, opts_.env,
                                               include_other_ephemeral, &running});
  }
  if (!swept.failed_moves.empty()) remember_failed_moves(swept.failed_moves);
  return std::move(swept.report);
}

std::optional<Refusal> Session::current_hold() {
  std::lock_guard<std::mutex> lock(mu_);
  refresh_record();  // a hold another process of this session recorded holds here too
  // PROC-3: processes an earlier command left that could not be confirmed ended.
  std::vector<HeldProcess> still;
  for (const auto& h : record_.held)
    if (process_alive(h.pid, h.start)) still.push_back(h);
  if (still != record_.held) {
    record_.held = still;
    (void)save_record();
  }
  if (still.empty()) return std::nullopt;
  std::vector<int> pids;
  for (const auto& h : still) pids.push_back(h.pid);
  return held_processes_refusal(pids);
}

ResumeReport Session::resume() {
  ResumeReport rep = sweep_leftovers(true);
  audit_resume(rep, true);  // AUD-1, with the paths the sweep moved aside
  if (auto h = current_hold()) rep.hold = h;
  // SES-4: resume takes a fresh tracked set.
  {
    std::lock_guard<std::mutex> lock(mu_);
    take_tracked_set();
    (void)save_record();
  }
  return rep;
}

}  // namespace cordon
