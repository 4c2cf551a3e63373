// Built only on macOS (see CMakeLists.txt). It uses nothing but POSIX, so it can be checked
// for syntax elsewhere: g++ -std=c++20 -fsyntax-only -Isrc src/backend/macos/launcher.cc.
#include "backend/macos/launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace cordon {

namespace {

struct ChildFailure {
  int step;  // 1 setsid, 2 stdin, 3 stderr, 4 chdir, 5 setrlimit, 6 exec
  int err;
};

const char* step_name(int step) {
  switch (step) {
    case 1:
      return "setsid";
    case 2:
      return "redirect standard input";
    case 3:
      return "redirect standard error";
    case 4:
      return "chdir";
    case 5:
      return "setrlimit";
    default:
      return "exec sandbox-exec";
  }
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

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

Result<SeatbeltRun> launch_seatbelt(const SeatbeltPlan& sp, const SeatbeltOptions& options,
                                    const std::function<void(pid_t)>& on_started) {
  if (sp.plan.refused()) return make_error("refused", sp.plan.refusal->message);
  if (sp.plan.runner != Runner::kSandbox || sp.profile.empty())
    return make_error("invalid", "launch_seatbelt: the plan is not a sandboxed command");

  // Everything the child needs is built before fork: after it, no allocation.
  const std::vector<std::string> args = seatbelt_command_line(sp, options);
  const std::vector<std::string> envs = sp.plan.env.to_strings();
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : envs) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::vector<std::pair<int, rlim_t>> limits;
  const Limits& l = sp.plan.limits;
  if (l.memory) limits.emplace_back(RLIMIT_AS, static_cast<rlim_t>(*l.memory));
  if (l.cpu_seconds) limits.emplace_back(RLIMIT_CPU, static_cast<rlim_t>(*l.cpu_seconds));
  if (l.pids) limits.emplace_back(RLIMIT_NPROC, static_cast<rlim_t>(*l.pids));
  if (l.file_size) limits.emplace_back(RLIMIT_FSIZE, static_cast<rlim_t>(*l.file_size));
  if (l.open_files) limits.emplace_back(RLIMIT_NOFILE, static_cast<rlim_t>(*l.open_files));
  const char* path = options.sandbox_exec.c_str();
  const char* cwd = sp.plan.cwd.c_str();

  int status_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0) return make_error("spawn", "cannot open /dev/null", "/dev/null", errno);
  if (::pipe(status_pipe) < 0 || ::pipe(err_pipe) < 0) {
    int e = errno;
    ::close(devnull);
    close_fd(status_pipe[0]);
    close_fd(status_pipe[1]);
    return make_error("spawn", "pipe failed", "", e);
  }
  for (int fd : {status_pipe[0], status_pipe[1], err_pipe[0], err_pipe[1]})
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);

  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    for (int* fd : {&devnull, &status_pipe[0], &status_pipe[1], &err_pipe[0], &err_pipe[1]})
      close_fd(*fd);
    return make_error("spawn", "fork failed", "", e);
  }
  if (pid == 0) {
    auto fail = [&](int step) {
      ChildFailure f{step, errno};
      (void)!::write(status_pipe[1], &f, sizeof f);
      ::_exit(127);
    };
    // PROC-2: a new session, so no controlling terminal; it is its own process group too.
    if (::setsid() < 0) fail(1);
    if (::dup2(devnull, 0) < 0) fail(2);
    if (::dup2(err_pipe[1], 2) < 0) fail(3);
    if (*cwd && ::chdir(cwd) < 0) fail(4);
    for (const auto& [resource, value] : limits) {
      struct rlimit r = {value, value};
      if (::setrlimit(resource, &r) < 0) fail(5);
    }
    ::execve(path, argv.data(), envp.data());
    fail(6);
  }
  close_fd(devnull);
  close_fd(status_pipe[1]);
  close_fd(err_pipe[1]);
  ChildFailure failure{0, 0};
  ssize_t got;
  do {
    got = ::read(status_pipe[0], &failure, sizeof failure);
  } while (got < 0 && errno == EINTR);
  close_fd(status_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof failure)) {
    ::waitpid(pid, nullptr, 0);
    close_fd(err_pipe[0]);
    return make_error("spawn",
                      std::string("could not start sandbox-exec: ") + step_name(failure.step) +
                          " failed (" + std::strerror(failure.err) + ")",
                      options.sandbox_exec, failure.err);
  }
  if (on_started) on_started(pid);

  SeatbeltRun run;
  run.pid = pid;
  const auto deadline = sp.plan.timeout
                            ? std::optional(std::chrono::steady_clock::now() + *sp.plan.timeout)
                            : std::nullopt;
  bool exited = false;
  int status = 0;
  char buf[4096];
  while (!exited || err_pipe[0] >= 0) {
    if (!exited) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) exited = true;
    }
    if (!exited && deadline && std::chrono::steady_clock::now() >= *deadline) {
      // PROC-4: the whole tree; sandbox-exec became the command, whose group this is.
      ::kill(-pid, SIGKILL);
      run.timed_out = true;
    }
    if (err_pipe[0] < 0) {
      if (!exited) ::usleep(10000);
      continue;
    }
    struct pollfd p = {err_pipe[0], POLLIN, 0};
    int ready = ::poll(&p, 1, exited ? 0 : 50);
    if (ready <= 0) {
      // After the command exited, output still held by a leftover process is not waited for.
      if (exited) close_fd(err_pipe[0]);
      continue;
    }
    ssize_t n = ::read(err_pipe[0], buf, sizeof buf);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      close_fd(err_pipe[0]);
      continue;
    }
    (void)!::write(2, buf, static_cast<size_t>(n));
    run.err_tail.append(buf, static_cast<size_t>(n));
    if (run.err_tail.size() > 8192) run.err_tail.erase(0, run.err_tail.size() - 8192);
  }
  // The command's group ends with it: background processes do not outlive it (PROC-1 as far as
  // macOS allows; a process that called setsid() left the group).
  ::kill(-pid, SIGKILL);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  run.sandbox_failed = (run.exit_code == 65 || run.exit_code == 71) &&
                       run.err_tail.find("sandbox-exec: ") != std::string::npos;
  return run;
}

}  // namespace cordon
