#include "launch/seatbelt_launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>

#include "process_table/process_table.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

bool ended(int pid) {
  auto st = read_proc_stat(pid);
  if (st && st->state == 'Z') waitpid(pid, nullptr, WNOHANG);  // ours to collect (subreaper)
  return !st || st->state == 'Z';
}

}  // namespace

std::vector<int> end_escaped_processes(const std::vector<int>& pids,
                                       std::chrono::milliseconds patience) {
  for (int pid : pids) ::kill(pid, SIGKILL);
  const auto until = std::chrono::steady_clock::now() + patience;
  std::vector<int> left = pids;
  while (true) {
    left.erase(std::remove_if(left.begin(), left.end(), ended), left.end());
    if (left.empty() || std::chrono::steady_clock::now() >= until) return left;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::vector<std::string> output_terminals() {
  std::vector<std::string> out;
  for (int fd : {1, 2}) {
    if (!::isatty(fd)) continue;
    if (const char* name = ::ttyname(fd)) {
      std::string t = name;
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
    }
  }
  return out;
}

Result<ProcessOutcome> launch_seatbelt(const Plan& plan, const std::string& profile,
                                       const std::string& sandbox_exec, const LaunchIo& io,
                                       const std::function<void(pid_t)>& on_started) {
  if (plan.refused()) return make_error(ErrorKind::kRefused, plan.refusal->message);
  if (plan.runner != Runner::kSandbox || profile.empty() || plan.argv.empty())
    return make_error(ErrorKind::kInvalid, "launch_seatbelt: the plan is not a sandboxed command");
  // sandbox-exec would say so in its own words, after the profile was applied: the command is
  // looked up in the plan's PATH first, so a missing one reads as it does everywhere else.
  if (resolve_command(plan.argv[0], plan.env, plan.cwd).empty())
    return make_error(ErrorKind::kExec, plan.argv[0] + ": command not found", plan.argv[0], ENOENT);
  ProcessSpec spec = seatbelt_process_spec(plan, profile, sandbox_exec, io);
  // PROC-1 without a pid namespace: the group ends with the command; a process that left it
  // (setsid) is found by this marker in its environment, and ended too (PROC-3 if it cannot be).
  spec.marker = "CORDON_RUN=" + random_hex16();
  spec.env.set("CORDON_RUN", spec.marker.substr(11));
  auto o = run_process(spec, on_started);
  if (!o.ok() || o->escaped.empty()) return o;
  // Only what carries this command's marker: an orphan of another command that came back to
  // a subreaper cordon (Linux) is that command's, and NET-4 leaves those running.
  std::vector<int> ours, others;
  for (int pid : o->escaped) {
    auto env = read_process_environment(pid);
    bool marked = env && std::find(env->begin(), env->end(), spec.marker) != env->end();
    (marked ? ours : others).push_back(pid);
  }
  o->not_ended = end_escaped_processes(ours, std::chrono::milliseconds(3000));
  o->escaped = std::move(others);  // named, as NET-4 names them
  return o;
}

}  // namespace cordon
