#include "launch/linux/launcher.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <seccomp.h>
#include <signal.h>
#include <unistd.h>

#include <functional>
#include <mutex>

#include "core/fnv1a.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "launch/linux/bwrap_info.h"
#include "launch/linux/cgroup.h"
#include "plan/plan_check.h"
#include "plan/seccomp_rules.h"
#include "render/bwrap_args.h"
#include "render/linux/seccomp_bpf.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

constexpr const char* kNulOption =
    "a sandbox option holds a NUL byte, which would split it in two; the command was not run.";

// JOB-2: `--share-net` in the session's loopback keeps the network bwrap starts in, so bwrap
// must start in the session's namespace, never in the machine's.
std::optional<Error> loopback_mismatch(bool session_loopback, const LaunchIo& io) {
  if (session_loopback == !io.join_namespaces.empty()) return std::nullopt;
  return make_error(ErrorKind::kInvalid,
                    "the command was to run in its session's network but was not given it (or "
                    "the reverse); it was not run.");
}

// What the compiled program depends on: the rules (not why each is there), libseccomp's version
// and the architecture. A 64-bit FNV-1a over them, fed field by field (PERF-1: no key text).
uint64_t filter_key(const std::vector<SeccompRule>& rules) {
  Fnv1a h;
  for (const auto& r : rules) {
    h.bytes(r.syscall);
    h.u64(r.syscall.size());
    h.u64(static_cast<uint64_t>(r.errno_value));
    h.u64(r.args.size());
    for (const auto& a : r.args)
      for (uint64_t v : {uint64_t{a.index}, static_cast<uint64_t>(a.op), a.mask, a.value}) h.u64(v);
  }
  const scmp_version* v = seccomp_version();
  for (uint64_t x : {uint64_t{v->major}, uint64_t{v->minor}, uint64_t{v->micro},
                     uint64_t{seccomp_arch_native()}})
    h.u64(x);
  return h.value;
}

}  // namespace

// The filter is the same for every command: compile it once per process.
Result<std::string> cached_filter(const std::vector<SeccompRule>& rules,
                                  const std::string& cache_dir) {
  static std::mutex mu;
  static uint64_t last_key = 0;
  static std::string last_bpf;
  static bool have = false;
  const uint64_t key = filter_key(rules);
  std::lock_guard<std::mutex> lock(mu);
  if (have && key == last_key) return last_bpf;
  // Compiling costs about half a millisecond per command; the program is kept in the cache
  // folder by its key.
  std::string file;
  if (!cache_dir.empty()) {
    file = path_join(cache_dir, fmt::format("seccomp-v2-{:016x}.bpf", key));
    auto cached = read_file(file, 1 << 20);
    if (cached.ok() && !cached->empty() && cached->size() % 8 == 0) {
      last_key = key;
      last_bpf = std::move(*cached);
      have = true;
      return last_bpf;
    }
  }
  auto bpf = compile_seccomp(rules);
  if (!bpf.ok()) return bpf.error();
  if (!file.empty()) (void)write_file_atomic(file, *bpf, false, 0644);
  last_key = key;
  last_bpf = *bpf;
  have = true;
  return last_bpf;
}

Result<ProcessOutcome> launch_sandbox(const Plan& plan, const std::string& bwrap,
                                      const std::string& cache_dir, const LaunchIo& io,
                                      const std::function<void(pid_t)>& on_started) {
  if (auto r = check_plan(plan)) return make_error(ErrorKind::kInvalid, r->message);
  if (auto e = loopback_mismatch(plan.session_loopback, io)) return *e;
  auto bpf = cached_filter(plan.seccomp, cache_dir);
  if (!bpf.ok()) return bpf.error();
  trace("launch: filter ready");
  auto seccomp_fd = memfd_with("cordon-seccomp", *bpf);
  if (!seccomp_fd.ok()) return seccomp_fd.error();
  Fd s(*seccomp_fd);
  Fd sr, sw;
  if (auto st = make_pipe(sr, sw); !st.ok()) return st.error();
  // Inside bwrap: 3 = arguments, 4 = seccomp filter, 5 = status.
  std::vector<std::string> args =
      render_bwrap_args(plan, BwrapFds{4, 5}, read_bwrap_info(bwrap, cache_dir).features);
  std::string joined = nul_join(args);
  if (joined.empty()) return make_error(ErrorKind::kInvalid, kNulOption);
  auto args_fd = memfd_with("cordon-bwrap-args", joined);
  if (!args_fd.ok()) return args_fd.error();
  Fd a(*args_fd);

  ProcessSpec spec;
  spec.path = bwrap;
  if (io.argv_prefix.empty()) {
    spec.argv = bwrap_command_line(plan, 3);
  } else {
    Plan shape;
    shape.argv = io.argv_prefix;
    shape.argv.insert(shape.argv.end(), plan.argv.begin(), plan.argv.end());
    spec.argv = bwrap_command_line(shape, 3);
  }
  spec.env = plan.env;
  spec.pass_fds = {{a.fd, 3}, {s.fd, 4}, {sw.fd, 5}};
  spec.pass_fds.insert(spec.pass_fds.end(), io.extra_fds.begin(), io.extra_fds.end());
  spec.new_process_group = true;
  spec.limits = plan.limits;
  apply_io(spec, io);
  spec.timeout = plan.timeout;
  spec.bwrap_status_fd = sr.fd;
  CgroupScope cg(plan.limits, random_hex16());
  spec.cgroup_procs_fds = cg.join.procs_fds;
  // Our copy of the write end must close once bwrap has it, or the status never ends.
  auto started = [&](pid_t pid) {
    trace("launch: bwrap started");
    sw.reset();
    if (on_started) on_started(pid);
    sweep_stale_cgroups(cg.join);  // while the command runs
  };
  return run_process(spec, started);
}

struct PendingSandbox::State {
  ProcessPart part;  // what bwrap was started with: the plan must hold the same
  std::string bwrap, cache_dir;
  std::string bpf;  // the part's seccomp program, compiled
  Fd sr, aw, kw;    // ours: bwrap's status to read; its options and its filter to write
  // PROC-6: bwrap's cgroups, removed after bwrap was collected (so declared before proc).
  std::optional<CgroupScope> cgroup;
  ProcessSpec spec;
  std::optional<StartedProcess> proc;  // dropped: bwrap is killed and collected
};

PendingSandbox::PendingSandbox(std::unique_ptr<State> s) : s_(std::move(s)) {}
PendingSandbox::PendingSandbox(PendingSandbox&&) noexcept = default;
PendingSandbox& PendingSandbox::operator=(PendingSandbox&&) noexcept = default;
PendingSandbox::~PendingSandbox() = default;

Result<PendingSandbox> PendingSandbox::start(const ProcessPart& part, const Limits& limits,
                                             std::optional<std::chrono::milliseconds> timeout,
                                             const std::string& bwrap, const std::string& cache_dir,
                                             const LaunchIo& io) {
  if (auto e = loopback_mismatch(part.session_loopback, io)) return *e;
  auto s = std::make_unique<State>();
  s->part = part;
  s->bwrap = bwrap;
  s->cache_dir = cache_dir;
  auto bpf = cached_filter(part.seccomp, cache_dir);
  if (!bpf.ok()) return bpf.error();
  s->bpf = std::move(*bpf);
  Fd sw, ar, kr;  // bwrap's ends, closed here once it holds its own copies
  for (auto [r, w] : {std::pair<Fd*, Fd*>{&s->sr, &sw}, {&ar, &s->aw}, {&kr, &s->kw}})
    if (auto st = make_pipe(*r, *w); !st.ok()) return st.error();
  Plan shape;  // what is known now: the command line bwrap starts with
  shape.argv = io.argv_prefix;
  shape.argv.insert(shape.argv.end(), part.argv.begin(), part.argv.end());
  ProcessSpec& spec = s->spec;
  spec.path = bwrap;
  spec.argv = bwrap_command_line(shape, 3);
  spec.env = part.env;
  spec.pass_fds = {{ar.fd, 3}, {kr.fd, 4}, {sw.fd, 5}};
  spec.pass_fds.insert(spec.pass_fds.end(), io.extra_fds.begin(), io.extra_fds.end());
  spec.new_process_group = true;
  spec.limits = limits;
  apply_io(spec, io);
  spec.timeout = timeout;
  spec.bwrap_status_fd = s->sr.fd;
  // PROC-6: bwrap is in the command's cgroups from its first instruction (born there on cgroup
  // v2; on v1 its child joins them before it execs).
  const CgroupJoin& join = s->cgroup.emplace(limits, random_hex16()).join;
  spec.cgroup_fd = join.v2_dir_fd;
  spec.cgroup_procs_fds = join.procs_fds;
  auto proc = spawn_process(spec);
  if (!proc.ok()) return proc.error();
  s->proc.emplace(std::move(*proc));
  trace("launch: bwrap started early");
  return PendingSandbox(std::move(s));
}

pid_t PendingSandbox::pid() const { return s_->proc ? s_->proc->pid() : -1; }

Status PendingSandbox::hand_over(const Plan& plan) {
  const ProcessPart& part = s_->part;
  if (!s_->proc || plan.argv != part.argv || plan.env.vars != part.env.vars ||
      plan.cwd != part.cwd || plan.session_loopback != part.session_loopback ||
      !same_seccomp_rules(plan.seccomp, part.seccomp)) {
    abort();
    return make_error(ErrorKind::kAborted,
                      "the plan's process part is not the one bwrap was started with");
  }
  // The renderer refuses what slipped past the planner's check.
  if (auto r = check_plan(plan)) {
    abort();
    return make_error(ErrorKind::kInvalid, r->message);
  }
  // After the probe: bwrap's version is known by now (PROBE-4).
  std::string options = nul_join(
      render_bwrap_args(plan, BwrapFds{4, 5}, read_bwrap_info(s_->bwrap, s_->cache_dir).features));
  if (options.empty()) {
    abort();
    return make_error(ErrorKind::kInvalid, kNulOption);
  }
  if (write_fully(s_->aw.fd, options.data(), options.size()) != 0) {
    abort();
    return make_error(ErrorKind::kAborted, "bwrap ended before it took its options");
  }
  s_->aw.reset();
  trace("launch: options handed over");
  return ok_status();
}

Status PendingSandbox::release() {
  // A write that fails means bwrap is gone: what it said is the outcome's to report.
  (void)write_fully(s_->kw.fd, s_->bpf.data(), s_->bpf.size());
  s_->kw.reset();
  trace("launch: command released");
  if (s_->cgroup) sweep_stale_cgroups(s_->cgroup->join);  // while the command runs
  return ok_status();
}

void PendingSandbox::abort() {
  // bwrap and its process group killed, bwrap collected, before the filter was written. The
  // group reaches bwrap's pid 1, which stays in it until its --new-session, after it read the
  // filter: an abort never lets it get there. Killed with bwrap alone, pid 1 could be left
  // waiting for bwrap (an eventfd) for good, with no death signal yet.
  s_->proc.reset();
  s_->aw.reset();
  s_->kw.reset();
}

Result<ProcessOutcome> PendingSandbox::wait() {
  if (!s_->proc) return make_error(ErrorKind::kAborted, "the command was not started");
  auto outcome = wait_process(*s_->proc, s_->spec);
  s_->proc.reset();
  return outcome;
}

}  // namespace cordon
