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

#include "net/linux/command_proxy.h"
#include "launch/seatbelt_launcher.h"
#include "launch/sandbox_exec_probe.h"
#include "process_table/process_table.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "core/version.h"
#include "host/facts_reader.h"
#include "host/file_open.h"
#include "host/git_facts.h"
#include "host/path_info.h"
#include "host/path_resolver.h"
#include "plan/aftercare_rules.h"
#include "plan/blocked_note.h"
#include "plan/hidden_list.h"
#include "plan/planner.h"
#include "plan/protected_list.h"
#include "plan/run_decisions.h"
#include "session/aftercare.h"
#include "session/backend_launch.h"
#include "sys/fs_util.h"
#include "sys/open_files.h"

namespace cordon {

namespace {

std::string shell_for_scripts() { return access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh"; }

// The command as a person reads it, for NET-10's questions.
std::string command_line(const Request& req) {
  return req.script ? *req.script : shell_join(req.argv);
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
  // As the command's facts read them (host/facts_reader.cc), so that both share the cache.
  if (!o.folders.cache.empty())
    gi.nested_git = indexed_nested_git(dir_index_file(o.folders.cache, project), project);
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
  for (int pid : list_pids()) {
    auto e = read_process_entry(pid);
    if (e && e->state != 'Z' && e->pgrp == pgid) out.push_back(pid);
  }
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
  // A path is read by the system up to its first NUL: the rest would go unseen (issue 15).
  for (const auto& [what, path] :
       {std::pair{"project folder", &opts_.project}, std::pair{"working folder", &opts_.cwd}})
    if (path->find('\0') != std::string::npos)
      return make_error("invalid", fmt::format("the {} \"{}…\" holds a NUL byte. Fix: remove it.",
                                               what, path->substr(0, path->find('\0'))));
  auto backend = choose_backend(opts_.env);  // MAC-5: the one place the backend is chosen
  if (!backend.ok()) return backend.error();
  backend_ = *backend;
  connections_ = std::make_shared<ConnectionBudget>(
      session_connection_limit(opts_.max_session_connections, open_files_limit()));
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
    if (auto r = make_dirs(tmp_, 0700); !r.ok()) {
      // PROBE-4 (issue 28): a folder of the user's own that refuses a write: another sandbox.
      struct stat cs;
      const int err = r.error().sys_errno;
      const bool owned = ::stat(cache.c_str(), &cs) == 0 && cs.st_uid == ::geteuid();
      const std::string outer = outer_sandbox_note(
          opts_.env, "", owned && (err == EROFS || err == EACCES || err == EPERM));
      return make_error(
          "io",
          outer.empty() ? fmt::format("cannot create the session's private /tmp at {} ({}). Fix: "
                                      "make {} writable by you.",
                                      tmp_, std::strerror(err), cache)
                        : fmt::format("cannot create the session's private /tmp at {} ({}): {}.",
                                      tmp_, std::strerror(err), outer),
          tmp_, err);
    }
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
  mtime_ns = timespec_ns(stat_mtime(st));
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
  keep_tracked_since_start(f, !ephemeral_, tracked_known, tracked_at_start);
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
  return plan_with(req, facts, nullptr);
}

Plan Session::plan_with(const Request& req, const Facts& facts, const ProcessPart* part) const {
  PlanOptions po;
  po.shell = shell_for_scripts();
  po.process = part;
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
  // ENV-4 "on first use": the list is said again only when it names something new.
  // Issue 28: the agent's own provider key is left unsaid (it is still stripped).
  const std::vector<std::string> unsaid = agents_own_keys(opts_.env);
  std::vector<std::string> said;
  for (const auto& n : plan.stripped)
    if (std::find(unsaid.begin(), unsaid.end(), n) == unsaid.end()) said.push_back(n);
  res.notices = start_notices(
      plan, strips_variables(plan) && !said.empty() && stripped_names_changed(said), {}, unsaid);
  if (opts_.on_notice)
    for (const auto& n : res.notices) opts_.on_notice(n);
}

// One command, step by step (the steps follow, in this order).
CommandResult Session::run(const Request& req, const LaunchIo& io, const PreCheck& check) {
  Command c(req, io, check);
  if (c.req.cwd.empty()) c.req.cwd = opts_.cwd;
  trace("run: start");
  if (auto h = current_hold()) return refused(c, *h);  // PROC-3: a held session runs nothing
  // bwrap starts now and waits for its mounts while they are planned; NET-7's proxy with it.
  if (auto r = start_sandbox_early(c)) return refused(c, *r);
  plan_command(c);         // SES-3's leftovers first, then facts and plan
  if (auto r = refusal_before_start(c)) return refused(c, *r);  // plan, holds, probe, CMD-4
  if (auto r = hand_over(c)) return refused(c, *r);             // the mounts, to the early bwrap
  if (auto r = command_policy(c)) return refused(c, *r);        // CMD-4, while bwrap sets up
  show_first_notices(c);
  if (auto r = write_record(c)) return refused(c, *r);  // SES-2, before the command starts
  Result<ProcessOutcome> outcome = launch(c);  // the early bwrap released, or the plan started
  trace("run: command ended");
  if (!outcome.ok()) return launch_error(c, outcome.error());  // 126, 127 or unavailable
  ProcessOutcome& o = *outcome;
  take_output(c, o);
  if (auto r = setup_failure(c, o)) return refused(c, *r);  // nothing of the command ran
  c.res.ran = true;
  if (!o.not_ended.empty()) return withhold(c, o);  // PROC-3
  set_exit_status(c, o);
  add_outcome_notes(c, o);
  aftercare(c);  // PROT-6, PROT-7, GIT-3..GIT-7, FS-10
  if (!c.record_path.empty()) unlink(c.record_path.c_str());
  return finish(c);
}

void Session::take_output(Command& c, ProcessOutcome& o) {
  c.res.stdout_text = std::move(o.out);
  c.res.stderr_text = std::move(o.err);
  c.res.stdout_truncated = o.out_truncated;
  c.res.stderr_truncated = o.err_truncated;
  c.res.timed_out = o.timed_out;
  c.res.canceled = o.canceled;
}

bool Session::under_bwrap(const Command& c) const {
  return c.plan.runner == Runner::kSandbox && backend_.backend == Backend::kBwrap;
}

std::optional<Refusal> Session::start_sandbox_early(Command& c) {
  c.bwrap = find_bwrap(opts_.env);
  if (backend_.backend != Backend::kBwrap || opts_.policy.mode != SandboxMode::kOn ||
      c.req.outside_sandbox || c.bwrap.empty())
    return std::nullopt;
  PlanOptions po;
  po.shell = shell_for_scripts();
  po.cache_folder = opts_.folders.cache;
  c.part = sandbox_process_part(opts_.policy, opts_.env, c.req, record_.project, po);
  // NET-7: the allowlist proxy, when the command uses it (its stage goes first in the sandbox).
  HostAsk ask;
  if (opts_.ask_host)
    ask = [f = opts_.ask_host, text = command_line(c.req), fd = c.io.cancel_fd](
              const std::string& hp, const std::string& warning) {
      return f(text, hp, warning, fd);
    };
  auto proxy = CommandProxy::start(*c.part, c.io, opts_.policy, opts_.home, std::move(ask),
                                   connections_);
  if (!proxy.ok()) return Refusal{"unavailable", proxy.error().message};
  c.net = std::move(proxy).value();
  auto early = PendingSandbox::start(*c.part, opts_.policy.limits, c.req.timeout, c.bwrap,
                                     opts_.folders.cache, c.io);
  // A command line past the argument limit fails bwrap's execve: the plan says why, in BUD-1's
  // words, when it refuses.
  if (early.ok())
    c.early.emplace(std::move(*early));
  else
    c.early_failure = early.error().message;
  return std::nullopt;
}

void Session::plan_command(Command& c) {
  ResumeReport swept = sweep_leftovers(ephemeral_);
  c.res.quarantined = swept.quarantined;
  for (const auto& n : swept.notes) c.res.notes.push_back(n);
  c.hold = swept.hold;
  c.facts = this->facts(c.req);
  trace("run: facts gathered");
  if (backend_.backend == Backend::kSeatbelt) {
    SeatbeltPlan sp = seatbelt_plan(c.req, c.facts);
    c.plan = std::move(sp.plan);
    c.profile = std::move(sp.profile);
  } else {
    c.plan = plan_with(c.req, c.facts, c.part ? &*c.part : nullptr);
  }
  trace("run: planned");
}

std::optional<Refusal> Session::refusal_before_start(Command& c) {
  RefusalCandidates rc;
  rc.sandboxed = c.plan.runner == Runner::kSandbox;
  rc.plan = c.plan.refusal;
  if (!rc.plan && c.early_failure)
    rc.plan = Refusal{"unavailable", "the sandbox could not start: " + *c.early_failure};
  rc.hold = c.hold;
  if (rc.sandboxed && !rc.plan && !rc.hold) {
    const ProbeReport& pr = probe();
    trace("run: probe checked");
    if (!pr.ok) rc.probe = Refusal{"unavailable", pr.message()};  // MODE-4: fail closed
  }
  if (!first_refusal(rc)) return std::nullopt;
  if (c.check) rc.command_policy = c.check();  // asked once: here, or in command_policy()
  if (!rc.command_policy) first_notices(c.plan, c.res);
  return first_refusal(rc);
}

std::optional<Refusal> Session::hand_over(Command& c) {
  if (!c.early) return std::nullopt;
  auto st = c.early->hand_over(c.plan);
  if (st.ok()) return std::nullopt;
  if (st.error().code == "invalid") return Refusal{"invalid", st.error().message};
  return Refusal{"unavailable", "the sandbox could not start: " + st.error().message};
}

std::optional<Refusal> Session::command_policy(Command& c) {
  if (!c.check) return std::nullopt;
  std::optional<Refusal> r = c.check();
  trace("run: checked");
  return r;
}

void Session::show_first_notices(Command& c) {
  first_notices(c.plan, c.res);
  std::lock_guard<std::mutex> lock(mu_);
  first_command_ = false;
}

// SES-2: the leftover record, before the command starts (an early bwrap sets up the mounts
// meanwhile, and waits before the command until this is written).
std::optional<Refusal> Session::write_record(Command& c) {
  LeftoverOwner owner{kCordonVersion,     record_.id,       record_.project, getpid(), 0,
                      std::time(nullptr), current_boot_id()};
  owner.owner_start = process_start_time(owner.owner_pid);
  LeftoverRecord& lr = c.record;
  lr = leftover_record(c.plan, owner);
  if (c.early) record_started(lr, c.early->pid(), process_start_time(c.early->pid()));
  if (lr.sandboxed) {
    lr.snapshot = snapshot_of(c.facts, &c.plan);
    lr.snapshot->dir_index = dir_index_file(opts_.folders.cache, record_.project);
    c.watch = PlantWatch::begin(record_.project, lr.snapshot->dir_index, opts_.folders.state);
  }
  Status written = make_error("io", "not written");
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto st = make_dirs(store_.leftovers_dir(record_.id), 0700); !st.ok()) {
      written = st;
    } else {
      for (int attempt = 0; attempt < 1000; ++attempt) {
        lr.effect = ++record_.effects;
        c.record_path = store_.leftover_path(record_.id, lr.effect);
        if (access(c.record_path.c_str(), F_OK) == 0) continue;
        written = store_.write_leftover(lr);
        break;
      }
    }
  }
  trace("run: leftover record written");
  if (written.ok()) return std::nullopt;
  const std::string why = written.error().sys_errno ? std::strerror(written.error().sys_errno)
                                                    : written.error().message;
  if (lr.sandboxed)
    return Refusal{"refused", fmt::format("sandboxed commands are refused: cordon cannot write in "
                                          "{} ({}). Make that folder writable by you, or free "
                                          "disk space, then run the command again (SES-2).",
                                          store_.leftovers_dir(record_.id), why)};
  c.res.notes.push_back(
      fmt::format("leftover record not written: {}; if cordon is killed while "
                  "this command runs, its processes are not reported at "
                  "resume (SES-2).",
                  why));
  c.record_path.clear();
  return std::nullopt;
}

Result<ProcessOutcome> Session::launch(Command& c) {
  if (c.early) {
    if (auto st = c.early->release(); !st.ok()) return st.error();
    return c.early->wait();
  }
  auto started = [&](pid_t pid) {
    if (c.record_path.empty()) return;
    record_started(c.record, pid, process_start_time(pid));
    (void)store_.write_leftover(c.record);
  };
  return launch_planned(backend_, {c.plan, c.profile, c.facts.machine.bwrap, opts_.folders.cache},
                        c.io, started);
}

CommandResult Session::launch_error(Command& c, const Error& e) {
  if (!c.record_path.empty()) unlink(c.record_path.c_str());
  if (e.code != "exec") return refused(c, Refusal{"unavailable", e.message});
  c.res.exit_code = e.sys_errno == ENOENT ? 127 : 126;  // RES-4
  c.res.ran = true;
  c.res.messages.push_back(e.message);
  return finish(c);
}

// bwrap failed while setting up: nothing of the command ran. PROBE-4: its words, diagnosed.
std::optional<Refusal> Session::setup_failure(Command& c, const ProcessOutcome& o) {
  if (!under_bwrap(c) || o.timed_out || o.canceled) return std::nullopt;
  // PROBE-4 (issue 28): bwrap reports its child before it brings up loopback; a failure there
  // ("bwrap: loopback: Failed ...", status 1, nothing else said) is still the sandbox's.
  const bool loopback = o.bwrap_started && o.exit_code == 1 &&
                        o.held_err.rfind("bwrap: loopback: ", 0) == 0 &&
                        c.res.stdout_text.empty();
  // PROC-6: so is a sandbox pid 1 that cannot fork the command (a process limit met once it
  // is in its cgroup): nothing of the command ran.
  const bool pid1_failed = o.bwrap_started &&
                           (starts_with(o.held_err, "bwrap: Can't fork for pid 1") ||
                            starts_with(c.res.stderr_text, "bwrap: Can't fork for pid 1"));
  if (o.bwrap_started && !loopback && !pid1_failed) return std::nullopt;
  const std::string outer = outer_sandbox_note(opts_.env, o.held_err + c.res.stderr_text, false);
  if (!outer.empty())
    return Refusal{"unavailable",
                   fmt::format("the sandbox could not start: {}{}", outer,
                               o.held_err.empty() ? std::string(".")
                                                  : " (bwrap said: " + trim(o.held_err) + ").")};
  Diagnosis d = diagnose_sandbox_start(o.held_err + c.res.stderr_text, c.bwrap, opts_.folders);
  const std::string hint = limits_hint(c.plan.limits, opts_.policy.source_file);  // PROC-6
  return Refusal{"unavailable",
                 hint.empty() ? fmt::format("the sandbox could not start: {}. "
                                            "Fix: {}.",
                                            d.cause, d.fix)
                              : fmt::format("the sandbox could not start: {}. {}", d.cause, hint)};
}

// PROC-3: the result is withheld and the session held until those processes are gone. The
// leftover record stays, so aftercare happens once they have ended.
CommandResult Session::withhold(Command& c, const ProcessOutcome& o) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int pid : o.not_ended) record_.held.push_back(HeldProcess{pid, process_start_time(pid)});
    (void)save_record();
  }
  c.res.withheld = true;
  c.res.stdout_text.clear();
  c.res.stderr_text.clear();
  c.res.refusal =
      Refusal{"held", fmt::format("cordon could not confirm that every process this command "
                                  "started has ended (process {} is still running), so its "
                                  "result is withheld and nothing else runs in this session "
                                  "until it can: end it on this machine (`kill -9 {}`), then "
                                  "run any command to check again.",
                                  pid_list(o.not_ended), pid_list(o.not_ended))};
  c.res.exit_code = 125;
  return finish(c);
}

void Session::set_exit_status(Command& c, ProcessOutcome& o) {
  CommandResult& res = c.res;
  std::optional<ExecFailure> ef;
  bool in_capture = false;
  if (under_bwrap(c) && !o.timed_out && !o.canceled && o.exit_code == 1) {
    // RES-4: bwrap's own "execvp" line; a captured stderr (the servers) holds it first.
    auto reason = bwrap_exec_reason(o.held_err, c.plan.argv[0]);
    in_capture = o.held_err.empty() && c.io.err == OutputMode::kCapture &&
                 res.stderr_text.rfind("bwrap: execvp ", 0) == 0;
    if (!reason && in_capture)
      reason =
          bwrap_exec_reason(res.stderr_text.substr(0, res.stderr_text.find('\n')), c.plan.argv[0]);
    if (reason)
      ef = exec_failure(c.plan.argv[0], *reason,
                        *reason != "Permission denied" ||
                            !find_command(c.plan.argv[0], c.plan.env, c.plan.cwd).path.empty());
  }
  if (ef) {
    res.exit_code = ef->code;
    res.messages.push_back(ef->message);
    o.held_err.clear();
    if (in_capture) {
      size_t nl = res.stderr_text.find('\n');
      res.stderr_text.erase(0, nl == std::string::npos ? std::string::npos : nl + 1);
    }
  } else {
    ExitStatus s = exit_status(ExitFacts{o.timed_out, o.canceled, under_bwrap(c), o.exit_code,
                                         o.signal, o.bwrap_exit_code});
    res.exit_code = s.code;
    res.signal = s.signal;
  }
  if (o.held_err.empty()) return;
  // Lines held back in case they were bwrap's own failure: they were the command's.
  if (c.io.err == OutputMode::kTee) {
    ssize_t w = ::write(2, o.held_err.data(), o.held_err.size());
    (void)w;
  }
  res.stderr_text = o.held_err + res.stderr_text;
}

void Session::add_outcome_notes(Command& c, const ProcessOutcome& o) {
  CommandResult& res = c.res;
  if (auto n = seatbelt_failure_note(backend_, c.plan, o, res.stderr_text)) res.notes.push_back(*n);
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
  if (c.net) {  // NET-9: the hosts reached or refused, a note once per refused host
    res.connections = c.net->finish();
    for (auto& n : refusal_notes(res.connections, c.plan.config_file))
      res.notes.push_back(std::move(n));
  }
  if (!o.timed_out && !o.canceled)
    res.blocked_note =
        blocked_note(c.plan, res.exit_code, res.stderr_text + "\n" + res.stdout_text);
}

void Session::aftercare(Command& c) {
  if (!c.record.snapshot) return;
  CommandResult& res = c.res;
  AftercareOutcome after =
      run_aftercare(without_file_tool_writes(*c.record.snapshot), c.watch ? &*c.watch : nullptr);
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
  const std::string output = res.stderr_text + "\n" + res.stdout_text;
  if (auto n = git_stopped_short_note(c.plan.argv, res.exit_code, output))  // GIT-7
    res.notes.push_back(*n);
  trace("run: aftercare done");
}

// Nothing of the command runs (or ran): an early bwrap is given up, the record removed.
CommandResult Session::refused(Command& c, const Refusal& r) {
  if (c.early) c.early->abort();
  if (!c.record_path.empty()) unlink(c.record_path.c_str());
  c.res.refusal = r;
  c.res.exit_code = 125;
  return finish(c);
}

CommandResult Session::finish(Command& c) {
  c.res.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c.t0).count();
  return std::move(c.res);
}

}  // namespace cordon
