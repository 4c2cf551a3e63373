// Starting one process and waiting for it: the only code that forks, execs, waits and kills.
// The process primitive's interface: run_process and its helpers (ProcessSpec, ProcessOutcome).
// Two implementations: process/linux/process.cc (clone, pidfd, /proc; bwrap's status fd) and
// process_posix/process.cc (fork and exec, a SIGCHLD self-pipe, the process table of
// process_table/process_table.h), which a macOS build links and which the Linux tests also run.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/policy.h"
#include "core/env.h"
#include "core/result.h"
#include "process/process_feed.h"

namespace cordon {

// kStream: a pipe fed as data arrives through ProcessSpec::feed (a background job, issue 30);
// the Linux primitive only (the POSIX one refuses it).
enum class InputMode { kInherit, kNull, kData, kStream };
enum class OutputMode {
  kInherit,  // the child writes to our own descriptor
  kCapture,  // kept in memory (up to capture_limit bytes)
  kTee,      // forwarded to our own descriptor as it comes, and its tail kept for notes
};

struct ProcessSpec {
  std::string path;               // executable (absolute)
  std::vector<std::string> argv;  // argv[0] included
  EnvMap env;                     // the whole environment of the child
  std::string cwd;                // chdir before exec; empty stays
  // Descriptors handed to the child: (our descriptor, its number in the child). Our
  // descriptors must be >= 10 and the child's numbers small (3..9).
  std::vector<std::pair<int, int>> pass_fds;
  bool new_process_group = true;      // our terminal's Ctrl-C reaches cordon, not the child
  bool end_group_on_exit = false;     // SIGKILL the process group once the first process exits
  Limits limits;                      // applied as rlimits before exec (PROC-6)
  std::vector<int> cgroup_procs_fds;  // cgroup.procs files the child joins ("0") before exec
  // A cgroup v2 folder the child is born in (clone3 with CLONE_INTO_CGROUP: no move, so no wait
  // for an RCU grace period, PERF-1); -1 for none. On a kernel without clone3 the child joins
  // `cgroup_procs_fds` instead.
  int cgroup_fd = -1;
  // Namespaces the child joins after its cgroups and before exec, in this order: (descriptor,
  // CLONE_NEW* type). The session's loopback (JOB-2): its user namespace, then its network
  // namespace. A join that fails ends the child before exec. Linux only.
  std::vector<std::pair<int, int>> join_namespaces;
  // LL-1: the child's last step before it execs (after its folder): confines it (Landlock,
  // seccomp). Runs in the child, so async-signal-safe calls only; returns 0, or -1
  // with errno set (the child then ends before exec). Null for none.
  int (*confine)(const void* arg) = nullptr;
  const void* confine_arg = nullptr;
  InputMode in = InputMode::kNull;
  std::string in_data;
  OutputMode out = OutputMode::kInherit, err = OutputMode::kInherit;
  size_t capture_limit = 1 << 20;  // bytes kept per captured stream
  std::optional<std::chrono::milliseconds> timeout;
  // After the first process exits, how long to keep reading output that something else still
  // holds open before returning (an unconfined command's background processes).
  std::chrono::milliseconds output_grace{2000};
  int bwrap_status_fd = -1;  // our read end of bwrap's --json-status-fd pipe
  int cancel_fd = -1;        // readable when the caller wants the command ended (Ctrl-C)
  // NET-4: an environment marker (NAME=VALUE, set in `env` too) that finds the processes of an
  // unconfined command that left its process group, after it ends.
  std::string marker;
  // A background job's live link (issue 30): input for kStream, each piece of output as it
  // comes (besides what is kept), and signals for the tree. Null for a one-shot command.
  std::shared_ptr<ProcessFeed> feed;
  // JOB-3: the socket the terminal stage inside the sandbox sends the terminal's master over;
  // -1 for none. Once it came, the master is the command's output (stream 1) and its input
  // (in_data or the feed's, each end of input given as the terminal's end-of-file character),
  // and the feed's resizes set its size. The Linux primitive only.
  int tty_socket = -1;
};

struct ProcessOutcome {
  pid_t pid = -1;                      // the process we started
  pid_t sandbox_pid = -1;              // bwrap's child (pid 1 of the sandbox), from the status fd
  bool bwrap_started = false;          // bwrap reported a child pid: setup finished
  std::optional<int> bwrap_exit_code;  // from the status fd
  int exit_code = -1;                  // WEXITSTATUS, or -1
  int signal = 0;                      // WTERMSIG, or 0
  bool timed_out = false;
  bool canceled = false;
  bool output_cut = false;  // stopped reading after output_grace
  // PROC-1: the sandbox's pid 1 stayed stopped or traced (a command froze it), so the whole
  // sandbox was ended rather than waited for forever.
  bool pid1_stopped = false;
  std::string out, err;  // captured (or the tail of a tee'd stream)
  bool out_truncated = false, err_truncated = false;
  // kTee of stderr under bwrap: leading "bwrap: ..." lines that were held back and not shown
  // (bwrap's own failure, such as a command not found); the caller shows or translates them.
  std::string held_err;
  std::chrono::steady_clock::time_point started, ended;
  // PROC-3: processes of the sandbox that could not be confirmed ended (even after SIGKILL).
  std::vector<int> not_ended;
  // NET-4: processes of an unconfined command still running outside its process group.
  std::vector<int> escaped;
};

// The fields of /proc/PID/stat cordon reads; nullopt when the process does not exist.
struct ProcStat {
  char state = '?';  // 'R', 'S', 'Z', ...
  int ppid = 0;
  int pgrp = 0;
  long long start = 0;  // start time in clock ticks since boot (field 22)
};
std::optional<ProcStat> read_proc_stat(int pid);

// An owned descriptor, closed when it goes.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd& operator=(Fd&& o) noexcept {
    reset();
    fd = o.fd;
    o.fd = -1;
    return *this;
  }
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// A close-on-exec pipe whose ends are numbered 10 and up, clear of the small numbers handed
// to a child.
Status make_pipe(Fd& r, Fd& w);

// How many children run_process calls have registered and not yet removed (for tests: it is 0
// whenever no command is in flight, whatever way the commands ended).
size_t registered_children();

// This boot's id (/proc/sys/kernel/random/boot_id), read once per process.
std::string current_boot_id();

// Processes whose environment holds `marker` (NAME=VALUE), or whose parent is us, other than
// `except`: the ones an unconfined command left behind (NET-4).
std::vector<int> find_marked_processes(const std::string& marker, const std::vector<int>& except);

// The pids one started process brings into this cordon's record of its own children (the
// process, then a sandbox's pid 1): removed when it goes, whatever way the command ended (a
// refused sandboxed command given up before it started, an exec failure, a normal end), so
// that in a long-running server a reused pid never hides an escaped process (NET-4).
class ProcessRegistration {
 public:
  ProcessRegistration() = default;
  ProcessRegistration(const ProcessRegistration&) = delete;
  ProcessRegistration& operator=(const ProcessRegistration&) = delete;
  ProcessRegistration(ProcessRegistration&& o) noexcept : pids_(std::move(o.pids_)) {
    o.pids_.clear();
  }
  // Takes o's pids; ours go with o.
  ProcessRegistration& operator=(ProcessRegistration&& o) noexcept {
    pids_.swap(o.pids_);
    return *this;
  }
  ~ProcessRegistration();
  void add(int pid);

 private:
  std::vector<int> pids_;
};

// A process created by spawn_process and not yet waited for: our ends of its pipes, its pidfd
// and its registration. Dropped without wait_process, it is killed and collected: a sandbox
// given up before its command started leaves nothing behind.
class StartedProcess {
 public:
  StartedProcess() = default;
  StartedProcess(StartedProcess&& o) noexcept;
  StartedProcess& operator=(StartedProcess&&) = delete;
  StartedProcess(const StartedProcess&) = delete;
  ~StartedProcess();
  pid_t pid() const { return pid_; }

 private:
  friend Result<StartedProcess> spawn_process(const ProcessSpec& spec);
  friend Result<ProcessOutcome> wait_process(StartedProcess& p, const ProcessSpec& spec);
  pid_t pid_ = -1;
  bool group_ = false;  // it leads a process group of its own
  bool collected_ = false;
  // Ours: its pidfd (Linux), which becomes readable when it exits; input to write, output
  // and errors to read.
  Fd exit_fd_, in_, out_, err_;
  ProcessRegistration registration_;
};

// Creates the process (CLONE_VM | CLONE_VFORK: it runs once it has called execve). An error
// with code "exec" when the child could not be set up or started ("spawn" when cordon could
// not create it); nothing stays registered then.
Result<StartedProcess> spawn_process(const ProcessSpec& spec);

// Waits for a started process: feeds its input, collects its output and bwrap's status (when
// spec.bwrap_status_fd is set), ends it on timeout or cancel (PROC-1, PROC-3, NET-4).
Result<ProcessOutcome> wait_process(StartedProcess& p, const ProcessSpec& spec);

// spawn_process, then `on_started` (to write a leftover record), then wait_process. Kills the
// process group (or, for a sandbox, bwrap and its pid 1) on timeout or cancel.
Result<ProcessOutcome> run_process(const ProcessSpec& spec,
                                   const std::function<void(pid_t)>& on_started = {});

// Looks a command up in PATH (of `env`) like execvp; returns "" when not found.
std::string resolve_command(const std::string& name, const EnvMap& env, const std::string& cwd);

// RES-4: what a shell finds for `name` on PATH. Folders that cannot be searched are skipped, as
// a shell skips them; `path` is the first runnable file, else the first file found that cannot
// be run (`runnable` false: exit 126), else "" (not found: exit 127).
//   find_command("ls", env, "/") == {"/usr/bin/ls", true}
struct FoundCommand {
  std::string path;
  bool runnable = false;
};
FoundCommand find_command(const std::string& name, const EnvMap& env, const std::string& cwd);

// A memfd (close-on-exec, at a descriptor >= 10) holding `data`, positioned at 0.
Result<int> memfd_with(const char* name, const std::string& data);

}  // namespace cordon
