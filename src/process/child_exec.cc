// child_exec.h: the child's set-up, shared by both process primitives. POSIX calls only.
#include "process/child_exec.h"

#include <fcntl.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sys/fs_util.h"
#include "sys/open_files.h"

namespace cordon {

std::vector<ChildLimit> rlimits_of(const Limits& l) {
  std::vector<ChildLimit> lims;
  if (l.memory) lims.push_back({RLIMIT_AS, static_cast<rlim_t>(*l.memory)});
  if (l.cpu_seconds) lims.push_back({RLIMIT_CPU, static_cast<rlim_t>(*l.cpu_seconds)});
  if (l.pids) lims.push_back({RLIMIT_NPROC, static_cast<rlim_t>(*l.pids)});
  if (l.file_size) lims.push_back({RLIMIT_FSIZE, static_cast<rlim_t>(*l.file_size)});
  if (l.open_files)
    lims.push_back({RLIMIT_NOFILE, static_cast<rlim_t>(*l.open_files)});
  else if (auto started = started_open_files_limit())
    lims.push_back({RLIMIT_NOFILE, static_cast<rlim_t>(*started), true});
  return lims;
}

Status open_std_pipes(const ProcessSpec& spec, StdPipes& p) {
  if (spec.in == InputMode::kNull) {
    p.in_child = Fd(high_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC)));
    if (p.in_child.fd < 0)
      return make_error(ErrorKind::kSpawn, "opening /dev/null failed", "", errno);
  } else if (spec.in == InputMode::kData || spec.in == InputMode::kStream) {
    if (auto s = make_pipe(p.in_child, p.in_ours); !s.ok()) return s;
  }
  if (spec.out != OutputMode::kInherit)
    if (auto s = make_pipe(p.out_r, p.out_w); !s.ok()) return s;
  if (spec.err != OutputMode::kInherit)
    if (auto s = make_pipe(p.err_r, p.err_w); !s.ok()) return s;
  return ok_status();
}

ChildPlan::ChildPlan(const ProcessSpec& spec, const StdPipes& pipes)
    : env_strings_(spec.env.to_strings()), lims_(rlimits_of(spec.limits)) {
  for (const auto& a : spec.argv) argv_.push_back(const_cast<char*>(a.c_str()));
  argv_.push_back(nullptr);
  for (const auto& e : env_strings_) envp_.push_back(const_cast<char*>(e.c_str()));
  envp_.push_back(nullptr);
  for (const auto& [ours, theirs] : spec.pass_fds)
    if (theirs >= 3 && theirs < 10) exec.is_target[theirs] = true;
  exec.in_fd = pipes.in_child.fd;
  exec.out_fd = pipes.out_w.fd;
  exec.err_fd = pipes.err_w.fd;
  exec.path = spec.path.c_str();
  exec.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  exec.new_group = spec.new_process_group;
  exec.pass = spec.pass_fds.data();
  exec.npass = spec.pass_fds.size();
  exec.lims = lims_.data();
  exec.nlims = lims_.size();
  exec.cgroup_fds = spec.cgroup_procs_fds.data();
  exec.ncgroup = spec.cgroup_procs_fds.size();
  exec.namespaces = spec.join_namespaces.data();
  exec.nnamespaces = spec.join_namespaces.size();
  exec.confine = spec.confine;
  exec.confine_arg = spec.confine_arg;
  exec.argv = argv_.data();
  exec.envp = envp_.data();
}

namespace {

// JOB-2: the session's namespaces, user namespace first (joining its network namespace needs
// the capabilities held inside it). The capabilities it gives end at exec for all but root.
int join_namespaces(const ChildExec& a) {
#ifdef __linux__
  for (size_t i = 0; i < a.nnamespaces; ++i)
    if (setns(a.namespaces[i].first, a.namespaces[i].second) != 0) return -1;
  return 0;
#else
  if (a.nnamespaces) errno = ENOSYS;
  return a.nnamespaces ? -1 : 0;
#endif
}

}  // namespace

int child_exec(const ChildExec& a) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, nullptr);
  if (a.new_group) setpgid(0, 0);
  // PROC-6: join the command's cgroups first, so everything it starts is counted there.
  for (size_t i = 0; i < a.ncgroup; ++i)
    if (::write(a.cgroup_fds[i], "0", 1) != 1) return kChildCgroup;
  if (join_namespaces(a) != 0) return kChildNamespace;
  if (a.in_fd >= 0 && dup2(a.in_fd, 0) < 0) return kChildStreams;
  if (a.out_fd >= 0 && dup2(a.out_fd, 1) < 0) return kChildStreams;
  if (a.err_fd >= 0 && dup2(a.err_fd, 2) < 0) return kChildStreams;
  for (size_t i = 0; i < a.npass; ++i)
    if (dup2(a.pass[i].first, a.pass[i].second) < 0) return kChildPass;
  // Nothing else of ours reaches the command (a harness's descriptors included).
  for (int f = 3; f < 10; ++f)
    if (!a.is_target[f]) ::close(f);
  if (a.close_from_10) a.close_from_10(a);
  for (size_t i = 0; i < a.nlims; ++i) {
    struct rlimit r {
      a.lims[i].value, a.lims[i].value
    };
    if (a.lims[i].soft_only && getrlimit(a.lims[i].resource, &r) == 0)
      r.rlim_cur = std::min(a.lims[i].value, r.rlim_max);
    if (setrlimit(a.lims[i].resource, &r) < 0) return kChildLimits;
  }
  if (a.cwd && chdir(a.cwd) < 0) return kChildFolder;
  // LL-1: confined last, once nothing of the set-up needs what it takes away.
  if (a.confine && a.confine(a.confine_arg) != 0) return kChildConfine;
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(a.path, a.argv, a.envp);
  return kChildExec;
}

Error child_exec_failure(int step, int err, const std::string& path) {
  static const char* steps[] = {"joining its cgroup",
                                "joining the session's network",
                                "redirecting input and output",
                                "passing descriptors",
                                "setting limits",
                                "changing folder",
                                "starting",
                                "confining"};
  return make_error(
      step == kChildConfine ? ErrorKind::kUnavailable : ErrorKind::kExec,
      fmt::format("{} {} failed: {}", steps[std::clamp(step, 0, 7)], path, std::strerror(err)),
      path, err);
}

}  // namespace cordon
