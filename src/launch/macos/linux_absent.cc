// A macOS build has no bubblewrap backend, no cgroups and no Linux probe: this file stands in
// for
// src/launch/linux/{launcher,landlock_launcher,landlock_probe,probe,cgroup,bwrap_info,tty_link,tty_stage,session_loopback}.cc
// there, so the code above the backend links unchanged (net_absent.cc does the same for NET-7's
// stage). The backend is chosen in one place (backend_choice.h): on macOS it is Seatbelt, so none
// of these is reached; if one is, it says why it cannot run.
#include <fmt/format.h>

#include <cstdio>

#include "launch/linux/bwrap_info.h"
#include "launch/linux/cgroup.h"
#include "launch/linux/landlock_launcher.h"
#include "launch/linux/landlock_probe.h"
#include "launch/linux/launcher.h"
#include "launch/linux/namespace_check.h"
#include "launch/linux/probe.h"
#include "launch/linux/session_loopback.h"
#include "launch/linux/tty_link.h"
#include "launch/linux/tty_stage.h"

namespace cordon {

namespace {

constexpr const char* kNoBwrap =
    "the bubblewrap backend is Linux's; this cordon was built for macOS, where commands run "
    "under Seatbelt (sandbox-exec)";

}  // namespace

Result<ProcessOutcome> launch_sandbox(const Plan&, const std::string&, const std::string&,
                                      const LaunchIo&, const std::function<void(pid_t)>&) {
  return make_error(ErrorKind::kUnavailable, kNoBwrap);
}

struct PendingSandbox::State {};

PendingSandbox::PendingSandbox(std::unique_ptr<State> s) : s_(std::move(s)) {}
PendingSandbox::PendingSandbox(PendingSandbox&&) noexcept = default;
PendingSandbox& PendingSandbox::operator=(PendingSandbox&&) noexcept = default;
PendingSandbox::~PendingSandbox() = default;

Result<PendingSandbox> PendingSandbox::start(const ProcessPart&, const Limits&,
                                             std::optional<std::chrono::milliseconds>,
                                             const std::string&, const std::string&,
                                             const LaunchIo&) {
  return make_error(ErrorKind::kUnavailable, kNoBwrap);
}

// LL-1: Landlock is Linux's; the backend choice refuses it on macOS before these are reached.
Result<ProcessOutcome> launch_landlock(const Plan&, const LandlockRules&, const std::string&,
                                       const LaunchIo&, const std::function<void(pid_t)>&) {
  return make_error(ErrorKind::kUnavailable,
                    "Landlock is Linux's; this cordon was built for macOS");
}
bool namespaces_refused() { return false; }

ProbeReport run_landlock_probe() {
  ProbeReport r;
  r.cause = "Landlock is Linux's; this cordon was built for macOS";
  r.fix = "remove [sandbox] backend = \"landlock\"";
  return r;
}

// JOB-3: the terminal stage runs inside a bwrap sandbox only.
Result<std::unique_ptr<TtyLink>> TtyLink::add(LaunchIo&, TtySize, const std::string&) {
  return make_error(ErrorKind::kUnavailable, kNoBwrap);
}
TtyLink::~TtyLink() = default;
int tty_stage_main(int, char**) {
  std::fprintf(stderr, "cordon: %s\n", kNoBwrap);
  return 1;
}

pid_t PendingSandbox::pid() const { return -1; }
Status PendingSandbox::hand_over(const Plan&) {
  return make_error(ErrorKind::kUnavailable, kNoBwrap);
}
Status PendingSandbox::release() { return ok_status(); }
void PendingSandbox::abort() {}
Result<ProcessOutcome> PendingSandbox::wait() {
  return make_error(ErrorKind::kUnavailable, kNoBwrap);
}

// Seatbelt has no network namespace: each command shares the machine's loopback (MAC-1).
int loopback_child_main() { return 1; }
Result<SessionLoopback> SessionLoopback::create(const std::string&) {
  return make_error(ErrorKind::kUnavailable, kNoBwrap);
}
Result<SessionLoopback> SessionLoopback::join_holder(int, long long) {
  return make_error(ErrorKind::kUnavailable, kNoBwrap);
}
SessionLoopback::SessionLoopback(SessionLoopback&&) noexcept = default;
SessionLoopback& SessionLoopback::operator=(SessionLoopback&&) noexcept = default;
SessionLoopback::~SessionLoopback() = default;
std::vector<std::pair<int, int>> SessionLoopback::join() const { return {}; }

std::string probe_cache_key(const ProbeInput&) { return ""; }

ProbeReport run_probe(const ProbeInput&) {
  ProbeReport r;
  r.checks.push_back({"bwrap_present", false, 0, kNoBwrap});
  r.failed_check = "bwrap_present";
  r.cause = kNoBwrap;
  r.fix = "unset CORDON_BACKEND (Seatbelt is the backend here)";
  return r;
}

HostHints read_host_hints(const std::string&, const Folders&) { return {}; }

Diagnosis diagnose_sandbox_start(const std::string& bwrap_stderr, const std::string&,
                                 const Folders&) {
  return diagnose_bwrap_message(bwrap_stderr, HostHints{});
}

int probe_inside_main(int, char**) {
  std::fprintf(stderr, "cordon: %s\n", kNoBwrap);
  return 1;
}

// PROC-6: rlimits alone hold the limits on macOS (no cgroups; the default process cap, never
// an rlimit, is not held).
std::map<std::string, std::string> limit_mechanisms(const Limits& limits) {
  std::map<std::string, std::string> m;
  if (limits.memory) m["memory"] = "rlimit (address space) only: macOS has no cgroups";
  if (limits.pids)
    m["pids"] = "rlimit (processes of this user, machine-wide) only: macOS has no cgroups";
  else if (limits.default_pids)
    m["pids"] =
        "not held: macOS has no cgroups (the default is never an rlimit); set [limits] "
        "pids to have one";
  if (limits.cpu_seconds) m["cpu_seconds"] = "rlimit (CPU time per process)";
  if (limits.file_size) m["file_size"] = "rlimit (file size)";
  if (limits.open_files) m["open_files"] = "rlimit (open files per process)";
  return m;
}

Result<CgroupJoin> make_cgroups(const Limits&, const std::string&) {
  return make_error(ErrorKind::kUnavailable,
                    "macOS has no cgroups: the rlimits alone hold the limits");
}

void remove_cgroups(CgroupJoin&) {}
void sweep_stale_cgroups(const CgroupJoin&) {}

BwrapInfo read_bwrap_info(const std::string& bwrap, const std::string&) {
  BwrapInfo info;
  info.path = bwrap;
  info.version_text = kNoBwrap;
  return info;
}

}  // namespace cordon
