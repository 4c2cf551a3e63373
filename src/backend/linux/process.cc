#include "backend/linux/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <shared_mutex>

#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

using Clock = std::chrono::steady_clock;

// Moves a descriptor to >= 10 (close-on-exec), so that the child's small numbers are free.
int high_fd(int fd) {
  if (fd < 0 || fd >= 10) return fd;
  int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return h;
}

void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

void write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd p{fd, POLLOUT, 0};
        poll(&p, 1, 100);
        continue;
      }
      return;  // our own output is gone; keep draining the child
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
}

// A stream from the child: captured, or forwarded with its tail kept.
struct Stream {
  Fd fd;
  OutputMode mode = OutputMode::kInherit;
  int forward_to = -1;
  size_t limit = 0;
  std::string* buf = nullptr;
  bool* truncated = nullptr;
  // kTee only: leading "bwrap: " lines are held back so cordon can translate bwrap's own
  // failures (setup errors, execvp) instead of showing them raw.
  bool hold_bwrap = false;
  bool forwarded_any = false;
  std::string held;

  void flush_held() {
    if (!held.empty()) write_all(forward_to, held.data(), held.size());
    held.clear();
  }

  void keep(const char* d, size_t n) {
    if (mode == OutputMode::kCapture) {
      size_t room = buf->size() < limit ? limit - buf->size() : 0;
      buf->append(d, std::min(room, n));
      if (n > room) *truncated = true;
    } else {
      buf->append(d, n);
      if (buf->size() > 2 * limit) {
        buf->erase(0, buf->size() - limit);
        *truncated = true;
      }
    }
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

bool parse_json_int(const std::string& text, const char* key, int64_t& out) {
  size_t p = text.find(key);
  if (p == std::string::npos) return false;
  p = text.find(':', p);
  if (p == std::string::npos) return false;
  ++p;
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
  bool neg = p < text.size() && text[p] == '-';
  if (neg) ++p;
  if (p >= text.size() || !std::isdigit(static_cast<unsigned char>(text[p]))) return false;
  int64_t v = 0;
  while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])))
    v = v * 10 + (text[p++] - '0');
  out = neg ? -v : v;
  return true;
}

struct Lim {
  int resource;
  rlim_t value;
};

// What the child needs, prepared before clone: it may not allocate.
struct ChildArgs {
  bool is_target[10] = {};
  int in_fd = -1, out_fd = -1, err_fd = -1;
  const char* path = nullptr;
  const char* cwd = nullptr;
  bool new_group = false;
  const std::pair<int, int>* pass = nullptr;
  size_t npass = 0;
  const Lim* lims = nullptr;
  size_t nlims = 0;
  const int* cgroup_fds = nullptr;
  size_t ncgroup = 0;
  char** argv = nullptr;
  char** envp = nullptr;
  volatile int child_errno = 0;
  volatile int child_step = 0;
};

// Runs in the child, on its own stack, sharing our memory until execve: syscalls only.
int child_main(void* arg) {
  auto* a = static_cast<ChildArgs*>(arg);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, nullptr);
  if (a->new_group) setpgid(0, 0);
  // PROC-6: join the command's cgroups first, so everything it starts is counted there.
  for (size_t i = 0; i < a->ncgroup; ++i)
    if (::write(a->cgroup_fds[i], "0", 1) != 1) goto fail;
  a->child_step = 1;
  if (a->in_fd >= 0 && dup2(a->in_fd, 0) < 0) goto fail;
  if (a->out_fd >= 0 && dup2(a->out_fd, 1) < 0) goto fail;
  if (a->err_fd >= 0 && dup2(a->err_fd, 2) < 0) goto fail;
  a->child_step = 2;
  for (size_t i = 0; i < a->npass; ++i)
    if (dup2(a->pass[i].first, a->pass[i].second) < 0) goto fail;
  // Nothing else of ours reaches the command (a harness's descriptors included).
  for (int f = 3; f < 10; ++f)
    if (!a->is_target[f]) ::close(f);
  syscall(SYS_close_range, 10U, ~0U, 0U);
  a->child_step = 3;
  for (size_t i = 0; i < a->nlims; ++i) {
    struct rlimit r {
      a->lims[i].value, a->lims[i].value
    };
    if (setrlimit(a->lims[i].resource, &r) < 0) goto fail;
  }
  a->child_step = 4;
  if (a->cwd && chdir(a->cwd) < 0) goto fail;
  {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
  }
  a->child_step = 5;
  execve(a->path, a->argv, a->envp);
fail:
  a->child_errno = errno;
  _exit(127);
}

// The processes run_process has started and not yet collected, and the sandboxes' pid 1s, in
// this cordon. With several commands in flight (SRV-4), another command's bwrap, git or judge
// is also a child of ours: the search for escaped processes (NET-4) must not name them.
// g_spawn_mu is held across clone and registration (shared: spawns run at once) and across that
// search (exclusive), so a child is never seen before it is known; g_ours_mu guards the set.
std::shared_mutex g_spawn_mu;
std::mutex g_ours_mu;
std::set<int> g_ours;

// One run_process call's entries in g_ours: whatever way the call ends (a refused command's
// feed abort, an exec failure, a normal end), they are removed, so that in a long-running
// server a reused pid can never hide an escaped process (NET-4).
class OursRegistration {
 public:
  OursRegistration() = default;
  OursRegistration(const OursRegistration&) = delete;
  OursRegistration& operator=(const OursRegistration&) = delete;
  ~OursRegistration() {
    std::lock_guard<std::mutex> lock(g_ours_mu);
    for (int p : pids_) g_ours.erase(p);
  }
  // Call with g_ours_mu not held.
  void add(int pid) {
    std::lock_guard<std::mutex> lock(g_ours_mu);
    g_ours.insert(pid);
    pids_.push_back(pid);
  }

 private:
  std::vector<int> pids_;
};

}  // namespace

std::string resolve_command(const std::string& name, const EnvMap& env, const std::string& cwd) {
  if (name.find('/') != std::string::npos) return path_join(cwd, name);
  std::string path = env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  for (const auto& dir : split(path, ':')) {
    std::string d = dir.empty() ? cwd : path_join(cwd, dir);
    std::string p = path_join(d, name);
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

size_t registered_children() {
  std::lock_guard<std::mutex> lock(g_ours_mu);
  return g_ours.size();
}

FoundCommand find_command(const std::string& name, const EnvMap& env, const std::string& cwd) {
  FoundCommand found;
  auto consider = [&](const std::string& p) {
    struct stat st;
    if (stat(p.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return false;
    if (access(p.c_str(), X_OK) == 0) {
      found = {p, true};
      return true;
    }
    if (found.path.empty()) found.path = p;
    return false;
  };
  if (name.find('/') != std::string::npos) {
    consider(path_join(cwd, name));
    return found;
  }
  std::string path = env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  for (const auto& dir : split(path, ':')) {
    std::string d = dir.empty() ? cwd : path_join(cwd, dir);
    if (consider(path_join(d, name))) break;
  }
  return found;
}

std::string current_boot_id() {
  // Fixed while this process lives (a reboot ends it).
  static const std::string id = [] {
    std::string s;
    if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "re")) {
      char buf[64];
      if (std::fgets(buf, sizeof buf, f)) s = buf;
      std::fclose(f);
    }
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }();
  return id;
}

Status make_pipe(Fd& r, Fd& w) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) < 0) return make_error("spawn", "pipe2 failed", "", errno);
  r = Fd(high_fd(p[0]));
  w = Fd(high_fd(p[1]));
  if (r.fd < 0 || w.fd < 0)
    return make_error("spawn", "moving a pipe's descriptors failed", "", errno);
  return ok_status();
}

std::optional<ProcStat> read_proc_stat(int pid) {
  if (pid <= 0) return std::nullopt;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  buf[n] = 0;
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const char* rp = std::strrchr(buf, ')');
  if (!rp || rp[1] != ' ') return std::nullopt;
  auto fields = split(std::string_view(rp + 2), ' ');
  if (fields.size() < 20) return std::nullopt;
  ProcStat st;
  st.state = fields[0].empty() ? '?' : fields[0][0];
  st.ppid = std::atoi(fields[1].c_str());
  st.pgrp = std::atoi(fields[2].c_str());
  st.start = std::atoll(fields[19].c_str());
  return st;
}

std::vector<int> find_marked_processes(const std::string& marker, const std::vector<int>& except) {
  std::vector<int> out;
  std::unique_lock<std::shared_mutex> spawns(g_spawn_mu);
  std::set<int> ours;
  {
    std::lock_guard<std::mutex> lock(g_ours_mu);
    ours = g_ours;
  }
  DIR* d = opendir("/proc");
  if (!d) return out;
  const int self = getpid();
  while (dirent* e = readdir(d)) {
    int pid = std::atoi(e->d_name);
    if (pid <= 0 || pid == self) continue;
    if (std::find(except.begin(), except.end(), pid) != except.end()) continue;
    if (ours.count(pid)) continue;  // another command's process, still being run
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/environ", pid);
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    bool found = false;
    if (fd >= 0) {
      std::string env;
      char buf[8192];
      ssize_t n;
      while ((n = ::read(fd, buf, sizeof buf)) > 0 && env.size() < (1 << 20))
        env.append(buf, static_cast<size_t>(n));
      ::close(fd);
      for (const auto& kv : split(env, '\0'))
        if (kv == marker) found = true;
    }
    if (!found) {
      // Orphans of the command come back to us (cordon is a child subreaper).
      auto st = read_proc_stat(pid);
      if (st && st->ppid == self) {
        if (st->state != 'Z') {
          found = true;
        } else {
          // An orphan that came back to us (we are a subreaper) and has ended: nobody else
          // waits for it, and a long-lived server must not collect zombies.
          int status;
          waitpid(pid, &status, WNOHANG);
        }
      }
    }
    if (found) out.push_back(pid);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Result<int> memfd_with(const char* name, const std::string& data) {
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return make_error("spawn", "memfd_create failed", "", errno);
  fd = high_fd(fd);
  if (int e = write_fully(fd, data.data(), data.size()); e != 0) {
    ::close(fd);
    return make_error("spawn", "writing a memfd failed", "", e);
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

Result<ProcessOutcome> run_process(const ProcessSpec& spec,
                                   const std::function<void(pid_t)>& on_started) {
  ProcessOutcome o;
  OursRegistration registration;
  // Everything the child needs is prepared before vfork: it may not allocate.
  std::vector<std::string> env_strings = spec.env.to_strings();
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  Fd in_child, in_ours, out_r, out_w, err_r, err_w;
  if (spec.in == InputMode::kNull) {
    in_child = Fd(high_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC)));
  } else if (spec.in == InputMode::kData) {
    if (auto s = make_pipe(in_child, in_ours); !s.ok()) return s.error();
  }
  if (spec.out != OutputMode::kInherit)
    if (auto s = make_pipe(out_r, out_w); !s.ok()) return s.error();
  if (spec.err != OutputMode::kInherit)
    if (auto s = make_pipe(err_r, err_w); !s.ok()) return s.error();

  std::vector<Lim> lims;
  if (spec.limits.memory) lims.push_back({RLIMIT_AS, *spec.limits.memory});
  if (spec.limits.cpu_seconds) lims.push_back({RLIMIT_CPU, *spec.limits.cpu_seconds});
  if (spec.limits.pids) lims.push_back({RLIMIT_NPROC, *spec.limits.pids});
  if (spec.limits.file_size) lims.push_back({RLIMIT_FSIZE, *spec.limits.file_size});
  if (spec.limits.open_files) lims.push_back({RLIMIT_NOFILE, *spec.limits.open_files});

  ChildArgs ca;
  for (const auto& [ours, theirs] : spec.pass_fds)
    if (theirs >= 3 && theirs < 10) ca.is_target[theirs] = true;
  ca.in_fd = in_child.fd;
  ca.out_fd = out_w.fd;
  ca.err_fd = err_w.fd;
  ca.path = spec.path.c_str();
  ca.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  ca.new_group = spec.new_process_group;
  ca.pass = spec.pass_fds.data();
  ca.npass = spec.pass_fds.size();
  ca.lims = lims.data();
  ca.nlims = lims.size();
  ca.cgroup_fds = spec.cgroup_procs_fds.data();
  ca.ncgroup = spec.cgroup_procs_fds.size();
  ca.argv = argv.data();
  ca.envp = envp.data();

  // Like posix_spawn: the child shares our memory (CLONE_VM) and we wait until it has called
  // execve (CLONE_VFORK), so starting costs no copy of our address space.
  constexpr size_t kStack = 64 * 1024;
  void* stack =
      mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return make_error("spawn", "mmap of a child stack failed", "", errno);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  trace("process: clone");
  std::shared_lock<std::shared_mutex> spawn_lock(g_spawn_mu);
  pid_t pid =
      clone(child_main, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &ca);
  int fork_errno = errno;
  if (pid > 0) registration.add(pid);
  spawn_lock.unlock();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  trace("process: clone returned");
  munmap(stack, kStack);
  if (pid < 0) return make_error("spawn", "clone failed", "", fork_errno);
  o.pid = pid;
  in_child.reset();
  out_w.reset();
  err_w.reset();
  if (ca.child_errno != 0) {
    int st;
    waitpid(pid, &st, 0);
    static const char* steps[] = {"joining its cgroup",  "redirecting input and output",
                                  "passing descriptors", "setting limits",
                                  "changing folder",     "starting"};
    int step = ca.child_step;
    return make_error("exec",
                      fmt::format("{} {} failed: {}", steps[step > 5 ? 5 : step], spec.path,
                                  std::strerror(ca.child_errno)),
                      spec.path, ca.child_errno);
  }
  Fd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  if (spec.feed && !spec.feed(pid)) {
    ::kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    return make_error("aborted", "the command was not started");
  }
  o.started = Clock::now();
  if (on_started) on_started(pid);

  Stream streams[2];
  streams[0].fd = std::move(out_r);
  streams[0].mode = spec.out;
  streams[0].forward_to = 1;
  streams[0].limit = spec.capture_limit;
  streams[0].buf = &o.out;
  streams[0].truncated = &o.out_truncated;
  streams[1].fd = std::move(err_r);
  streams[1].mode = spec.err;
  streams[1].forward_to = 2;
  streams[1].limit = spec.capture_limit;
  streams[1].buf = &o.err;
  streams[1].truncated = &o.err_truncated;
  streams[1].hold_bwrap = spec.bwrap_status_fd >= 0;
  for (auto& s : streams)
    if (s.fd.fd >= 0) set_nonblock(s.fd.fd);
  if (in_ours.fd >= 0) set_nonblock(in_ours.fd);
  size_t in_off = 0;
  if (spec.in == InputMode::kData && spec.in_data.empty()) in_ours.reset();
  std::string status_text;
  int status_fd = spec.bwrap_status_fd;

  bool exited = false;
  int wstatus = 0;
  Fd sandbox_pidfd;
  const bool has_deadline = spec.timeout.has_value();
  const Clock::time_point deadline =
      o.started + spec.timeout.value_or(std::chrono::milliseconds(0));
  std::optional<Clock::time_point> grace_end;
  bool killed = false;
  auto kill_all = [&]() {
    if (killed) return;
    killed = true;
    if (spec.new_process_group) ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    if (o.sandbox_pid > 0) ::kill(o.sandbox_pid, SIGKILL);
  };
  char buf[65536];
  // PROC-1: a stopped or traced pid 1 never reaps the command nor exits: looked at twice a
  // second, and ended with the tree once it has stayed stopped for a second.
  constexpr auto kPid1Check = std::chrono::milliseconds(500);
  Clock::time_point next_pid1_check = Clock::now() + kPid1Check;
  int pid1_stopped_checks = 0;
  while (true) {
    bool streams_open = streams[0].fd.fd >= 0 || streams[1].fd.fd >= 0 || status_fd >= 0;
    if (exited && !streams_open) break;
    auto now = Clock::now();
    if (exited && grace_end && now >= *grace_end) {
      o.output_cut = streams[0].fd.fd >= 0 || streams[1].fd.fd >= 0;
      break;
    }
    if (!exited && has_deadline && now >= deadline && !killed) {
      o.timed_out = true;
      kill_all();
    }
    if (!exited && !killed && o.sandbox_pid > 0 && now >= next_pid1_check) {
      next_pid1_check = now + kPid1Check;
      auto st = read_proc_stat(o.sandbox_pid);
      pid1_stopped_checks =
          st && (st->state == 'T' || st->state == 't') ? pid1_stopped_checks + 1 : 0;
      if (pid1_stopped_checks >= 3) {
        o.pid1_stopped = true;
        kill_all();
      }
    }
    std::vector<pollfd> pfds;
    enum Tag { kOut, kErr, kIn, kStatus, kPid, kCancel };
    std::vector<Tag> tags;
    auto add = [&](int fd, short ev, Tag t) {
      if (fd < 0) return;
      pfds.push_back({fd, ev, 0});
      tags.push_back(t);
    };
    add(streams[0].fd.fd, POLLIN, kOut);
    add(streams[1].fd.fd, POLLIN, kErr);
    add(in_ours.fd, POLLOUT, kIn);
    add(status_fd, POLLIN, kStatus);
    if (!exited) add(pidfd.fd, POLLIN, kPid);
    if (!killed) add(spec.cancel_fd, POLLIN, kCancel);
    int wait_ms = -1;
    auto until = [&](Clock::time_point t) {
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count() + 1;
      int m = static_cast<int>(std::max<long long>(0, std::min<long long>(ms, 1 << 30)));
      wait_ms = wait_ms < 0 ? m : std::min(wait_ms, m);
    };
    if (!exited && has_deadline && !killed) until(deadline);
    if (exited && grace_end) until(*grace_end);
    if (!exited && !killed && o.sandbox_pid > 0) until(next_pid1_check);
    if (pidfd.fd < 0 && !exited) wait_ms = wait_ms < 0 ? 50 : std::min(wait_ms, 50);
    int n = poll(pfds.data(), pfds.size(), wait_ms);
    if (n < 0 && errno != EINTR) break;
    for (size_t i = 0; n > 0 && i < pfds.size(); ++i) {
      if (!pfds[i].revents) continue;
      switch (tags[i]) {
        case kOut:
        case kErr: {
          Stream& s = streams[tags[i] == kOut ? 0 : 1];
          ssize_t r = ::read(s.fd.fd, buf, sizeof buf);
          if (r > 0)
            s.on_data(buf, static_cast<size_t>(r));
          else if (r == 0 || (errno != EAGAIN && errno != EINTR))
            s.fd.reset();
          break;
        }
        case kIn: {
          ssize_t w =
              ::write(in_ours.fd, spec.in_data.data() + in_off, spec.in_data.size() - in_off);
          if (w > 0) in_off += static_cast<size_t>(w);
          if ((w < 0 && errno != EAGAIN && errno != EINTR) || in_off >= spec.in_data.size())
            in_ours.reset();
          break;
        }
        case kStatus: {
          ssize_t r = ::read(status_fd, buf, sizeof buf);
          if (r > 0) {
            status_text.append(buf, static_cast<size_t>(r));
            int64_t v;
            if (o.sandbox_pid < 0 && parse_json_int(status_text, "\"child-pid\"", v)) {
              o.sandbox_pid = static_cast<pid_t>(v);
              registration.add(o.sandbox_pid);
              // Held from now on, so the end of exactly this process can be confirmed.
              sandbox_pidfd = Fd(static_cast<int>(syscall(SYS_pidfd_open, o.sandbox_pid, 0)));
              trace("process: sandbox pid reported");
              o.bwrap_started = true;
              if (killed) ::kill(o.sandbox_pid, SIGKILL);
            }
            if (parse_json_int(status_text, "\"exit-code\"", v))
              o.bwrap_exit_code = static_cast<int>(v);
          } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
            status_fd = -1;
          }
          break;
        }
        case kPid:
          break;
        case kCancel: {
          o.canceled = true;
          kill_all();
          break;
        }
      }
    }
    if (!exited) {
      pid_t w = waitpid(pid, &wstatus, WNOHANG);
      if (w == pid) {
        exited = true;
        o.ended = Clock::now();
        if (spec.end_group_on_exit && spec.new_process_group) ::kill(-pid, SIGKILL);
        trace("process: reaped");
        grace_end = o.ended + spec.output_grace;
        // bwrap's pid 1 ends with it; anything still holding our pipes is gone too.
        if (o.sandbox_pid > 0 && killed) {
          int st;
          waitpid(o.sandbox_pid, &st, 0);  // we are its subreaper once bwrap is gone
        }
      }
    }
  }
  if (!exited) {
    kill_all();
    waitpid(pid, &wstatus, 0);
    o.ended = Clock::now();
  }
  // PROC-3: the sandbox's pid 1 ending takes every process of its namespace with it; confirm
  // it ended, and end it if bwrap did not.
  if (sandbox_pidfd.fd >= 0) {
    pollfd p{sandbox_pidfd.fd, POLLIN, 0};
    if (poll(&p, 1, 1000) == 0) {
      syscall(SYS_pidfd_send_signal, sandbox_pidfd.fd, SIGKILL, nullptr, 0);
      if (poll(&p, 1, 3000) == 0) o.not_ended.push_back(o.sandbox_pid);
    }
    int st;
    waitpid(o.sandbox_pid, &st, WNOHANG);  // ours to collect when bwrap went first
  }
  if (!spec.marker.empty()) {
    // The group was sent SIGKILL: give its members a moment to be gone before looking for the
    // ones that left it, so that a dying member is not named as a survivor.
    for (int i = 0; i < 100 && ::kill(-pid, 0) == 0; ++i) {
      while (waitpid(-pid, nullptr, WNOHANG) > 0) {
      }
      usleep(5000);
    }
    o.escaped = find_marked_processes(spec.marker, {pid});
  }
  if (WIFEXITED(wstatus)) o.exit_code = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) o.signal = WTERMSIG(wstatus);
  // Leading "bwrap: " lines that nothing followed: the caller translates or prints them.
  o.held_err = std::move(streams[1].held);
  return o;
}

}  // namespace cordon
