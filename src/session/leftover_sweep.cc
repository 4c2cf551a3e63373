#include "session/leftover_sweep.h"

#include <dirent.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "process/process.h"
#include "process_table/process_table.h"
#include "core/paths.h"
#include "core/strings.h"
#include "host/dir_index.h"
#include "host/git_facts.h"
#include "host/path_info.h"
#include "plan/protected_list.h"
#include "plan/record_check.h"
#include "session/aftercare.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// What the sweep found so far.
struct Findings {
  ResumeReport report;
  std::vector<std::string> held, failed_moves;
};

// This session's records, and those of the project's ephemeral sessions when asked.
std::vector<std::string> records_to_sweep(const SweepScope& s) {
  std::vector<std::string> files = s.store.leftover_files(s.session_id);
  if (!s.include_other_ephemeral) return files;
  std::string root = path_join(s.folders.state, "leftovers");
  DIR* d = opendir(root.c_str());
  if (!d) return files;
  while (dirent* e = readdir(d)) {
    std::string id = e->d_name;
    if (id == "." || id == ".." || id == s.session_id) continue;
    if (!valid_session_id(id)) continue;  // not cordon's: never followed (SES-1)
    if (access(s.store.record_path(id).c_str(), F_OK) == 0) continue;  // a named session
    for (const auto& f : s.store.leftover_files(id)) files.push_back(f);
  }
  closedir(d);
  return files;
}

// What a record's snapshot must fit: the project's protected list and git folders now.
SnapshotExpectations expectations(const SweepScope& s) {
  SnapshotExpectations w;
  w.project = s.project;
  w.entries = protected_entries(s.policy);
  // Where the git folders are is all it needs: no git run, and the git facts' cache (one
  // entry per project, keyed by the protected list too) is left to the commands' own facts.
  GitDirs g = read_git_dirs(s.project);
  w.git_dir = g.git_dir;
  w.common_dir = g.common_dir;
  w.dir_index = dir_index_file(s.folders.cache, s.project);
  return w;
}

// Why a leftover record at `path` cannot be trusted (SES-3), or "". `want` is filled on first
// use.
std::string record_problem(const SweepScope& s, const LeftoverRecord& rec, const std::string& path,
                           std::optional<SnapshotExpectations>& want) {
  const std::string dir_id = path_base(path_parent(path));
  if (!valid_session_id(rec.session) || rec.session != dir_id)
    return fmt::format("its session id is not the one it is filed under ({})", dir_id);
  if (std::to_string(rec.effect) != path_base(path)) return "its effect number is not its name";
  if (rec.project != s.project) return "its project is not the session's";
  if (!rec.snapshot) return "";
  if (!want) want = expectations(s);
  return snapshot_problem(*rec.snapshot, *want);
}

// SES-3: an unreadable record holds the session; the hold lists the protected paths now in the
// project.
std::string unreadable_hold(const SweepScope& s, const std::string& path, const Error& e) {
  std::vector<std::string> present;
  for (const auto& p : protected_entries(s.policy))
    if (!p.anywhere && read_path_info(path_join(s.project, p.rel)).exists())
      present.push_back(p.rel);
  return fmt::format(
      "{} could not be read ({}), so the files that command may have planted were not "
      "checked. Protected files in the project now: {}. Remove any you did not make. "
      "Then run: rm {}",
      tilde_path(path, s.home), e.message, present.empty() ? "(none)" : join(present, ", "),
      shell_quote(path));
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

// An unconfined command's processes that may still run: named, never stopped.
void note_unconfined(const LeftoverRecord& rec, const std::string& cmd, Findings& f) {
  if (process_alive(rec.pid, rec.pid_start)) {
    std::vector<int> group = processes_in_group(rec.pgid);
    if (group.empty()) group = {rec.pid};
    f.report.notes.push_back(fmt::format(
        "still running outside the sandbox: {} ({}). They were left running.", pid_list(group),
        cmd));
  } else if (auto group = processes_in_group(rec.pgid); !group.empty()) {
    f.report.notes.push_back(fmt::format(
        "may still be running outside the sandbox: {}. The command's first process is "
        "gone, so these may belong to another program; check with `ps -p {}` before "
        "stopping one.",
        pid_list(group), join(split(pid_list(group), ' '), ",")));
  }
}

// Names the processes of a dead cordon's command; false when the record must stay (its
// sandbox still runs: a hold).
bool note_processes(const LeftoverRecord& rec, bool same_boot, Findings& f) {
  const std::string cmd = first_two_words(rec.command);
  if (rec.sandboxed) {
    if (same_boot && rec.pid > 0 && process_alive(rec.pid, rec.pid_start)) {
      f.held.push_back(fmt::format(
          "a sandbox from before cordon was killed is still running (pid {}). It ends by "
          "itself, or stop it with `kill -9 {}`; then run the command again.",
          rec.pid, rec.pid));
      return false;
    }
  } else if (same_boot && rec.pid > 0) {
    note_unconfined(rec, cmd, f);
  }
  if (rec.pid == 0)
    f.report.notes.push_back(fmt::format(
        "a command may still be running; it could not be identified. Look for it with "
        "`pgrep -fl {}`; stop any it lists that you did not start, with `kill` and its "
        "number.",
        shell_quote(cmd)));
  return true;
}

// The record at `path`, read and checked (SES-3: every field before anything is moved; a
// record that does not fit is damaged, and holds the session like an unreadable one).
Result<LeftoverRecord> checked_record(const SweepScope& s, const std::string& path, bool ours,
                                      std::optional<SnapshotExpectations>& want) {
  auto rec = read_leftover(path);
  if (rec.ok() && (ours || rec->project == s.project)) {
    std::string problem = record_problem(s, *rec, path, want);
    if (!problem.empty())
      rec = make_error(ErrorKind::kDamaged,
                       fmt::format("it does not fit this session: {}", problem), path);
  }
  return rec;
}

void sweep_record(const SweepScope& s, const std::string& path, const std::string& boot,
                  std::optional<SnapshotExpectations>& want, Findings& f) {
  const bool ours = path_within(path, s.store.leftovers_dir(s.session_id));
  auto rec = checked_record(s, path, ours, want);
  if (!rec.ok()) {
    // Listed, then removed by its own command before it could be read: that command has
    // finished with it (several commands in flight, SRV-4). Only a record still there is
    // damaged.
    if (access(path.c_str(), F_OK) != 0 && errno == ENOENT) return;
    if (!ours) return;  // another session's damaged record is that session's business
    f.held.push_back(unreadable_hold(s, path, rec.error()));
    return;
  }
  if (rec->project != s.project) return;
  if (process_alive(rec->owner_pid, rec->owner_start)) return;  // still being run
  const bool same_boot = rec->boot_id.empty() || rec->boot_id == boot;
  if (!note_processes(*rec, same_boot, f)) return;
  // Then what the interrupted command planted is moved aside (PROT-7).
  if (rec->snapshot) {
    AftercareOutcome after = run_aftercare(*rec->snapshot);
    auto& rep = f.report;
    rep.quarantined.insert(rep.quarantined.end(), after.moved.begin(), after.moved.end());
    rep.notes.insert(rep.notes.end(), after.notes.begin(), after.notes.end());
    f.failed_moves.insert(f.failed_moves.end(), after.failed.begin(), after.failed.end());
  }
  unlink(path.c_str());
  rmdir(path_parent(path).c_str());
}

}  // namespace

SweepOutcome sweep_leftovers(const SweepScope& scope) {
  Findings f;
  const std::string boot = current_boot_id();
  std::optional<SnapshotExpectations> want;  // read once, when a record has a snapshot
  for (const auto& path : records_to_sweep(scope))
    if (!scope.running || !scope.running->count(path)) sweep_record(scope, path, boot, want, f);
  if (!f.held.empty())
    f.report.hold = Refusal{ErrorKind::kHeld, "sandboxed commands are held: " + join(f.held, " ")};
  return {std::move(f.report), std::move(f.failed_moves)};
}

Refusal held_processes_refusal(const std::vector<int>& pids) {
  return Refusal{ErrorKind::kHeld,
                 fmt::format("an earlier command left a process cordon could not confirm has "
                             "ended ({} {} still running), so this was not run: end {} on "
                             "this machine (`kill -9 {}`), then run any command to check "
                             "again.",
                             pids.size() == 1 ? "process" : "processes", pid_list(pids),
                             pids.size() == 1 ? "it" : "them", pid_list(pids))};
}

std::string pid_list(const std::vector<int>& pids) {
  std::vector<std::string> s;
  for (size_t i = 0; i < pids.size() && i < 8; ++i) s.push_back(std::to_string(pids[i]));
  std::string out = join(s, " ");
  if (pids.size() > 8) out += fmt::format(" and {} more", pids.size() - 8);
  return out;
}

}  // namespace cordon
