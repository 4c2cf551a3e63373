#include "session/session.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "core/fs_util.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "host/facts_reader.h"
#include "host/path_info.h"
#include "session/aftercare.h"
#include "plan/aftercare_rules.h"
#include "plan/blocked_note.h"
#include "plan/planner.h"

namespace cordon {

namespace {

bool valid_id(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) return false;
  return true;
}

std::string shell_for_scripts() {
  return access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh";
}

// bwrap reports a command it could not start as "bwrap: execvp NAME: REASON".
std::optional<std::pair<int, std::string>> exec_failure(const std::string& held,
                                                        const std::string& argv0) {
  std::string prefix = "bwrap: execvp " + argv0 + ": ";
  size_t p = held.find(prefix);
  if (p == std::string::npos) return std::nullopt;
  std::string reason = trim(held.substr(p + prefix.size()));
  reason = reason.substr(0, reason.find('\n'));
  if (reason == "No such file or directory")
    return std::make_pair(127, argv0 + ": command not found");
  return std::make_pair(126, argv0 + ": cannot run it (" + reason + ")");
}

}  // namespace

Result<std::unique_ptr<Session>> Session::open(SessionOptions opts) {
  std::unique_ptr<Session> s(new Session(std::move(opts)));
  if (auto st = s->prepare(); !st.ok()) return st.error();
  return s;
}

Status Session::prepare() {
  std::string project = opts_.project.empty() ? find_project_root(opts_.cwd) : opts_.project;
  project_ = real_or_lexical(project);
  struct stat st;
  if (stat(project_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return make_error("invalid", fmt::format("the project folder {} does not exist", project_),
                      project_);
  if (!opts_.id.empty() && !valid_id(opts_.id))
    return make_error("invalid",
                      fmt::format("\"{}\" is not a session id: use letters, digits, '-' and '_' "
                                  "(up to 64)",
                                  opts_.id));
  id_ = opts_.id.empty() ? random_hex16() : opts_.id;
  const std::string& cache = opts_.folders.cache;
  if (opts_.policy.mode == SandboxMode::kOn) {
    tmp_ = path_join(cache, "sandbox-tmp/" + id_);
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
    (void)make_dirs(empty_dir_, 0755);
    struct stat fs;
    if (stat(empty_file_.c_str(), &fs) != 0 || fs.st_size != 0)
      (void)write_file_atomic(empty_file_, "", false, 0444);
    chmod(empty_dir_.c_str(), 0555);
    chmod(empty_file_.c_str(), 0444);
    // A writable path that does not exist yet is made, so the command can use it.
    for (const auto& w : opts_.policy.writable) (void)make_dirs(expand_home(w, opts_.home), 0700);
  }
  return ok_status();
}

Session::~Session() {
  if (opts_.ephemeral && !tmp_.empty()) (void)remove_tree(tmp_);
}

namespace {
std::string blocked_file(const Folders& folders, const std::string& project) {
  return path_join(folders.state, fmt::format("blocked/{:016x}.json",
                                              std::hash<std::string>{}(project)));
}
}  // namespace

std::vector<std::string> Session::pending_quarantine() const {
  std::vector<std::string> out;
  auto text = read_file(blocked_file(opts_.folders, project_), 1 << 20);
  if (!text.ok()) return out;
  try {
    for (const auto& p : nlohmann::json::parse(*text).at("paths")) {
      std::string path = p.get<std::string>();
      if (read_path_info(path).exists()) out.push_back(path);  // lifts once it is gone
    }
  } catch (...) {
  }
  return out;
}

void Session::remember_failed_moves(const std::vector<std::string>& failed) {
  std::vector<std::string> all = pending_quarantine();
  for (const auto& f : failed)
    if (std::find(all.begin(), all.end(), f) == all.end()) all.push_back(f);
  std::string file = blocked_file(opts_.folders, project_);
  if (all.empty()) {
    unlink(file.c_str());
    return;
  }
  (void)make_dirs(path_parent(file), 0700);
  nlohmann::json j;
  j["project"] = project_;
  j["paths"] = all;
  (void)write_file_atomic(file, j.dump(), true);
}

Facts Session::facts(const Request& req) const {
  FactsInput in;
  in.env = opts_.env;
  in.folders = opts_.folders;
  in.home = opts_.home;
  in.cwd = opts_.cwd;
  in.project = project_;
  in.session_id = id_;
  in.session_tmp = tmp_;
  in.empty_file = empty_file_;
  in.empty_dir = empty_dir_;
  in.network = req.network && opts_.policy.mode == SandboxMode::kOn && !req.outside_sandbox;
  Facts f = gather_facts(opts_.policy, in);
  f.pending_quarantine = pending_quarantine();
  for (const auto& d : unreadable_)
    if (read_path_info(path_join(project_, d)).exists()) f.unreadable_dirs.push_back(d);
  return f;
}

Plan Session::plan(const Request& req, const Facts& facts) const {
  PlanOptions po;
  po.shell = shell_for_scripts();
  return make_plan(opts_.policy, facts, req, po);
}

const ProbeReport& Session::probe() {
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

CommandResult Session::run(const Request& req, const LaunchIo& io) {
  auto t0 = std::chrono::steady_clock::now();
  CommandResult res;
  Request r = req;
  if (r.cwd.empty()) r.cwd = opts_.cwd;
  trace("run: start");
  Facts facts = this->facts(r);
  trace("run: facts gathered");
  Plan plan = this->plan(r, facts);
  trace("run: planned");
  if (first_command_) {
    res.notices = plan.notices;
    for (const auto& w : plan.warnings) res.notices.push_back("warning: " + w);
    if (!plan.stripped.empty() && plan.mode != SandboxMode::kExternal)
      res.notices.push_back("these variables are not available to commands (ENV-4): " +
                            join(plan.stripped, ", ") + ".");
    if (opts_.on_notice)
      for (const auto& n : res.notices) opts_.on_notice(n);
  }
  auto finish = [&](CommandResult& out) -> CommandResult& {
    out.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
  };
  if (plan.refused()) {
    res.refusal = plan.refusal;
    res.exit_code = 125;
    return finish(res);
  }
  first_command_ = false;
  Result<ProcessOutcome> outcome = make_error("internal", "not started");
  std::optional<ProtectedSnapshot> before;
  if (plan.runner == Runner::kSandbox) before = snapshot_of(facts, &plan);
  if (plan.runner == Runner::kSandbox) {
    const ProbeReport& pr = probe();
    trace("run: probe checked");
    if (!pr.ok) {
      res.refusal = Refusal{"unavailable", pr.message()};
      res.exit_code = 125;
      return finish(res);
    }
    outcome = launch_sandbox(plan, facts.machine.bwrap, opts_.folders.cache, io);
  } else {
    outcome = launch_unconfined(plan, io);
  }
  if (!outcome.ok()) {
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
  if (plan.runner == Runner::kSandbox && !o.bwrap_started && !o.timed_out && !o.canceled) {
    // bwrap failed while setting up: nothing of the command ran.
    res.refusal = Refusal{"unavailable",
                          "the sandbox could not start: " + trim(o.held_err + res.stderr_text)};
    res.exit_code = 125;
    return finish(res);
  }
  res.ran = true;
  if (o.timed_out) {
    res.exit_code = 124;
  } else if (o.canceled) {
    res.exit_code = 130;
    res.signal = 2;
  } else if (plan.runner == Runner::kSandbox) {
    auto ef = exec_failure(o.held_err, plan.argv[0]);
    if (ef && o.exit_code == 1) {
      res.exit_code = ef->first;
      res.messages.push_back(ef->second);
      o.held_err.clear();
    } else {
      // bwrap reports a signal death as 128+N (PROC-5).
      res.exit_code = o.bwrap_exit_code.value_or(o.exit_code);
      if (res.exit_code > 128 && res.exit_code < 128 + 65) res.signal = res.exit_code - 128;
    }
  } else {
    if (o.signal) {
      res.exit_code = 128 + o.signal;
      res.signal = o.signal;
    } else {
      res.exit_code = o.exit_code;
    }
  }
  if (!o.held_err.empty()) {
    // Lines held back in case they were bwrap's own failure: they were the command's.
    if (io.err == OutputMode::kTee) {
      ssize_t w = ::write(2, o.held_err.data(), o.held_err.size());
      (void)w;
    }
    res.stderr_text = o.held_err + res.stderr_text;
  }
  if (o.output_cut)
    res.notes.push_back("output cut: the command exited, but a process it started still held "
                        "its output; cordon stopped reading after two seconds.");
  std::string output = res.stderr_text + "\n" + res.stdout_text;
  if (!o.timed_out && !o.canceled) res.blocked_note = blocked_note(plan, res.exit_code, output);
  if (before) {
    // PROT-6, PROT-7, GIT-3, GIT-4, GIT-6, FS-10.
    AftercareOutcome after = run_aftercare(*before);
    res.quarantined = std::move(after.moved);
    res.notes.insert(res.notes.end(), after.notes.begin(), after.notes.end());
    if (!after.failed.empty()) remember_failed_moves(after.failed);
    for (const auto& d : after.newly_unreadable)
      if (std::find(unreadable_.begin(), unreadable_.end(), d) == unreadable_.end())
        unreadable_.push_back(d);
    if (auto n = git_stopped_short_note(plan.argv, res.exit_code, output))  // GIT-7
      res.notes.push_back(*n);
    trace("run: aftercare done");
  }
  return finish(res);
}

}  // namespace cordon
