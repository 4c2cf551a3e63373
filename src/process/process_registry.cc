// process_registry.h, and what process/process.h declares around it: ProcessRegistration,
// registered_children, find_marked_processes, read_proc_stat, current_boot_id. POSIX calls and
// the process table (process_table/process_table.h) only.
#include "process/process_registry.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "process/process.h"
#include "process_table/process_table.h"

namespace cordon {

namespace {

// The processes run_process has started and not yet collected, and the sandboxes' pid 1s, in
// this cordon. With several commands in flight (SRV-4), another command's bwrap, git or judge
// is also a child of ours: the search for escaped processes must not name them.
std::mutex g_ours_mu;
std::set<int> g_ours;

}  // namespace

std::shared_mutex& spawn_mutex() {
  static std::shared_mutex mu;
  return mu;
}

ProcessRegistration::~ProcessRegistration() {
  if (pids_.empty()) return;
  std::lock_guard<std::mutex> lock(g_ours_mu);
  for (int p : pids_) g_ours.erase(p);
}

void ProcessRegistration::add(int pid) {
  std::lock_guard<std::mutex> lock(g_ours_mu);
  g_ours.insert(pid);
  pids_.push_back(pid);
}

size_t registered_children() {
  std::lock_guard<std::mutex> lock(g_ours_mu);
  return g_ours.size();
}

std::vector<int> find_marked_processes(const std::string& marker, const std::vector<int>& except) {
  std::vector<int> out;
  std::unique_lock<std::shared_mutex> spawns(spawn_mutex());
  std::set<int> ours;
  {
    std::lock_guard<std::mutex> lock(g_ours_mu);
    ours = g_ours;
  }
  const int self = getpid();
  for (int pid : list_pids()) {
    if (pid == self || ours.count(pid)) continue;  // ours: another command's, still running
    if (std::find(except.begin(), except.end(), pid) != except.end()) continue;
    auto entry = read_process_entry(pid);
    if (!entry) continue;
    if (entry->state == 'Z') {
      // An orphan that came back to us (a subreaper, on Linux) and has ended: nobody else
      // waits for it, and a long-lived server must not collect zombies.
      int status;
      if (entry->ppid == self) waitpid(pid, &status, WNOHANG);
      continue;
    }
    bool found = entry->ppid == self;  // an orphan of the command, come back to us
    if (!found)
      if (auto env = read_process_environment(pid))
        found = std::find(env->begin(), env->end(), marker) != env->end();
    if (found) out.push_back(pid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> escaped_processes(const std::string& marker, int pgid) {
  for (int i = 0; i < 100 && ::kill(-pgid, 0) == 0; ++i) {
    while (waitpid(-pgid, nullptr, WNOHANG) > 0) {
    }
    usleep(5000);
  }
  return find_marked_processes(marker, {pgid});
}

std::optional<ProcStat> read_proc_stat(int pid) {
  auto e = read_process_entry(pid);
  if (!e) return std::nullopt;
  return ProcStat{e->state, e->ppid, e->pgrp, e->start};
}

std::string current_boot_id() {
  static const std::string id = read_boot_id();  // fixed while this process lives
  return id;
}

}  // namespace cordon
