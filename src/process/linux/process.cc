#include "process/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <new>
#include <shared_mutex>

#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "process/child_exec.h"
#include "process/output_stream.h"
#include "process/process_registry.h"
#include "process_table/process_table.h"
#include "render/bwrap_status.h"
#include "sys/fd_passing.h"
#include "sys/fs_util.h"
#include "sys/poll_set.h"

namespace cordon {

namespace {

using Clock = std::chrono::steady_clock;

void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// The error stream of bwrap (kTee): its leading "bwrap: " lines are held back so cordon can
// translate bwrap's own failures (setup errors, execvp) instead of showing them raw.
struct Stream : OutputStream {
  bool hold_bwrap = false;
  bool forwarded_any = false;
  std::string held;

  void flush_held() {
    if (!held.empty()) write_all(forward_to, held.data(), held.size());
    held.clear();
  }

  void on_data(const char* d, size_t n) {
    keep(d, n);
    if (mode != OutputMode::kTee) return;
    if (hold_bwrap && !forwarded_any) {
      held.append(d, n);
      // Hold complete "bwrap: ..." lines and a possible beginning of one; forward the rest.
      static const std::string prefix = "bwrap: ";
      size_t pos = 0;
      while (pos < held.size()) {
        size_t avail = held.size() - pos;
        size_t cmp = std::min(avail, prefix.size());
        if (held.compare(pos, cmp, prefix, 0, cmp) != 0) break;
        size_t nl = held.find('\n', pos);
        if (nl == std::string::npos) return;  // an incomplete bwrap line: wait for more
        pos = nl + 1;
      }
      if (pos < held.size()) {
        // Something that is not bwrap's: forward what was held and everything after it.
        forwarded_any = true;
        flush_held();
      }
      return;
    }
    write_all(forward_to, d, n);
  }
};

// Runs in the child, on its own stack, sharing our memory until execve: syscalls only. What
// it did not manage is left for the parent in `failed_step` and `failed_errno`.
struct CloneChild {
  const ChildExec* exec = nullptr;
  volatile int failed_step = -1;
  volatile int failed_errno = 0;
};

void close_from_10(const ChildExec&) { syscall(SYS_close_range, 10U, ~0U, 0U); }

int child_main(void* arg) {
  auto* c = static_cast<CloneChild*>(arg);
  int step = child_exec(*c->exec);
  c->failed_errno = errno;
  c->failed_step = step;
  _exit(127);
}

// PERF-1: the child born in the cgroup v2 folder `cgroup_fd` (clone3, CLONE_INTO_CGROUP). Not
// CLONE_VM (clone3 would need a hand-written stack switch): a copy of our memory, as fork, with
// CLONE_VFORK still; what the child did not manage comes back through a shared page. -1 with
// errno ENOSYS, E2BIG or EINVAL when the kernel has no clone3 or no CLONE_INTO_CGROUP.
pid_t clone_into_cgroup(CloneChild& child, int cgroup_fd) {
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return -1;
  auto* shared = new (page) CloneChild;
  struct clone_args args {};
  args.flags = CLONE_VFORK | CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<uint64_t>(cgroup_fd);
  pid_t pid = static_cast<pid_t>(syscall(SYS_clone3, &args, sizeof args));
  if (pid == 0) {
    int step = child_exec(*child.exec);
    shared->failed_errno = errno;
    shared->failed_step = step;
    _exit(127);
  }
  int e = errno;
  child.failed_step = shared->failed_step;
  child.failed_errno = shared->failed_errno;
  munmap(page, 4096);
  errno = e;
  return pid;
}

}  // namespace

Status make_pipe(Fd& r, Fd& w) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) < 0) return make_error(ErrorKind::kSpawn, "pipe2 failed", "", errno);
  r = Fd(high_fd(p[0]));
  w = Fd(high_fd(p[1]));
  if (r.fd < 0 || w.fd < 0)
    return make_error(ErrorKind::kSpawn, "moving a pipe's descriptors failed", "", errno);
  return ok_status();
}

Result<int> memfd_with(const char* name, const std::string& data) {
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return make_error(ErrorKind::kSpawn, "memfd_create failed", "", errno);
  fd = high_fd(fd);
  if (int e = write_fully(fd, data.data(), data.size()); e != 0) {
    ::close(fd);
    return make_error(ErrorKind::kSpawn, "writing a memfd failed", "", e);
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

StartedProcess::StartedProcess(StartedProcess&& o) noexcept
    : pid_(o.pid_),
      group_(o.group_),
      collected_(o.collected_),
      exit_fd_(std::move(o.exit_fd_)),
      in_(std::move(o.in_)),
      out_(std::move(o.out_)),
      err_(std::move(o.err_)),
      registration_(std::move(o.registration_)) {
  o.pid_ = -1;
}

StartedProcess::~StartedProcess() {
  if (pid_ <= 0 || collected_) return;
  // Given up before it was waited for (a refused sandboxed command: bwrap still waits for its
  // options or its filter, so nothing of the command ran). The registration goes after this.
  // Its process group too: bwrap's pid 1 stays in it until its --new-session, and waits for
  // bwrap forever when bwrap dies before it let it go on (it has no death signal yet).
  if (group_) ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int st;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
}

namespace {

// Like posix_spawn: the child shares our memory (CLONE_VM) and we wait until it has called
// execve (CLONE_VFORK), so starting costs no copy of our address space. Registered under the
// spawn lock, so that no search for escaped processes sees it before it is known.
pid_t clone_child(CloneChild& child, ProcessRegistration& registration, int& clone_errno,
                  int cgroup_fd) {
  constexpr size_t kStack = 64 * 1024;
  void* stack =
      mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    clone_errno = errno;
    return -1;
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  trace("process: clone");
  std::shared_lock<std::shared_mutex> spawn_lock(spawn_mutex());
  pid_t pid = -1;
  if (cgroup_fd >= 0) {
    // Born in its cgroup: it has no cgroup.procs to write.
    const size_t ncgroup = child.exec->ncgroup;
    const_cast<ChildExec*>(child.exec)->ncgroup = 0;
    pid = clone_into_cgroup(child, cgroup_fd);
    clone_errno = errno;
    const_cast<ChildExec*>(child.exec)->ncgroup = ncgroup;
    if (pid < 0 && clone_errno != ENOSYS && clone_errno != E2BIG && clone_errno != EINVAL)
      cgroup_fd = -2;  // a real failure: reported, no second try
  }
  if (pid < 0 && cgroup_fd != -2) {
    pid = clone(child_main, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD,
                &child);
    clone_errno = errno;
  }
  if (pid > 0) registration.add(pid);
  spawn_lock.unlock();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  trace("process: clone returned");
  munmap(stack, kStack);
  return pid;
}

}  // namespace

Result<StartedProcess> spawn_process(const ProcessSpec& spec) {
  StdPipes pipes;
  if (auto s = open_std_pipes(spec, pipes); !s.ok()) return s.error();
  // Everything the child needs is prepared before clone: it may not allocate.
  ChildPlan plan(spec, pipes);
  plan.exec.close_from_10 = close_from_10;
  CloneChild child;
  child.exec = &plan.exec;

  StartedProcess p;
  int clone_errno = 0;
  p.pid_ = clone_child(child, p.registration_, clone_errno, spec.cgroup_fd);
  if (p.pid_ < 0) return make_error(ErrorKind::kSpawn, "clone failed", "", clone_errno);
  p.group_ = spec.new_process_group;
  if (child.failed_step >= 0) {
    int st;
    waitpid(p.pid_, &st, 0);
    p.collected_ = true;
    return child_exec_failure(child.failed_step, child.failed_errno, spec.path);
  }
  p.exit_fd_ = Fd(static_cast<int>(syscall(SYS_pidfd_open, p.pid_, 0)));
  p.in_ = std::move(pipes.in_ours);
  p.out_ = std::move(pipes.out_r);
  p.err_ = std::move(pipes.err_r);
  return p;
}

namespace {

// The event loop of one started process: its streams, its input, bwrap's status, time-out,
// cancel and PROC-1's check of a sandbox's pid 1; then the end (PROC-3, NET-4).
class Waiter {
 public:
  Waiter(const ProcessSpec& spec, pid_t pid, Fd& pidfd, Fd& in, Fd out, Fd err,
         ProcessRegistration& registration)
      : spec_(spec), pid_(pid), exit_fd_(pidfd), in_(in), registration_(registration) {
    o_.pid = pid;
    o_.started = Clock::now();
    open_stream(streams_[0], std::move(out), spec.out, 1, &o_.out, &o_.out_truncated);
    open_stream(streams_[1], std::move(err), spec.err, 2, &o_.err, &o_.err_truncated);
    for (auto& s : streams_) s.limit = spec.capture_limit;
    streams_[1].hold_bwrap = spec.bwrap_status_fd >= 0;
    for (auto& s : streams_) s.feed = spec.feed.get();
    if (spec.feed) spec.feed->attach();
    if (in_.fd >= 0) set_nonblock(in_.fd);
    if (spec.in == InputMode::kStream) in_buf_ = spec.in_data;
    if (spec.in == InputMode::kData && spec.in_data.empty()) in_.reset();
    if (spec.tty_socket >= 0) open_tty(spec);
    status_fd_ = spec.bwrap_status_fd;
    if (spec.timeout) deadline_ = o_.started + *spec.timeout;
    next_pid1_check_ = Clock::now() + kPid1Check;
  }

  ProcessOutcome run() {
    while (!finished(Clock::now())) {
      check_timers(Clock::now());
      if (!poll_once(Clock::now())) break;
      reap();
    }
    end();
    return std::move(o_);
  }

 private:
  // PROC-1: a stopped or traced pid 1 never reaps the command nor exits: looked at twice a
  // second, and ended with the tree once it has stayed stopped for a second.
  static constexpr std::chrono::milliseconds kPid1Check{500};
  enum Tag { kOut, kErr, kIn, kStatus, kPid, kCancel, kFeed, kTtySocket, kTty };

  static void open_stream(Stream& s, Fd fd, OutputMode mode, int forward_to, std::string* buf,
                          bool* truncated) {
    s.fd = std::move(fd);
    s.mode = mode;
    s.forward_to = forward_to;
    s.buf = buf;
    s.truncated = truncated;
    if (s.fd.fd >= 0) set_nonblock(s.fd.fd);
  }

  bool output_open() const {
    return streams_[0].fd.fd >= 0 || streams_[1].fd.fd >= 0 || tty_.fd.fd >= 0;
  }

  bool finished(Clock::time_point now) {
    bool open = output_open() || status_fd_ >= 0;
    if (exited_ && !open) return true;
    if (exited_ && grace_end_ && now >= *grace_end_) {
      o_.output_cut = output_open();
      return true;
    }
    return false;
  }

  // JOB-3: the input goes to the terminal once its master came (typed, as a person would), and
  // ends with the terminal's end-of-file character; its output is the command's stdout.
  void open_tty(const ProcessSpec& spec) {
    tty_socket_ = spec.tty_socket;
    tty_waiting_ = true;
    tty_.mode = spec.out == OutputMode::kCapture ? OutputMode::kCapture : OutputMode::kTee;
    tty_.forward_to = 1;
    tty_.buf = &o_.out;
    tty_.truncated = &o_.out_truncated;
    tty_.limit = spec.capture_limit;
    tty_.feed = spec.feed.get();
    if (spec.feed) spec.feed->set_has_tty();
    in_buf_ = spec.in == InputMode::kNull ? "" : spec.in_data;
    if (spec.in != InputMode::kStream) end_tty_input();
  }

  // The terminal's end of input: Ctrl-D at the start of a line (twice after a partial line:
  // the first sends the line).
  void end_tty_input() {
    in_eof_ = true;
    if (!in_buf_.empty()) last_in_ = in_buf_.back();
    in_buf_ += last_in_ != 0 && last_in_ != '\n' ? "\x04\x04" : "\x04";
  }

  void receive_tty() {
    int fd = receive_fd(tty_socket_, true);
    if (fd < 0) {
      if (errno != EAGAIN) tty_socket_ = -1;  // the stage went without sending it
      return;
    }
    tty_socket_ = -1;
    tty_waiting_ = false;
    tty_.fd = Fd(high_fd(fd));
    set_nonblock(tty_.fd.fd);
    in_.reset();
    in_ = Fd(fcntl(tty_.fd.fd, F_DUPFD_CLOEXEC, 10));
    if (in_.fd < 0 && spec_.feed) spec_.feed->close_input();
    if (size_) apply_size(*size_);
  }

  void apply_size(std::pair<uint16_t, uint16_t> size) {
    size_ = size;
    if (tty_.fd.fd < 0) return;  // set once the terminal comes
    winsize ws{};
    ws.ws_col = size.first;
    ws.ws_row = size.second;
    ioctl(tty_.fd.fd, TIOCSWINSZ, &ws);  // the terminal sends SIGWINCH to its foreground
  }

  void kill_all() {
    if (killed_) return;
    killed_ = true;
    if (spec_.new_process_group) ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    if (o_.sandbox_pid > 0) ::kill(o_.sandbox_pid, SIGKILL);
  }

  void check_timers(Clock::time_point now) {
    if (exited_ || killed_) return;
    if (deadline_ && now >= *deadline_) {
      o_.timed_out = true;
      kill_all();
      return;
    }
    if (o_.sandbox_pid <= 0 || now < next_pid1_check_) return;
    next_pid1_check_ = now + kPid1Check;
    auto st = read_proc_stat(o_.sandbox_pid);
    pid1_stopped_checks_ =
        st && (st->state == 'T' || st->state == 't') ? pid1_stopped_checks_ + 1 : 0;
    if (pid1_stopped_checks_ >= 3) {
      o_.pid1_stopped = true;
      kill_all();
    }
  }

  int wait_ms(Clock::time_point now) const {
    int wait = -1;
    auto until = [&](Clock::time_point t) {
      int m = poll_ms_until(t, now);
      wait = wait < 0 ? m : std::min(wait, m);
    };
    if (!exited_ && deadline_ && !killed_) until(*deadline_);
    if (exited_ && grace_end_) until(*grace_end_);
    if (!exited_ && !killed_ && o_.sandbox_pid > 0) until(next_pid1_check_);
    if (exit_fd_.fd < 0 && !exited_) wait = wait < 0 ? 50 : std::min(wait, 50);
    return wait;
  }

  // False when poll itself failed.
  bool poll_once(Clock::time_point now) {
    PollSet<Tag> ps;
    ps.add(streams_[0].fd.fd, POLLIN, kOut);
    ps.add(streams_[1].fd.fd, POLLIN, kErr);
    if (!tty_waiting_ && (!streamed() || in_off_ < in_buf_.size())) ps.add(in_.fd, POLLOUT, kIn);
    ps.add(tty_socket_, POLLIN, kTtySocket);
    ps.add(tty_.fd.fd, POLLIN, kTty);
    ps.add(status_fd_, POLLIN, kStatus);
    if (spec_.feed && !exited_) ps.add(spec_.feed->wake_fd(), POLLIN, kFeed);
    if (!exited_) ps.add(exit_fd_.fd, POLLIN, kPid);
    if (!killed_) ps.add(spec_.cancel_fd, POLLIN, kCancel);
    if (!ps.wait(wait_ms(now))) return false;
    ps.each_ready([&](Tag t) { on_ready(t); });
    return true;
  }

  void on_ready(Tag tag) {
    switch (tag) {
      case kOut:
      case kErr:
        read_some(streams_[tag == kOut ? 0 : 1], buf_, sizeof buf_);
        break;
      case kIn:
        write_input();
        break;
      case kStatus:
        read_status();
        break;
      case kPid:
        break;
      case kCancel:
        o_.canceled = true;
        kill_all();
        break;
      case kFeed:
        take_feed();
        break;
      case kTtySocket:
        receive_tty();
        break;
      case kTty:
        read_some(tty_, buf_, sizeof buf_);  // EIO once the terminal's last holder is gone
        break;
    }
  }

  // Input fed as it comes (a job's), or a terminal's.
  bool streamed() const { return spec_.in == InputMode::kStream || spec_.tty_socket >= 0; }

  void write_input() {
    if (!streamed()) {
      if (!write_more(in_.fd, spec_.in_data, in_off_)) in_.reset();
      return;
    }
    if (write_more(in_.fd, in_buf_, in_off_)) return;
    if (in_off_ < in_buf_.size()) return close_stream_input();  // the reader went away
    in_buf_.clear();
    in_off_ = 0;
    if (in_eof_) close_stream_input();
  }

  // A background job's input, eof and signals (issue 30).
  void take_feed() {
    ProcessFeed::Taken t = spec_.feed->take();
    if ((in_.fd >= 0 || tty_waiting_) && !in_eof_) {
      in_buf_.erase(0, in_off_);
      in_off_ = 0;
      in_buf_ += t.input;
      if (!t.input.empty()) last_in_ = t.input.back();
      if (t.eof && spec_.tty_socket >= 0) end_tty_input();
      in_eof_ = t.eof;
      if (in_eof_ && in_buf_.empty()) close_stream_input();
    }
    for (int sig : t.signals) send_signal(sig);
    if (t.size) apply_size(*t.size);
  }

  void close_stream_input() {
    in_.reset();
    in_buf_.clear();
    in_off_ = 0;
    if (spec_.feed) spec_.feed->close_input();  // none for a one-shot command with a terminal
  }

  // SIGKILL ends the whole tree as a timeout does. Another signal goes to the command's process
  // group: inside a sandbox, the groups of its pid 1's children (bwrap's --new-session made
  // the command a group of its own); else the group the command leads.
  void send_signal(int sig) {
    if (exited_ || killed_) return;
    if (sig == SIGKILL) return kill_all();
    if (o_.sandbox_pid <= 0) {
      ::kill(spec_.new_process_group ? -pid_ : pid_, sig);
      return;
    }
    std::vector<int> kids = child_pids(o_.sandbox_pid);
    for (int c : kids) {
      ::kill(-c, sig);
      ::kill(c, sig);
    }
    if (kids.empty()) ::kill(o_.sandbox_pid, sig);
  }

  void read_status() {
    ssize_t r = ::read(status_fd_, buf_, sizeof buf_);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
      status_fd_ = -1;
      return;
    }
    if (r < 0) return;
    status_text_.append(buf_, static_cast<size_t>(r));
    BwrapStatus st = parse_bwrap_status(status_text_);
    if (o_.sandbox_pid < 0 && st.child_pid) sandbox_set_up(*st.child_pid);
    if (st.exit_code) o_.bwrap_exit_code = st.exit_code;
  }

  void sandbox_set_up(pid_t pid1) {
    o_.sandbox_pid = pid1;
    registration_.add(pid1);
    // Held from now on, so the end of exactly this process can be confirmed.
    sandbox_pidfd_ = Fd(static_cast<int>(syscall(SYS_pidfd_open, pid1, 0)));
    trace("process: sandbox pid reported");
    o_.bwrap_started = true;
    if (killed_) ::kill(pid1, SIGKILL);
  }

  void reap() {
    if (exited_ || waitpid(pid_, &wstatus_, WNOHANG) != pid_) return;
    exited_ = true;
    // A terminal sent before the command started is there by now; none is coming later.
    if (tty_socket_ >= 0) receive_tty();
    tty_socket_ = -1;
    tty_waiting_ = false;
    o_.ended = Clock::now();
    if (spec_.end_group_on_exit && spec_.new_process_group) ::kill(-pid_, SIGKILL);
    trace("process: reaped");
    grace_end_ = o_.ended + spec_.output_grace;
    // bwrap's pid 1 ends with it; anything still holding our pipes is gone too.
    if (o_.sandbox_pid > 0 && killed_) {
      int st;
      waitpid(o_.sandbox_pid, &st, 0);  // we are its subreaper once bwrap is gone
    }
  }

  // PROC-3: the sandbox's pid 1 ending takes every process of its namespace with it; confirm
  // it ended, and end it if bwrap did not.
  void confirm_sandbox_ended() {
    if (sandbox_pidfd_.fd < 0) return;
    pollfd p{sandbox_pidfd_.fd, POLLIN, 0};
    if (poll(&p, 1, 1000) == 0) {
      syscall(SYS_pidfd_send_signal, sandbox_pidfd_.fd, SIGKILL, nullptr, 0);
      if (poll(&p, 1, 3000) == 0) o_.not_ended.push_back(o_.sandbox_pid);
    }
    int st;
    waitpid(o_.sandbox_pid, &st, WNOHANG);  // ours to collect when bwrap went first
  }

  void end() {
    if (!exited_) {
      kill_all();
      waitpid(pid_, &wstatus_, 0);
      o_.ended = Clock::now();
    }
    confirm_sandbox_ended();
    if (spec_.feed) spec_.feed->close_input();
    if (!spec_.marker.empty()) o_.escaped = escaped_processes(spec_.marker, pid_);
    if (WIFEXITED(wstatus_)) o_.exit_code = WEXITSTATUS(wstatus_);
    if (WIFSIGNALED(wstatus_)) o_.signal = WTERMSIG(wstatus_);
    // Leading "bwrap: " lines that nothing followed: the caller translates or prints them.
    o_.held_err = std::move(streams_[1].held);
  }

  const ProcessSpec& spec_;
  const pid_t pid_;
  Fd& exit_fd_;
  Fd& in_;
  ProcessRegistration& registration_;
  ProcessOutcome o_;
  Stream streams_[2];
  // JOB-3: the socket the terminal's master comes over, and the master once it came.
  int tty_socket_ = -1;
  bool tty_waiting_ = false;
  Stream tty_;
  std::optional<std::pair<uint16_t, uint16_t>> size_;  // the last size asked for
  char last_in_ = 0;                                   // the last byte of input queued
  size_t in_off_ = 0;
  std::string in_buf_;  // kStream or a terminal: what was given and not taken yet
  bool in_eof_ = false;
  int status_fd_ = -1;
  std::string status_text_;
  Fd sandbox_pidfd_;
  bool exited_ = false, killed_ = false;
  int wstatus_ = 0;
  std::optional<Clock::time_point> deadline_, grace_end_;
  Clock::time_point next_pid1_check_;
  int pid1_stopped_checks_ = 0;
  char buf_[65536];
};

}  // namespace

Result<ProcessOutcome> wait_process(StartedProcess& p, const ProcessSpec& spec) {
  if (p.pid_ <= 0 || p.collected_)
    return make_error(ErrorKind::kInternal, "no process to wait for");
  Waiter w(spec, p.pid_, p.exit_fd_, p.in_, std::move(p.out_), std::move(p.err_), p.registration_);
  ProcessOutcome o = w.run();
  p.collected_ = true;
  return o;
}

Result<ProcessOutcome> run_process(const ProcessSpec& spec,
                                   const std::function<void(pid_t)>& on_started) {
  auto p = spawn_process(spec);
  if (!p.ok()) return p.error();
  if (on_started) on_started(p->pid());
  return wait_process(*p, spec);
}

}  // namespace cordon
