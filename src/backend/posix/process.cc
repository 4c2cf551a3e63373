// The POSIX process primitive (backend/process.h): fork and exec, a SIGCHLD self-pipe
// (child_watch.h) to wake the poll loop, timeouts, cancel, the process group ended with the
// command, output captured or forwarded, and the marker scan for processes that left the group.
// Only POSIX calls and the process table (process_table.h): a macOS build links it, and the
// Linux tests run it too (posix_process_tests). What bwrap alone needs (its status fd, a
// sandbox pid 1) is not here: no bwrap runs where this primitive is used.
#include "backend/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <shared_mutex>

#include "backend/posix/child_watch.h"
#include "backend/posix/output_stream.h"
#include "backend/process_table.h"
#include "core/trace.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

using Clock = std::chrono::steady_clock;

void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

struct Lim {
  int resource;
  rlim_t value;
};

// What the child needs, prepared before fork: after fork in a program with threads, the child
// may only make async-signal-safe calls (no allocation).
struct ChildArgs {
  bool is_target[10] = {};
  int in_fd = -1, out_fd = -1, err_fd = -1;
  int report_fd = -1;  // the child writes {step, errno} here when it fails before exec
  const char* path = nullptr;
  const char* cwd = nullptr;
  bool new_group = false;
  const std::pair<int, int>* pass = nullptr;
  size_t npass = 0;
  const Lim* lims = nullptr;
  size_t nlims = 0;
  const int* cgroup_fds = nullptr;
  size_t ncgroup = 0;
  const int* close_fds = nullptr;  // our descriptors >= 10, to close in the child
  size_t nclose = 0;
  char** argv = nullptr;
  char** envp = nullptr;
};

[[noreturn]] void child_fail(const ChildArgs& a, int step) {
  int report[2] = {step, errno};
  ssize_t w = ::write(a.report_fd, report, sizeof report);
  (void)w;
  _exit(127);
}

[[noreturn]] void child_main(const ChildArgs& a) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, nullptr);
  if (a.new_group) setpgid(0, 0);
  for (size_t i = 0; i < a.ncgroup; ++i)
    if (::write(a.cgroup_fds[i], "0", 1) != 1) child_fail(a, 0);
  if (a.in_fd >= 0 && dup2(a.in_fd, 0) < 0) child_fail(a, 1);
  if (a.out_fd >= 0 && dup2(a.out_fd, 1) < 0) child_fail(a, 1);
  if (a.err_fd >= 0 && dup2(a.err_fd, 2) < 0) child_fail(a, 1);
  for (size_t i = 0; i < a.npass; ++i)
    if (dup2(a.pass[i].first, a.pass[i].second) < 0) child_fail(a, 2);
  // Nothing else of ours reaches the command (a harness's descriptors included).
  for (int f = 3; f < 10; ++f)
    if (!a.is_target[f]) ::close(f);
  for (size_t i = 0; i < a.nclose; ++i)
    if (a.close_fds[i] != a.report_fd) ::close(a.close_fds[i]);
  for (size_t i = 0; i < a.nlims; ++i) {
    struct rlimit r {
      a.lims[i].value, a.lims[i].value
    };
    if (setrlimit(a.lims[i].resource, &r) < 0) child_fail(a, 3);
  }
  if (a.cwd && chdir(a.cwd) < 0) child_fail(a, 4);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(a.path, a.argv, a.envp);
  child_fail(a, 5);
}

// Our open descriptors >= 10, listed before fork (/dev/fd on Linux and macOS alike); the
// child closes them, so a descriptor without close-on-exec does not reach the command.
std::vector<int> open_fds_from_10() {
  std::vector<int> out;
  DIR* d = opendir("/dev/fd");
  if (!d) {
    struct rlimit r {};
    getrlimit(RLIMIT_NOFILE, &r);
    rlim_t top = std::min<rlim_t>(r.rlim_cur, 65536);
    for (int f = 10; static_cast<rlim_t>(f) < top; ++f) out.push_back(f);
    return out;
  }
  const int own = dirfd(d);
  while (dirent* e = readdir(d)) {
    int fd = std::atoi(e->d_name);
    if (fd >= 10 && fd != own) out.push_back(fd);
  }
  closedir(d);
  return out;
}

// The processes run_process has started and not yet collected, in this cordon: another
// command's child is not an escaped process of this one (NET-4). As in the Linux primitive,
// g_spawn_mu is held across fork and registration (shared) and across the search (exclusive).
std::shared_mutex g_spawn_mu;
std::mutex g_ours_mu;
std::set<int> g_ours;

class OursRegistration {
 public:
  OursRegistration() = default;
  OursRegistration(const OursRegistration&) = delete;
  OursRegistration& operator=(const OursRegistration&) = delete;
  ~OursRegistration() {
    std::lock_guard<std::mutex> lock(g_ours_mu);
    for (int p : pids_) g_ours.erase(p);
  }
  void add(int pid) {
    std::lock_guard<std::mutex> lock(g_ours_mu);
    g_ours.insert(pid);
    pids_.push_back(pid);
  }

 private:
  std::vector<int> pids_;
};

std::vector<Lim> limits_of(const Limits& l) {
  std::vector<Lim> lims;
  if (l.memory) lims.push_back({RLIMIT_AS, static_cast<rlim_t>(*l.memory)});
  if (l.cpu_seconds) lims.push_back({RLIMIT_CPU, static_cast<rlim_t>(*l.cpu_seconds)});
  if (l.pids) lims.push_back({RLIMIT_NPROC, static_cast<rlim_t>(*l.pids)});
  if (l.file_size) lims.push_back({RLIMIT_FSIZE, static_cast<rlim_t>(*l.file_size)});
  if (l.open_files) lims.push_back({RLIMIT_NOFILE, static_cast<rlim_t>(*l.open_files)});
  return lims;
}

// The descriptors of one run: the child's ends and ours.
struct Pipes {
  Fd in_child, in_ours, out_r, out_w, err_r, err_w, report_r, report_w;
};

Status open_pipes(const ProcessSpec& spec, Pipes& p) {
  if (spec.in == InputMode::kNull) {
    p.in_child = Fd(high_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC)));
  } else if (spec.in == InputMode::kData) {
    if (auto s = make_pipe(p.in_child, p.in_ours); !s.ok()) return s;
  }
  if (spec.out != OutputMode::kInherit)
    if (auto s = make_pipe(p.out_r, p.out_w); !s.ok()) return s;
  if (spec.err != OutputMode::kInherit)
    if (auto s = make_pipe(p.err_r, p.err_w); !s.ok()) return s;
  return make_pipe(p.report_r, p.report_w);
}

// Forks and execs; returns the pid once exec succeeded, or the step that failed in words.
Result<pid_t> spawn(const ProcessSpec& spec, Pipes& p, OursRegistration& registration) {
  std::vector<std::string> env_strings = spec.env.to_strings();
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::vector<Lim> lims = limits_of(spec.limits);
  std::vector<int> close_fds = open_fds_from_10();

  ChildArgs ca;
  for (const auto& [ours, theirs] : spec.pass_fds)
    if (theirs >= 3 && theirs < 10) ca.is_target[theirs] = true;
  ca.in_fd = p.in_child.fd;
  ca.out_fd = p.out_w.fd;
  ca.err_fd = p.err_w.fd;
  ca.report_fd = p.report_w.fd;
  ca.path = spec.path.c_str();
  ca.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  ca.new_group = spec.new_process_group;
  ca.pass = spec.pass_fds.data();
  ca.npass = spec.pass_fds.size();
  ca.lims = lims.data();
  ca.nlims = lims.size();
  ca.cgroup_fds = spec.cgroup_procs_fds.data();
  ca.ncgroup = spec.cgroup_procs_fds.size();
  ca.close_fds = close_fds.data();
  ca.nclose = close_fds.size();
  ca.argv = argv.data();
  ca.envp = envp.data();

  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  trace("process: fork");
  std::shared_lock<std::shared_mutex> spawn_lock(g_spawn_mu);
  pid_t pid = fork();
  if (pid == 0) child_main(ca);
  int fork_errno = errno;
  if (pid > 0) registration.add(pid);
  spawn_lock.unlock();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) return make_error("spawn", "fork failed", "", fork_errno);
  // The parent's copy of the child's ends goes, so the report pipe ends at exec.
  p.in_child.reset();
  p.out_w.reset();
  p.err_w.reset();
  p.report_w.reset();
  int report[2] = {0, 0};
  ssize_t n;
  do n = ::read(p.report_r.fd, report, sizeof report);
  while (n < 0 && errno == EINTR);
  p.report_r.reset();
  if (n <= 0) return pid;  // exec closed the pipe: the program runs
  int st;
  waitpid(pid, &st, 0);
  static const char* steps[] = {"joining its cgroup",  "redirecting input and output",
                                "passing descriptors", "setting limits",
                                "changing folder",     "starting"};
  int step = std::clamp(report[0], 0, 5);
  return make_error(
      "exec", fmt::format("{} {} failed: {}", steps[step], spec.path, std::strerror(report[1])),
      spec.path, report[1]);
}

}  // namespace

std::optional<ProcStat> read_proc_stat(int pid) {
  auto e = read_process_entry(pid);
  if (!e) return std::nullopt;
  return ProcStat{e->state, e->ppid, e->pgrp, e->start};
}

size_t registered_children() {
  std::lock_guard<std::mutex> lock(g_ours_mu);
  return g_ours.size();
}

std::string current_boot_id() {
  static const std::string id = read_boot_id();  // fixed while this process lives
  return id;
}

Status make_pipe(Fd& r, Fd& w) {
  int p[2];
  if (::pipe(p) < 0) return make_error("spawn", "pipe failed", "", errno);
  r = Fd(high_fd(p[0]));
  w = Fd(high_fd(p[1]));
  if (r.fd < 0 || w.fd < 0)
    return make_error("spawn", "moving a pipe's descriptors failed", "", errno);
  return ok_status();
}

std::vector<int> find_marked_processes(const std::string& marker, const std::vector<int>& except) {
  std::vector<int> out;
  std::unique_lock<std::shared_mutex> spawns(g_spawn_mu);
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
    if (!entry || entry->state == 'Z') continue;
    bool found = entry->ppid == self;  // an orphan that came back to us (a subreaper)
    if (!found)
      if (auto env = read_process_environment(pid))
        found = std::find(env->begin(), env->end(), marker) != env->end();
    if (found) out.push_back(pid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<int> memfd_with(const char* name, const std::string& data) {
  // An unlinked temporary file: POSIX has no anonymous memory file.
  std::string path = fmt::format("/tmp/cordon-{}-XXXXXX", name);
  int fd = ::mkstemp(path.data());
  if (fd < 0) return make_error("spawn", "creating a temporary file failed", path, errno);
  ::unlink(path.c_str());
  fd = high_fd(fd);
  if (int e = write_fully(fd, data.data(), data.size()); e != 0) {
    ::close(fd);
    return make_error("spawn", "writing a temporary file failed", "", e);
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

namespace {

// The wait for one started child: its output, its input, its end, the deadline and cancel.
class Waiter {
 public:
  Waiter(const ProcessSpec& spec, ProcessOutcome& o, Pipes& p, pid_t pid)
      : spec_(spec), o_(o), pid_(pid), in_(std::move(p.in_ours)) {
    streams_[0] = {std::move(p.out_r), spec.out, 1, spec.capture_limit, &o.out, &o.out_truncated};
    streams_[1] = {std::move(p.err_r), spec.err, 2, spec.capture_limit, &o.err, &o.err_truncated};
    for (auto& s : streams_)
      if (s.fd.fd >= 0) set_nonblock(s.fd.fd);
    if (in_.fd >= 0) set_nonblock(in_.fd);
    if (spec.in == InputMode::kData && spec.in_data.empty()) in_.reset();
  }

  // Returns the wait status.
  int run(const ChildWatch& watch) {
    const bool has_deadline = spec_.timeout.has_value();
    const Clock::time_point deadline =
        o_.started + spec_.timeout.value_or(std::chrono::milliseconds(0));
    while (true) {
      bool streams_open = streams_[0].fd.fd >= 0 || streams_[1].fd.fd >= 0;
      if (exited_ && !streams_open) break;
      auto now = Clock::now();
      if (exited_ && now >= grace_end_) {
        o_.output_cut = streams_open;
        break;
      }
      if (!exited_ && has_deadline && now >= deadline && !killed_) {
        o_.timed_out = true;
        kill_all();
      }
      int wait_ms = -1;
      if (!exited_ && has_deadline && !killed_) wait_ms = ms_until(deadline, now);
      if (exited_) wait_ms = ms_until(grace_end_, now);
      if (!exited_ && watch.fd() < 0) wait_ms = wait_ms < 0 ? 50 : std::min(wait_ms, 50);
      if (!exited_ && killed_) wait_ms = wait_ms < 0 ? 50 : std::min(wait_ms, 50);
      poll_once(watch, wait_ms);
      if (!exited_) reap();
    }
    if (!exited_) {
      kill_all();
      waitpid(pid_, &wstatus_, 0);
      o_.ended = Clock::now();
    }
    return wstatus_;
  }

 private:
  static int ms_until(Clock::time_point t, Clock::time_point now) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count() + 1;
    return static_cast<int>(std::max<long long>(0, std::min<long long>(ms, 1 << 30)));
  }

  void kill_all() {
    if (killed_) return;
    killed_ = true;
    if (spec_.new_process_group) ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }

  void poll_once(const ChildWatch& watch, int wait_ms) {
    enum Tag { kOut, kErr, kIn, kChild, kCancel };
    std::vector<pollfd> pfds;
    std::vector<Tag> tags;
    auto add = [&](int fd, short ev, Tag t) {
      if (fd < 0) return;
      pfds.push_back({fd, ev, 0});
      tags.push_back(t);
    };
    add(streams_[0].fd.fd, POLLIN, kOut);
    add(streams_[1].fd.fd, POLLIN, kErr);
    add(in_.fd, POLLOUT, kIn);
    if (!exited_) add(watch.fd(), POLLIN, kChild);
    if (!killed_) add(spec_.cancel_fd, POLLIN, kCancel);
    int n = poll(pfds.data(), static_cast<nfds_t>(pfds.size()), wait_ms);
    for (size_t i = 0; n > 0 && i < pfds.size(); ++i) {
      if (!pfds[i].revents) continue;
      switch (tags[i]) {
        case kOut:
        case kErr:
          streams_[tags[i] == kOut ? 0 : 1].read_some(buf_, sizeof buf_);
          break;
        case kIn:
          write_input();
          break;
        case kChild:
          watch.drain();
          break;
        case kCancel:
          o_.canceled = true;
          kill_all();
          break;
      }
    }
  }

  void write_input() {
    ssize_t w = ::write(in_.fd, spec_.in_data.data() + in_off_, spec_.in_data.size() - in_off_);
    if (w > 0) in_off_ += static_cast<size_t>(w);
    if ((w < 0 && errno != EAGAIN && errno != EINTR) || in_off_ >= spec_.in_data.size())
      in_.reset();
  }

  void reap() {
    if (waitpid(pid_, &wstatus_, WNOHANG) != pid_) return;
    exited_ = true;
    o_.ended = Clock::now();
    // PROC-1 as far as a process group allows: what the command left in its group ends.
    if (spec_.end_group_on_exit && spec_.new_process_group) ::kill(-pid_, SIGKILL);
    trace("process: reaped");
    grace_end_ = o_.ended + spec_.output_grace;
  }

  const ProcessSpec& spec_;
  ProcessOutcome& o_;
  const pid_t pid_;
  Fd in_;
  posix::OutputStream streams_[2];
  size_t in_off_ = 0;
  bool exited_ = false, killed_ = false;
  int wstatus_ = 0;
  Clock::time_point grace_end_;
  char buf_[65536];
};

// NET-4: after the group was sent SIGKILL, give its members a moment to be gone, then name the
// marked processes that left it.
std::vector<int> escaped_processes(const std::string& marker, pid_t pid) {
  for (int i = 0; i < 100 && ::kill(-pid, 0) == 0; ++i) {
    while (waitpid(-pid, nullptr, WNOHANG) > 0) {
    }
    usleep(5000);
  }
  return find_marked_processes(marker, {pid});
}

}  // namespace

Result<ProcessOutcome> run_process(const ProcessSpec& spec,
                                   const std::function<void(pid_t)>& on_started) {
  ProcessOutcome o;
  OursRegistration registration;
  Pipes pipes;
  if (auto s = open_pipes(spec, pipes); !s.ok()) return s.error();
  ChildWatch watch;  // before fork: an exit at once still wakes the loop
  auto pid = spawn(spec, pipes, registration);
  if (!pid.ok()) return pid.error();
  o.pid = *pid;
  o.started = Clock::now();
  if (on_started) on_started(o.pid);
  auto waiter = std::make_unique<Waiter>(spec, o, pipes, o.pid);
  int wstatus = waiter->run(watch);
  if (!spec.marker.empty()) o.escaped = escaped_processes(spec.marker, o.pid);
  if (WIFEXITED(wstatus)) o.exit_code = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) o.signal = WTERMSIG(wstatus);
  return o;
}

}  // namespace cordon
