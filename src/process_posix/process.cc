// The POSIX process primitive (process/process.h): fork and exec, a SIGCHLD self-pipe
// (child_watch.h) to wake the poll loop, timeouts, cancel, the process group ended with the
// command, output captured or forwarded, and the marker scan for processes that left the group.
// Only POSIX calls and the process table (process_table.h): a macOS build links it, and the
// Linux tests run it too (posix_process_tests). What bwrap alone needs (its status fd, a
// sandbox pid 1) is not here: no bwrap runs where this primitive is used.
#include "process/process.h"

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
#include <shared_mutex>

#include "core/trace.h"
#include "process/child_exec.h"
#include "process/output_stream.h"
#include "process/process_registry.h"
#include "process_posix/child_watch.h"
#include "process_table/process_table.h"
#include "sys/fs_util.h"
#include "sys/poll_set.h"

namespace cordon {

namespace {

using Clock = std::chrono::steady_clock;

void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// The child's side: every step of child_exec, or {step, errno} written on the report pipe.
[[noreturn]] void child_main(const ChildExec& a) {
  int step = child_exec(a);
  int report[2] = {step, errno};
  ssize_t w = ::write(a.report_fd, report, sizeof report);
  (void)w;
  _exit(127);
}

// Closes the descriptors listed before fork, but the report pipe.
void close_listed(const ChildExec& a) {
  for (size_t i = 0; i < a.nclose; ++i)
    if (a.close_fds[i] != a.report_fd) ::close(a.close_fds[i]);
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

// The descriptors of one run: the child's ends and ours, and the pipe that reports a failure
// before exec.
struct Pipes : StdPipes {
  Fd report_r, report_w;
};

Status open_pipes(const ProcessSpec& spec, Pipes& p) {
  if (auto s = open_std_pipes(spec, p); !s.ok()) return s;
  return make_pipe(p.report_r, p.report_w);
}

// Forks and execs; returns the pid once exec succeeded, or the step that failed in words.
Result<pid_t> spawn(const ProcessSpec& spec, Pipes& p, ProcessRegistration& registration) {
  // Everything the child needs is prepared before fork: it may not allocate.
  ChildPlan plan(spec, p);
  std::vector<int> close_fds = open_fds_from_10();
  plan.exec.close_from_10 = close_listed;
  plan.exec.close_fds = close_fds.data();
  plan.exec.nclose = close_fds.size();
  plan.exec.report_fd = p.report_w.fd;

  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  trace("process: fork");
  std::shared_lock<std::shared_mutex> spawn_lock(spawn_mutex());
  pid_t pid = fork();
  if (pid == 0) child_main(plan.exec);
  int fork_errno = errno;
  if (pid > 0) registration.add(pid);
  spawn_lock.unlock();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) return make_error(ErrorKind::kSpawn, "fork failed", "", fork_errno);
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
  return child_exec_failure(report[0], report[1], spec.path);
}

}  // namespace

Status make_pipe(Fd& r, Fd& w) {
  int p[2];
  if (::pipe(p) < 0) return make_error(ErrorKind::kSpawn, "pipe failed", "", errno);
  r = Fd(high_fd(p[0]));
  w = Fd(high_fd(p[1]));
  if (r.fd < 0 || w.fd < 0)
    return make_error(ErrorKind::kSpawn, "moving a pipe's descriptors failed", "", errno);
  return ok_status();
}

Result<int> memfd_with(const char* name, const std::string& data) {
  // An unlinked temporary file: POSIX has no anonymous memory file.
  std::string path = fmt::format("/tmp/cordon-{}-XXXXXX", name);
  int fd = ::mkstemp(path.data());
  if (fd < 0) return make_error(ErrorKind::kSpawn, "creating a temporary file failed", path, errno);
  ::unlink(path.c_str());
  fd = high_fd(fd);
  if (int e = write_fully(fd, data.data(), data.size()); e != 0) {
    ::close(fd);
    return make_error(ErrorKind::kSpawn, "writing a temporary file failed", "", e);
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
    for (auto& s : streams_) s.feed = spec.feed.get();
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
      if (!exited_ && has_deadline && !killed_) wait_ms = poll_ms_until(deadline, now);
      if (exited_) wait_ms = poll_ms_until(grace_end_, now);
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
  void kill_all() {
    if (killed_) return;
    killed_ = true;
    if (spec_.new_process_group) ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }

  void poll_once(const ChildWatch& watch, int wait_ms) {
    enum Tag { kOut, kErr, kIn, kChild, kCancel };
    PollSet<Tag> ps;
    ps.add(streams_[0].fd.fd, POLLIN, kOut);
    ps.add(streams_[1].fd.fd, POLLIN, kErr);
    ps.add(in_.fd, POLLOUT, kIn);
    if (!exited_) ps.add(watch.fd(), POLLIN, kChild);
    if (!killed_) ps.add(spec_.cancel_fd, POLLIN, kCancel);
    ps.wait(wait_ms);
    ps.each_ready([&](Tag t) {
      switch (t) {
        case kOut:
        case kErr:
          read_some(streams_[t == kOut ? 0 : 1], buf_, sizeof buf_);
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
    });
  }

  void write_input() {
    if (!write_more(in_.fd, spec_.in_data, in_off_)) in_.reset();
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
  OutputStream streams_[2];
  size_t in_off_ = 0;
  bool exited_ = false, killed_ = false;
  int wstatus_ = 0;
  Clock::time_point grace_end_;
  char buf_[65536];
};

}  // namespace

Result<ProcessOutcome> run_process(const ProcessSpec& spec,
                                   const std::function<void(pid_t)>& on_started) {
  // Issue 30: a background job's live input and signals are the Linux primitive's; a feed
  // for the output alone (ExecRequest::on_output) works here too.
  if (spec.in == InputMode::kStream)
    return make_error(ErrorKind::kSpawn,
                      "background jobs are not supported on this system yet; run the command "
                      "in the foreground.");
  if (spec.tty_socket >= 0)  // JOB-3: the terminal stage runs inside a bwrap sandbox only
    return make_error(ErrorKind::kSpawn,
                      "a terminal (tty) is not supported on this system yet; run the command "
                      "without one.");
  ProcessOutcome o;
  ProcessRegistration registration;
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
