#include "session/session.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "backend/linux/command_proxy.h"
#include "backend/macos/launcher.h"
#include "backend/macos/sandbox_exec_probe.h"
#include "core/fs_util.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "core/version.h"
#include "host/facts_reader.h"
#include "host/git_facts.h"
#include "host/path_info.h"
#include "host/path_resolver.h"
#include "plan/aftercare_rules.h"
#include "plan/blocked_note.h"
#include "plan/hidden_list.h"
#include "plan/planner.h"
#include "plan/protected_list.h"
#include "session/aftercare.h"
#include "session/backend_launch.h"

namespace cordon {

namespace {

std::string shell_for_scripts() { return access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh"; }

// bwrap reports a command it could not start as "bwrap: execvp NAME: REASON".
// RES-4: execvp says "Permission denied" when a folder on PATH could not be searched even if
// the program is nowhere; a shell skips such folders, so look again as a shell does.
std::optional<std::pair<int, std::string>> exec_failure(const std::string& held, const Plan& plan) {
  const std::string& argv0 = plan.argv[0];
  std::string prefix = "bwrap: execvp " + argv0 + ": ";
  size_t p = held.find(prefix);
  if (p == std::string::npos) return std::nullopt;
  std::string reason = trim(held.substr(p + prefix.size()));
  reason = reason.substr(0, reason.find('\n'));
  if (reason == "No such file or directory" ||
      (reason == "Permission denied" && find_command(argv0, plan.env, plan.cwd).path.empty()))
    return std::make_pair(127, argv0 + ": command not found");
  return std::make_pair(126, argv0 + ": cannot run it (" + reason + ")");
}

// PROC-6: a low [limits] pids is an rlimit on every process of the user, and bwrap needs a few
// of its own (the sandbox's pid 1, the command): name it as the likely cause of a failed start.
std::string limits_hint(const Limits& limits, const std::string& config) {
  if (!limits.pids || *limits.pids >= 64) return "";
  return fmt::format(
      "The likely cause is [limits] pids = {} in {}: as an rlimit it counts every process of "
      "your user on this machine, and the sandbox itself needs a few. Fix: raise it (to 256 or "
      "more), or remove it; commands get a cgroup limit of {} processes by default where a "
      "cgroup can be made.",
      *limits.pids, config.empty() ? "the config file" : config, limits.default_pids);
}

std::string blocked_file(const Folders& folders, const std::string& project) {
  return path_join(folders.state,
                   fmt::format("blocked/{:016x}.json", std::hash<std::string>{}(project)));
}

std::vector<std::string> tracked_protected_now(const SessionOptions& o, const std::string& project,
                                               bool& known) {
  GitFactsInput gi;
  gi.project = project;
  gi.home = o.home;
  gi.env = o.env;
  gi.cache_dir = o.folders.cache;
  for (const auto& e : protected_entries(o.policy))
    if (!e.anywhere) gi.protected_rels.push_back(e.rel);
  GitFacts g = read_git_facts(gi);
  known = g.tracked_known;
  return g.tracked;
}

// The project's git folders now, to check a leftover record against.
GitFacts current_git_facts(const SessionOptions& o, const std::string& project) {
  GitFactsInput gi;
  gi.project = project;
  gi.home = o.home;
  gi.env = o.env;
  gi.cache_dir = o.folders.cache;
  return read_git_facts(gi);
}

// Processes in a process group (for an unconfined command whose first process is gone).
std::vector<int> processes_in_group(int pgid) {
  std::vector<int> out;
  if (pgid <= 0) return out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    int pid = std::atoi(e->d_name);
    auto st = read_proc_stat(pid);
    if (st && st->state != 'Z' && st->pgrp == pgid) out.push_back(pid);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string pid_list(const std::vector<int>& pids) {
  std::vector<std::string> s;
  for (size_t i = 0; i < pids.size() && i < 8; ++i) s.push_back(std::to_string(pids[i]));
  std::string out = join(s, " ");
  if (pids.size() > 8) out += fmt::format(" and {} more", pids.size() - 8);
  return out;
}

std::string first_two_words(const std::vector<std::string>& command) {
  std::vector<std::string> w;
  // A script's words, when the command was `sh -c SCRIPT`.
  if (command.size() >= 3 && command[1] == "-c") {
    for (const auto& x : split(command[2], ' '))
      if (!x.empty() && w.size() < 2) w.push_back(x);
  } else {
    for (size_t i = 0; i < command.size() && i < 2; ++i) w.push_back(command[i]);
  }
  return join(w, " ");
}

}  // namespace

Result<std::unique_ptr<Session>> Session::open(SessionOptions opts) {
  std::unique_ptr<Session> s(new Session(std::move(opts)));
  if (auto st = s->prepare(); !st.ok()) return st.error();
  return s;
}

Status Session::prepare() {
  store_ = SessionStore(opts_.folders);
  auto backend = choose_backend(opts_.env);  // MAC-5: the one place the backend is chosen
  if (!backend.ok()) return backend.error();
  backend_ = *backend;
  std::string project =
      real_or_lexical(opts_.project.empty() ? find_project_root(opts_.cwd) : opts_.project);
  if (!opts_.id.empty()) {
    auto loaded = store_.load(opts_.id);
    if (!loaded.ok()) return loaded.error();
    if (loaded->has_value()) {
      record_ = **loaded;
      if (!opts_.project.empty() && real_or_lexical(opts_.project) != record_.project)
        return make_error("invalid",
                          fmt::format("session {} belongs to the project {}, not {}. "
                                      "Run it from there, or start a new session.",
                                      record_.id, record_.project, real_or_lexical(opts_.project)));
    } else if (!opts_.create) {
      return make_error(
          "invalid",
          fmt::format("there is no session {}; `cordon session list` shows them.", opts_.id));
    } else {
      record_.id = opts_.id;
      record_.project = project;
      created_ = true;
    }
    ephemeral_ = false;
  } else {
    record_.id = random_hex16();
    record_.project = project;
    created_ = true;
  }
  struct stat st;
  if (stat(record_.project.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return make_error("invalid",
                      fmt::format("the project folder {} does not exist", record_.project),
                      record_.project);
  if (created_) {
    record_.started = static_cast<long long>(std::time(nullptr));
    record_.boot_id = current_boot_id();
    if (!ephemeral_) {
      // SES-1, PROT-3: the tracked set is taken when the session starts.
      record_.tracked_at_start =
          tracked_protected_now(opts_, record_.project, record_.tracked_known);
      if (auto s = save_record(); !s.ok())
        return make_error(
            "state", fmt::format("cannot record the session in {} ({}). Fix: make "
                                 "that folder writable by you.",
                                 path_parent(store_.record_path(record_.id)), s.error().message));
    }
  }
  const std::string& cache = opts_.folders.cache;
  if (opts_.policy.mode == SandboxMode::kOn) {
    tmp_ = store_.tmp_dir(record_.id);
    if (auto r = make_dirs(tmp_, 0700); !r.ok())
      return make_error("io",
                        fmt::format("cannot create the session's private /tmp at {} ({}). Fix: "
                                    "make {} writable by you.",
                                    tmp_, std::strerror(r.error().sys_errno), cache),
                        tmp_, r.error().sys_errno);
    tmp_ = real_or_lexical(tmp_);
    std::string empty = path_join(cache, "empty");
    empty_dir_ = path_join(empty, "dir");
    empty_file_ = path_join(empty, "file");
    // The placeholders hidden paths are bound to: made once, read-only (checked every time,
    // changed only when wrong).
    struct stat ds, fs;
    if (stat(empty_dir_.c_str(), &ds) != 0) {
      (void)make_dirs(empty_dir_, 0755);
      ds.st_mode = 0;
    }
    if (stat(empty_file_.c_str(), &fs) != 0 || fs.st_size != 0) {
      (void)write_file_atomic(empty_file_, "", false, 0444);
      fs.st_mode = 0;
    }
    if ((ds.st_mode & 07777) != 0555) chmod(empty_dir_.c_str(), 0555);
    if ((fs.st_mode & 07777) != 0444) chmod(empty_file_.c_str(), 0444);
    // A writable path that does not exist yet is made, so the command can use it.
    for (const auto& w : opts_.policy.writable)
      if (auto real = writable_to_make(w)) (void)make_dirs(*real, 0700);
  }
  return ok_status();
}

namespace {

constexpr size_t kMaxToolWrites = 256;

bool stat_write(const std::string& path, uint64_t& dev, uint64_t& ino, uint64_t& size,
                long long& mtime_ns) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  dev = st.st_dev;
  ino = st.st_ino;
  size = static_cast<uint64_t>(st.st_size);
  mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  return true;
}

// Adds `rel` (and the folders on its way below `entry`) to a file-by-file entry's children.
void add_children(SnapshotEntry& e, const std::string& rel) {
  for (size_t at = e.rel.size() + 1;;) {
    const size_t slash = rel.find('/', at);
    const std::string part = rel.substr(0, slash);
    bool known = false;
    for (const auto& c : e.children) known |= c.rel == part;
    if (!known)
      e.children.push_back(
          ChildFact{part, slash == std::string::npos ? Kind::kFile : Kind::kDir, ""});
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
}

}  // namespace

void Session::note_file_tool_write(const std::string& abs_path) {
  ToolWrite w;
  w.path = normalize_path(abs_path);
  if (!stat_write(w.path, w.dev, w.ino, w.size, w.mtime_ns)) return;
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(tool_writes_, [&](const ToolWrite& t) { return t.path == w.path; });
  tool_writes_.push_back(std::move(w));
  if (tool_writes_.size() > kMaxToolWrites) tool_writes_.erase(tool_writes_.begin());
}

ProtectedSnapshot Session::without_file_tool_writes(const ProtectedSnapshot& snapshot) const {
  std::vector<ToolWrite> writes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    writes = tool_writes_;
  }
  ProtectedSnapshot s = snapshot;
  for (const auto& w : writes) {
    ToolWrite now;
    // Only the very file written: a command that changed or replaced it gets no pass.
    if (!stat_write(w.path, now.dev, now.ino, now.size, now.mtime_ns) || now.dev != w.dev ||
        now.ino != w.ino || now.size != w.size || now.mtime_ns != w.mtime_ns)
      continue;
    // GIT-9: an approved write of a locked git file is the file to keep, not one to put back.
    for (auto& id : s.identities) {
      if (path_join(id.root, id.rel) != w.path) continue;
      id.kind = Kind::kFile;
      id.dev = now.dev;
      id.ino = now.ino;
    }
    if (w.path == s.project || !path_within(w.path, s.project)) continue;
    const std::string rel = path_relative(w.path, s.project);
    for (auto& e : s.entries) {
      if (rel == e.rel) {
        if (e.kind == Kind::kMissing) e.kind = Kind::kFile;
      } else if (path_within(rel, e.rel)) {
        // A new protected folder made by the write: only what the write made is expected in it.
        if (e.kind == Kind::kMissing) {
          e.kind = Kind::kDir;
          e.file_by_file = true;
          e.children.clear();
        }
        if (e.file_by_file) add_children(e, rel);
      }
    }
  }
  return s;
}

// CFG-3: a writable entry is made where it really leads (links on the way followed), and only
// when that is still below the home folder and outside every hidden path: `~/wdir/sub` with
// `~/wdir -> ~/.ssh` must not create `~/.ssh/sub`.
std::optional<std::string> Session::writable_to_make(const std::string& entry) const {
  const std::string real = resolve_path_for_policy(expand_home(entry, opts_.home));
  const std::string home = resolve_path_for_policy(opts_.home);
  if (real.empty() || home.empty() || real == home || !path_within(real, home)) return std::nullopt;
  for (const auto& h : hide_entries(opts_.policy, opts_.folders, opts_.home)) {
    if (h.path.empty() || h.path[0] != '/') continue;
    // A glob entry (`~/.cargo/credentials*`) hides the matches in its folder, not the folder.
    const std::string base = h.glob ? path_parent(h.path) : h.path;
    for (const std::string& p : {base, resolve_path_for_policy(base)}) {
      if (p.empty() || !path_within(real, p)) continue;
      if (!h.glob) return std::nullopt;
      if (real == p) continue;
      std::string rest = path_relative(real, p);
      if (glob_match(path_base(h.path), rest.substr(0, rest.find('/')))) return std::nullopt;
    }
  }
  return real;
}

Status Session::save_record() {
  if (ephemeral_) return ok_status();
  return store_.save(record_);
}

Session::~Session() {
  // An empty /tmp (the usual case) goes with one rmdir, which never follows a symlink.
  if (ephemeral_ && !tmp_.empty() && rmdir(tmp_.c_str()) != 0) (void)remove_tree(tmp_);
  rmdir(store_.leftovers_dir(record_.id).c_str());  // only when empty
}

Status Session::end() {
  for (const auto& f : store_.leftover_files(record_.id))
    return make_error("held",
                      fmt::format("session {} still has a leftover record ({}); run `cordon "
                                  "session resume {}` first.",
                                  record_.id, f, record_.id));
  tmp_.clear();
  return store_.remove(record_.id);
}

std::vector<std::string> Session::pending_quarantine() const {
  std::vector<std::string> out;
  auto text = read_file(blocked_file(opts_.folders, record_.project), 1 << 20);
  if (!text.ok()) return out;
  try {
    // Kept in a variable: a range-for over a member of a temporary would dangle (until C++23).
    const nlohmann::json j = nlohmann::json::parse(*text);
    for (const auto& p : j.at("paths")) {
      std::string path = p.get<std::string>();
      if (read_path_info(path).exists()) out.push_back(path);  // lifts once it is gone
    }
  } catch (...) {
  }
  return out;
}

void Session::remember_failed_moves(const std::vector<std::string>& failed) {
  std::lock_guard<std::mutex> lock(sweep_mu_);
  std::vector<std::string> all = pending_quarantine();
  for (const auto& f : failed)
    if (std::find(all.begin(), all.end(), f) == all.end()) all.push_back(f);
  std::string file = blocked_file(opts_.folders, record_.project);
  if (all.empty()) {
    unlink(file.c_str());
    return;
  }
  (void)make_dirs(path_parent(file), 0700);
  nlohmann::json j;
  j["project"] = record_.project;
  j["paths"] = all;
  (void)write_file_atomic(file, j.dump(), true);
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
  if (!ephemeral_) {
    std::set<std::string> start(tracked_at_start.begin(), tracked_at_start.end());
    auto keep = [&](std::vector<std::string>& v) {
      std::erase_if(v, [&](const std::string& t) { return !tracked_known || !start.count(t); });
    };
    keep(f.git.tracked);
    for (auto& p : f.protected_paths) keep(p.tracked);
  }
  f.pending_quarantine = pending_quarantine();
  for (const auto& d : unreadable)
    if (read_path_info(path_join(record_.project, d)).exists()) f.unreadable_dirs.push_back(d);
  return f;
}

SeatbeltPlan Session::seatbelt_plan(const Request& req, const Facts& facts) const {
  SeatbeltOptions so;
  so.sandbox_exec = backend_.sandbox_exec.empty() ? kSandboxExec : backend_.sandbox_exec;
  so.shell = shell_for_scripts();
  so.terminals = output_terminals();
  return make_seatbelt_plan(opts_.policy, facts, req, so);
}

Plan Session::plan(const Request& req, const Facts& facts) const {
  if (backend_.backend == Backend::kSeatbelt) return seatbelt_plan(req, facts).plan;
  PlanOptions po;
  po.shell = shell_for_scripts();
  return make_plan(opts_.policy, facts, req, po);
}

const ProbeReport& Session::probe() {
  std::lock_guard<std::mutex> lock(probe_mu_);
  if (!probe_ && backend_.backend == Backend::kSeatbelt)
    probe_ = run_seatbelt_probe(backend_.sandbox_exec, opts_.env);
  if (!probe_) {
    ProbeInput in;
    in.env = opts_.env;
    in.folders = opts_.folders;
    in.cordon_exe = opts_.cordon_exe;
    in.bwrap = find_bwrap(opts_.env);
    in.use_cache = opts_.use_probe_cache;
    probe_ = run_probe(in);
  }
  return *probe_;
}

bool Session::stripped_names_changed(const std::vector<std::string>& names) const {
  // ENV-4 "on first use": said once per project, again only when a name not said before
  // appears, so a run of `cordon run` (ephemeral or `--session`) does not repeat it. The names
  // said so far are kept in the cache, one per line.
  std::string file =
      path_join(opts_.folders.cache,
                fmt::format("env-notice/{:016x}", std::hash<std::string>{}(record_.project)));
  auto before = read_file(file, 1 << 20);
  std::set<std::string> said;
  if (before.ok())
    for (auto& n : split(*before, '\n'))
      if (!n.empty()) said.insert(n);
  bool fresh = false;
  for (const auto& n : names) fresh = said.insert(n).second || fresh;
  if (!fresh) return false;
  (void)make_dirs(path_parent(file), 0700);
  (void)write_file_atomic(file, join(std::vector<std::string>(said.begin(), said.end()), "\n"),
                          false);
  return true;
}

void Session::mark_notices_shown() {
  std::lock_guard<std::mutex> lock(mu_);
  first_command_ = false;
}

std::string Session::record_problem(const LeftoverRecord& rec, const std::string& path,
                                    std::optional<SnapshotExpectations>& want) const {
  const std::string dir_id = path_base(path_parent(path));
  if (!valid_session_id(rec.session) || rec.session != dir_id)
    return fmt::format("its session id is not the one it is filed under ({})", dir_id);
  if (std::to_string(rec.effect) != path_base(path)) return "its effect number is not its name";
  if (rec.project != record_.project) return "its project is not the session's";
  if (!rec.snapshot) return "";
  if (!want) {
    SnapshotExpectations w;
    w.project = record_.project;
    w.entries = protected_entries(opts_.policy);
    GitFacts g = current_git_facts(opts_, record_.project);
    w.git_dir = g.git_dir;
    w.common_dir = g.common_dir;
    w.dir_index = dir_index_file(opts_.folders.cache, record_.project);
    want = std::move(w);
  }
  return snapshot_problem(*rec.snapshot, *want);
}

ResumeReport Session::sweep_leftovers(bool include_other_ephemeral) {
  // Two commands in flight must not handle the same record twice (SRV-4).
  std::unique_lock<std::mutex> sweep_lock(sweep_mu_);
  ResumeReport rep;
  std::vector<std::string> files = store_.leftover_files(record_.id);
  if (include_other_ephemeral) {
    // A killed ephemeral `cordon run` has no session to resume: the next command in the same
    // project sweeps its records.
    std::string root = path_join(opts_.folders.state, "leftovers");
    if (DIR* d = opendir(root.c_str())) {
      while (dirent* e = readdir(d)) {
        std::string id = e->d_name;
        if (id == "." || id == ".." || id == record_.id) continue;
        if (!valid_session_id(id)) continue;  // not cordon's: never followed (SES-1)
        if (access(store_.record_path(id).c_str(), F_OK) == 0) continue;  // a named session
        for (const auto& f : store_.leftover_files(id)) files.push_back(f);
      }
      closedir(d);
    }
  }
  std::string boot = current_boot_id();
  std::vector<std::string> held, failed_moves;
  std::optional<SnapshotExpectations> want;  // read once, when a record has a snapshot
  for (const auto& path : files) {
    auto rec = read_leftover(path);
    bool ours = path_within(path, store_.leftovers_dir(record_.id));
    // SES-3: every field checked before anything is moved; a record that does not fit is
    // damaged, and holds the session like an unreadable one.
    if (rec.ok() && (ours || rec->project == record_.project)) {
      std::string problem = record_problem(*rec, path, want);
      if (!problem.empty())
        rec = make_error("damaged", fmt::format("it does not fit this session: {}", problem), path);
    }
    if (!rec.ok()) {
      // Listed, then removed by its own command before it could be read: that command has
      // finished with it (several commands in flight, SRV-4). Only a record still there is
      // damaged.
      if (access(path.c_str(), F_OK) != 0 && errno == ENOENT) continue;
      if (!ours) continue;  // another session's damaged record is that session's business
      // SES-3: an unreadable record: hold, list the protected paths now in the project.
      std::vector<std::string> present;
      for (const auto& e : protected_entries(opts_.policy))
        if (!e.anywhere && read_path_info(path_join(record_.project, e.rel)).exists())
          present.push_back(e.rel);
      held.push_back(fmt::format(
          "{} could not be read ({}), so the files that command may have planted were not "
          "checked. Protected files in the project now: {}. Remove any you did not make. "
          "Then run: rm {}",
          tilde_path(path, opts_.home), rec.error().message,
          present.empty() ? "(none)" : join(present, ", "), shell_quote(path)));
      continue;
    }
    if (rec->project != record_.project) continue;
    if (process_alive(rec->owner_pid, rec->owner_start)) continue;  // still being run
    bool same_boot = rec->boot_id.empty() || rec->boot_id == boot;
    std::string cmd = first_two_words(rec->command);
    if (rec->sandboxed) {
      if (same_boot && rec->pid > 0 && process_alive(rec->pid, rec->pid_start)) {
        held.push_back(fmt::format(
            "a sandbox from before cordon was killed is still running (pid {}). It ends by "
            "itself, or stop it with `kill -9 {}`; then run the command again.",
            rec->pid, rec->pid));
        continue;
      }
    } else if (same_boot && rec->pid > 0) {
      if (process_alive(rec->pid, rec->pid_start)) {
        std::vector<int> group = processes_in_group(rec->pgid);
        if (group.empty()) group = {rec->pid};
        rep.notes.push_back(
            fmt::format("still running outside the sandbox: {} ({}). They were "
                        "left running.",
                        pid_list(group), cmd));
      } else if (auto group = processes_in_group(rec->pgid); !group.empty()) {
        rep.notes.push_back(fmt::format(
            "may still be running outside the sandbox: {}. The command's first process is "
            "gone, so these may belong to another program; check with `ps -p {}` before "
            "stopping one.",
            pid_list(group), join(split(pid_list(group), ' '), ",")));
      }
    }
    if (rec->pid == 0)
      rep.notes.push_back(fmt::format(
          "a command may still be running; it could not be identified. Look for it with "
          "`pgrep -fl {}`; stop any it lists that you did not start, with `kill` and its "
          "number.",
          shell_quote(cmd)));
    // Then what the interrupted command planted is moved aside (PROT-7).
    if (rec->snapshot) {
      AftercareOutcome after = run_aftercare(*rec->snapshot);
      rep.quarantined.insert(rep.quarantined.end(), after.moved.begin(), after.moved.end());
      rep.notes.insert(rep.notes.end(), after.notes.begin(), after.notes.end());
      failed_moves.insert(failed_moves.end(), after.failed.begin(), after.failed.end());
    }
    unlink(path.c_str());
    rmdir(path_parent(path).c_str());
  }
  sweep_lock.unlock();
  if (!failed_moves.empty()) remember_failed_moves(failed_moves);
  if (!held.empty()) rep.hold = Refusal{"held", "sandboxed commands are held: " + join(held, " ")};
  return rep;
}

std::optional<Refusal> Session::current_hold() {
  std::lock_guard<std::mutex> lock(mu_);
  // PROC-3: processes an earlier command left that could not be confirmed ended.
  std::vector<HeldProcess> still;
  for (const auto& h : record_.held)
    if (process_alive(h.pid, h.start)) still.push_back(h);
  if (still != record_.held) {
    record_.held = still;
    (void)save_record();
  }
  if (!still.empty()) {
    std::vector<int> pids;
    for (const auto& h : still) pids.push_back(h.pid);
    return Refusal{"held",
                   fmt::format("an earlier command left a process cordon could not confirm has "
                               "ended ({} {} still running), so this was not run: end {} on "
                               "this machine (`kill -9 {}`), then run any command to check "
                               "again.",
                               pids.size() == 1 ? "process" : "processes", pid_list(pids),
                               pids.size() == 1 ? "it" : "them", pid_list(pids))};
  }
  return std::nullopt;
}

ResumeReport Session::resume() {
  ResumeReport rep = sweep_leftovers(true);
  if (auto h = current_hold()) rep.hold = h;
  // SES-4: resume takes a fresh tracked set.
  {
    std::lock_guard<std::mutex> lock(mu_);
    record_.tracked_at_start = tracked_protected_now(opts_, record_.project, record_.tracked_known);
    (void)save_record();
  }
  return rep;
}

void Session::first_notices(const Plan& plan, CommandResult& res) {
  bool first;
  {
    std::lock_guard<std::mutex> lock(mu_);
    first = first_command_;
  }
  if (!first) return;
  res.notices = plan.notices;
  for (const auto& w : plan.warnings) res.notices.push_back("warning: " + w);
  if (!plan.stripped.empty() && plan.mode != SandboxMode::kExternal &&
      stripped_names_changed(plan.stripped))
    res.notices.push_back("these variables are not available to commands (ENV-4): " +
                          join(plan.stripped, ", ") + ".");
  if (opts_.on_notice)
    for (const auto& n : res.notices) opts_.on_notice(n);
}

bool Session::plan_command(const Request& r, Prepared& pc, CommandResult& res,
                           const PreCheck& check) {
  // SES-3: records left by a killed cordon are handled before anything else runs.
  ResumeReport swept = sweep_leftovers(ephemeral_);
  res.quarantined = swept.quarantined;
  for (const auto& n : swept.notes) res.notes.push_back(n);
  pc.facts = this->facts(r);
  trace("run: facts gathered");
  if (backend_.backend == Backend::kSeatbelt) {
    SeatbeltPlan sp = seatbelt_plan(r, pc.facts);
    pc.plan = std::move(sp.plan);
    pc.profile = std::move(sp.profile);
  } else {
    pc.plan = this->plan(r, pc.facts);
  }
  trace("run: planned");
  const Plan& plan = pc.plan;
  std::optional<Refusal> refusal;
  if (plan.refused()) {
    refusal = plan.refusal;
  } else if (plan.runner == Runner::kSandbox && swept.hold) {
    refusal = swept.hold;
  } else if (plan.runner == Runner::kSandbox) {
    const ProbeReport& pr = probe();
    trace("run: probe checked");
    if (!pr.ok) refusal = Refusal{"unavailable", pr.message()};  // MODE-4: fail closed
  }
  if (!refusal) return true;
  if (check) {
    if (auto refused = check()) {
      res.refusal = refused;
      return false;
    }
  }
  first_notices(plan, res);
  res.refusal = refusal;
  return false;
}

bool Session::commit_command(pid_t pid, Prepared& pc, CommandResult& res, const PreCheck& check) {
  if (check) {
    if (auto refused = check()) {
      res.refusal = refused;
      return false;
    }
    trace("run: checked");
  }
  const Plan& plan = pc.plan;
  first_notices(plan, res);
  {
    std::lock_guard<std::mutex> lock(mu_);
    first_command_ = false;
  }

  // SES-2: the leftover record, before the command starts (bwrap, started early, sets up the
  // mounts meanwhile and waits before the command until this is written).
  LeftoverRecord& lr = pc.record;
  lr.cordon_version = kCordonVersion;
  lr.session = record_.id;
  lr.project = record_.project;
  lr.sandboxed = plan.runner == Runner::kSandbox;
  lr.owner_pid = getpid();
  lr.owner_start = process_start_time(lr.owner_pid);
  lr.command = plan.argv;
  lr.started = static_cast<long long>(std::time(nullptr));
  lr.boot_id = current_boot_id();
  if (pid > 0) {
    lr.pid = pid;
    lr.pid_start = process_start_time(pid);
    lr.pgid = pid;
  }
  if (lr.sandboxed) {
    lr.snapshot = snapshot_of(pc.facts, &plan);
    lr.snapshot->dir_index = dir_index_file(opts_.folders.cache, record_.project);
    pc.watch = PlantWatch::begin(record_.project, lr.snapshot->dir_index, opts_.folders.state);
  }
  Status written = make_error("io", "not written");
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto st = make_dirs(store_.leftovers_dir(record_.id), 0700); !st.ok()) {
      written = st;
    } else {
      for (int attempt = 0; attempt < 1000; ++attempt) {
        lr.effect = ++record_.effects;
        pc.record_path = store_.leftover_path(record_.id, lr.effect);
        if (access(pc.record_path.c_str(), F_OK) == 0) continue;
        written = store_.write_leftover(lr);
        break;
      }
    }
  }
  trace("run: leftover record written");
  if (!written.ok()) {
    std::string dir = store_.leftovers_dir(record_.id);
    std::string why = written.error().sys_errno ? std::strerror(written.error().sys_errno)
                                                : written.error().message;
    if (lr.sandboxed) {
      res.refusal =
          Refusal{"refused", fmt::format("sandboxed commands are refused: cordon cannot write in "
                                         "{} ({}). Make that folder writable by you, or free "
                                         "disk space, then run the command again (SES-2).",
                                         dir, why)};
      return false;
    }
    res.notes.push_back(
        fmt::format("leftover record not written: {}; if cordon is killed while "
                    "this command runs, its processes are not reported at "
                    "resume (SES-2).",
                    why));
    pc.record_path.clear();
  }
  return true;
}

CommandResult Session::run(const Request& req, const LaunchIo& io, const PreCheck& check) {
  auto t0 = std::chrono::steady_clock::now();
  CommandResult res;
  auto finish = [&](CommandResult& out) -> CommandResult& {
    out.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
  };
  Request r = req;
  if (r.cwd.empty()) r.cwd = opts_.cwd;
  trace("run: start");
  // PROC-3: a session holding processes that may still run refuses everything.
  if (auto h = current_hold()) {
    res.refusal = h;
    res.exit_code = 125;
    return finish(res);
  }
  Prepared pc;
  Result<ProcessOutcome> outcome = make_error("internal", "not started");
  std::unique_ptr<CommandProxy> net;  // NET-7: the allowlist proxy, when the command uses it
  std::string bwrap = find_bwrap(opts_.env);
  if (backend_.backend == Backend::kBwrap && opts_.policy.mode == SandboxMode::kOn &&
      !r.outside_sandbox && !bwrap.empty()) {
    // A sandboxed command: bwrap starts now and waits for its mounts while they are planned.
    PlanOptions po;
    po.shell = shell_for_scripts();
    po.cache_folder = opts_.folders.cache;
    ProcessPart part = sandbox_process_part(opts_.policy, opts_.env, r, record_.project, po);
    LaunchIo lio = io;
    auto proxy = CommandProxy::start(part, lio, opts_.policy, opts_.home);
    if (!proxy.ok()) {
      res.refusal = Refusal{"unavailable", proxy.error().message};
      res.exit_code = 125;
      return finish(res);
    }
    net = std::move(proxy).value();
    bool prepared = false, planned = false;
    outcome = launch_sandbox_early(
        part, opts_.policy.limits, r.timeout, bwrap, opts_.folders.cache, lio,
        [&]() -> std::optional<Plan> {
          planned = true;
          if (!plan_command(r, pc, res, check)) return std::nullopt;
          return pc.plan;
        },
        [&](pid_t pid) { return prepared = commit_command(pid, pc, res, check); });
    if (!prepared) {
      if (!pc.record_path.empty()) unlink(pc.record_path.c_str());
      // bwrap could not even be started (a command line past the argument limit fails its
      // execve): the plan says why, in BUD-1's words, when it refuses.
      if (!planned && !res.refusal && plan_command(r, pc, res, check) && !outcome.ok())
        res.refusal =
            Refusal{"unavailable", "the sandbox could not start: " + outcome.error().message};
      if (!res.refusal) res.refusal = Refusal{"unavailable", "the sandbox could not start"};
      res.exit_code = 125;
      return finish(res);
    }
  } else {
    if (!plan_command(r, pc, res, check) || !commit_command(0, pc, res, check)) {
      res.exit_code = 125;
      return finish(res);
    }
    auto started = [&](pid_t pid) {
      if (pc.record_path.empty()) return;
      pc.record.pid = pid;
      pc.record.pid_start = process_start_time(pid);
      pc.record.pgid = pid;  // every command gets its own process group
      (void)store_.write_leftover(pc.record);
    };
    outcome = launch_planned(
        backend_, {pc.plan, pc.profile, pc.facts.machine.bwrap, opts_.folders.cache}, io, started);
  }
  const Plan& plan = pc.plan;
  LeftoverRecord& lr = pc.record;
  const std::string& record_path = pc.record_path;
  auto drop_record = [&] {
    if (!record_path.empty()) unlink(record_path.c_str());
  };
  if (!outcome.ok()) {
    drop_record();
    const Error& e = outcome.error();
    if (e.code == "exec") {
      res.exit_code = e.sys_errno == ENOENT ? 127 : 126;
      res.ran = true;
      res.messages.push_back(e.message);
      return finish(res);
    }
    res.refusal = Refusal{"unavailable", e.message};
    res.exit_code = 125;
    return finish(res);
  }
  trace("run: command ended");
  ProcessOutcome& o = *outcome;
  res.stdout_text = std::move(o.out);
  res.stderr_text = std::move(o.err);
  res.stdout_truncated = o.out_truncated;
  res.stderr_truncated = o.err_truncated;
  res.timed_out = o.timed_out;
  res.canceled = o.canceled;
  const bool under_bwrap = plan.runner == Runner::kSandbox && backend_.backend == Backend::kBwrap;
  if (under_bwrap && !o.bwrap_started && !o.timed_out && !o.canceled) {
    drop_record();
    // bwrap failed while setting up: nothing of the command ran. PROBE-4: its words, diagnosed.
    Diagnosis d = diagnose_sandbox_start(o.held_err + res.stderr_text, bwrap, opts_.folders);
    const std::string hint = limits_hint(plan.limits, opts_.policy.source_file);  // PROC-6
    res.refusal = Refusal{
        "unavailable",
        hint.empty() ? fmt::format("the sandbox could not start: {}. Fix: {}.", d.cause, d.fix)
                     : fmt::format("the sandbox could not start: {}. {}", d.cause, hint)};
    res.exit_code = 125;
    return finish(res);
  }
  res.ran = true;
  if (!o.not_ended.empty()) {
    // PROC-3: withhold the result and hold the session until those processes are gone. The
    // leftover record stays, so aftercare happens once they have ended.
    std::vector<HeldProcess> held;
    for (int pid : o.not_ended) held.push_back(HeldProcess{pid, process_start_time(pid)});
    {
      std::lock_guard<std::mutex> lock(mu_);
      record_.held.insert(record_.held.end(), held.begin(), held.end());
      (void)save_record();
    }
    res.withheld = true;
    res.stdout_text.clear();
    res.stderr_text.clear();
    res.refusal =
        Refusal{"held", fmt::format("cordon could not confirm that every process this command "
                                    "started has ended (process {} is still running), so its "
                                    "result is withheld and nothing else runs in this session "
                                    "until it can: end it on this machine (`kill -9 {}`), then "
                                    "run any command to check again.",
                                    pid_list(o.not_ended), pid_list(o.not_ended))};
    res.exit_code = 125;
    return finish(res);
  }
  if (o.timed_out) {
    res.exit_code = 124;
  } else if (o.canceled) {
    res.exit_code = 130;
    res.signal = 2;
  } else if (under_bwrap) {
    auto ef = exec_failure(o.held_err, plan);
    // A captured stderr (the servers) holds bwrap's line itself, first.
    const bool in_capture = o.held_err.empty() && io.err == OutputMode::kCapture &&
                            res.stderr_text.rfind("bwrap: execvp ", 0) == 0;
    if (!ef && in_capture)
      ef = exec_failure(res.stderr_text.substr(0, res.stderr_text.find('\n')), plan);
    if (ef && o.exit_code == 1) {
      res.exit_code = ef->first;
      res.messages.push_back(ef->second);
      o.held_err.clear();
      if (in_capture) {
        size_t nl = res.stderr_text.find('\n');
        res.stderr_text.erase(0, nl == std::string::npos ? std::string::npos : nl + 1);
      }
    } else {
      // bwrap reports a signal death as 128+N (PROC-5).
      res.exit_code = o.bwrap_exit_code.value_or(o.exit_code);
      if (res.exit_code > 128 && res.exit_code < 128 + 65) res.signal = res.exit_code - 128;
    }
  } else if (o.signal) {
    res.exit_code = 128 + o.signal;
    res.signal = o.signal;
  } else {
    res.exit_code = o.exit_code;
  }
  if (!o.held_err.empty()) {
    // Lines held back in case they were bwrap's own failure: they were the command's.
    if (io.err == OutputMode::kTee) {
      ssize_t w = ::write(2, o.held_err.data(), o.held_err.size());
      (void)w;
    }
    res.stderr_text = o.held_err + res.stderr_text;
  }
  if (auto n = seatbelt_failure_note(backend_, plan, o, res.stderr_text)) res.notes.push_back(*n);
  if (o.pid1_stopped)
    res.notes.push_back(
        "the sandbox's first process was stopped or traced by the command, so "
        "cordon ended the sandbox and every process in it (PROC-1).");
  if (o.output_cut)
    res.notes.push_back(
        "output cut: the command exited, but a process it started still held "
        "its output; cordon stopped reading after two seconds.");
  if (!o.escaped.empty()) {
    // NET-4: named, never killed.
    res.processes_left = o.escaped;
    res.notes.push_back(
        fmt::format("still running outside the sandbox after the command "
                    "ended: {}. They left its process group and were left "
                    "running (NET-4).",
                    pid_list(o.escaped)));
  }
  if (net) {  // NET-9: the hosts reached or refused, a note once per refused host
    res.connections = net->finish();
    for (auto& n : refusal_notes(res.connections, plan.config_file))
      res.notes.push_back(std::move(n));
  }
  std::string output = res.stderr_text + "\n" + res.stdout_text;
  if (!o.timed_out && !o.canceled) res.blocked_note = blocked_note(plan, res.exit_code, output);
  if (lr.snapshot) {
    // PROT-6, PROT-7, GIT-3, GIT-4, GIT-6, FS-10.
    AftercareOutcome after =
        run_aftercare(without_file_tool_writes(*lr.snapshot), pc.watch ? &*pc.watch : nullptr);
    res.quarantined.insert(res.quarantined.end(), after.moved.begin(), after.moved.end());
    res.notes.insert(res.notes.end(), after.notes.begin(), after.notes.end());
    if (!after.failed.empty()) remember_failed_moves(after.failed);
    if (!after.newly_unreadable.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& d : after.newly_unreadable)
        if (std::find(record_.unreadable.begin(), record_.unreadable.end(), d) ==
            record_.unreadable.end())
          record_.unreadable.push_back(d);
      (void)save_record();
    }
    if (auto n = git_stopped_short_note(plan.argv, res.exit_code, output))  // GIT-7
      res.notes.push_back(*n);
    trace("run: aftercare done");
  }
  drop_record();
  return finish(res);
}

}  // namespace cordon
