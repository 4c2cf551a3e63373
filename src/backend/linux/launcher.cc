#include "backend/linux/launcher.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <seccomp.h>
#include <signal.h>
#include <unistd.h>

#include <functional>
#include <mutex>

#include "backend/linux/bwrap_args.h"
#include "backend/linux/bwrap_info.h"
#include "backend/linux/cgroup.h"
#include "backend/linux/seccomp_bpf.h"
#include "core/fs_util.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "plan/seccomp_rules.h"

namespace cordon {

namespace {

constexpr const char* kNulOption =
    "a sandbox option holds a NUL byte, which would split it in two; the command was not run.";

// The filter is the same for every command: compile it once per process.
Result<std::string> cached_filter(const std::vector<SeccompRule>& rules,
                                  const std::string& cache_dir) {
  static std::mutex mu;
  static std::vector<SeccompRule> last_rules;
  static std::string last_bpf;
  static bool have = false;
  std::lock_guard<std::mutex> lock(mu);
  auto same = [&] {
    if (!have || last_rules.size() != rules.size()) return false;
    for (size_t i = 0; i < rules.size(); ++i) {
      const auto &a = rules[i], &b = last_rules[i];
      if (a.syscall != b.syscall || a.errno_value != b.errno_value ||
          a.args.size() != b.args.size())
        return false;
      for (size_t j = 0; j < a.args.size(); ++j)
        if (a.args[j].index != b.args[j].index || a.args[j].op != b.args[j].op ||
            a.args[j].mask != b.args[j].mask || a.args[j].value != b.args[j].value)
          return false;
    }
    return true;
  };
  if (same()) return last_bpf;
  // Compiling costs about half a millisecond per command; the program depends only on the
  // rules, libseccomp and the architecture, so it is kept in the cache folder by that key.
  std::string file;
  if (!cache_dir.empty()) {
    std::string key;
    for (const auto& r : rules) {
      key += r.syscall + ":" + std::to_string(r.errno_value);
      for (const auto& a : r.args)
        key += fmt::format(",{}/{}/{:x}/{:x}", a.index, static_cast<int>(a.op), a.mask, a.value);
      key += ";";
    }
    const scmp_version* v = seccomp_version();
    key += fmt::format("libseccomp {}.{}.{} arch {}", v->major, v->minor, v->micro,
                       seccomp_arch_native());
    file = path_join(cache_dir, fmt::format("seccomp-{:016x}.bpf", std::hash<std::string>{}(key)));
    auto cached = read_file(file, 1 << 20);
    if (cached.ok() && !cached->empty() && cached->size() % 8 == 0) {
      last_rules = rules;
      last_bpf = std::move(*cached);
      have = true;
      return last_bpf;
    }
  }
  auto bpf = compile_seccomp(rules);
  if (!bpf.ok()) return bpf.error();
  if (!file.empty()) (void)write_file_atomic(file, *bpf, false, 0644);
  last_rules = rules;
  last_bpf = *bpf;
  have = true;
  return last_bpf;
}

}  // namespace

Result<ProcessOutcome> launch_sandbox(const Plan& plan, const std::string& bwrap,
                                      const std::string& cache_dir, const LaunchIo& io,
                                      const std::function<void(pid_t)>& on_started) {
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
  if (joined.empty()) return make_error("invalid", kNulOption);
  auto args_fd = memfd_with("cordon-bwrap-args", joined);
  if (!args_fd.ok()) return args_fd.error();
  Fd a(*args_fd);

  ProcessSpec spec;
  spec.path = bwrap;
  spec.argv = bwrap_command_line(plan, 3);
  spec.env = plan.env;
  spec.pass_fds = {{a.fd, 3}, {s.fd, 4}, {sw.fd, 5}};
  spec.new_process_group = true;
  spec.limits = plan.limits;
  spec.in = io.in;
  spec.in_data = io.in_data;
  spec.out = io.out;
  spec.err = io.err;
  spec.capture_limit = io.capture_limit;
  spec.timeout = plan.timeout;
  spec.bwrap_status_fd = sr.fd;
  spec.cancel_fd = io.cancel_fd;
  CgroupScope cg(plan.limits, random_hex16());
  spec.cgroup_procs_fds = cg.join.procs_fds;
  // Our copy of the write end must close once bwrap has it, or the status never ends.
  auto started = [&](pid_t pid) {
    trace("launch: bwrap started");
    sw.reset();
    if (on_started) on_started(pid);
  };
  return run_process(spec, started);
}

Result<ProcessOutcome> launch_sandbox_early(const ProcessPart& part, const Limits& limits,
                                            std::optional<std::chrono::milliseconds> timeout,
                                            const std::string& bwrap, const std::string& cache_dir,
                                            const LaunchIo& io,
                                            const std::function<std::optional<Plan>()>& prepare,
                                            const std::function<bool(pid_t)>& commit) {
  const std::vector<SeccompRule> rules = default_seccomp_rules();
  auto bpf = cached_filter(rules, cache_dir);
  if (!bpf.ok()) return bpf.error();
  Fd sr, sw, ar, aw;
  if (auto st = make_pipe(sr, sw); !st.ok()) return st.error();
  if (auto st = make_pipe(ar, aw); !st.ok()) return st.error();
  // The gate is the seccomp filter, handed over through a pipe: bwrap reads it after it built
  // the sandbox, right before it starts the command, and reads until the end of the pipe. It
  // is written once the command may run. If cordon decides otherwise (or dies), the pipe ends
  // empty, and bwrap cannot install an empty filter (EINVAL): it exits without starting the
  // command, even a sandbox process that outlived bwrap's first process (its set-up does not
  // die with its parent). The filter is a few kilobytes, well within a pipe's buffer.
  Fd kr, kw;
  if (auto st = make_pipe(kr, kw); !st.ok()) return st.error();

  Plan shape;  // what is known now: the command line bwrap starts with
  shape.argv = part.argv;
  ProcessSpec spec;
  spec.path = bwrap;
  spec.argv = bwrap_command_line(shape, 3);
  spec.env = part.env;
  spec.pass_fds = {{ar.fd, 3}, {kr.fd, 4}, {sw.fd, 5}};
  spec.new_process_group = true;
  spec.limits = limits;
  spec.in = io.in;
  spec.in_data = io.in_data;
  spec.out = io.out;
  spec.err = io.err;
  spec.capture_limit = io.capture_limit;
  spec.timeout = timeout;
  spec.bwrap_status_fd = sr.fd;
  spec.cancel_fd = io.cancel_fd;
  CgroupScope cg(limits, random_hex16());
  spec.cgroup_procs_fds = cg.join.procs_fds;
  spec.feed = [&](pid_t pid) {
    // bwrap holds its own copies now.
    ar.reset();
    sw.reset();
    kr.reset();
    trace("launch: bwrap started early");
    std::optional<Plan> plan = prepare();
    if (!plan) return false;
    // The process part was fixed at start: the plan must agree with it.
    if (plan->argv != part.argv || plan->env.vars != part.env.vars ||
        plan->seccomp.size() != rules.size())
      return false;
    // After `prepare`, which probed: the version is known by now (PROBE-4).
    std::string options = nul_join(
        render_bwrap_args(*plan, BwrapFds{4, 5}, read_bwrap_info(bwrap, cache_dir).features));
    if (options.empty() || write_fully(aw.fd, options.data(), options.size()) != 0) return false;
    aw.reset();
    trace("launch: options handed over");
    if (!commit(pid)) return false;  // run_process kills bwrap; the filter pipe ends empty
    // A write that fails means bwrap is gone: what it said is the outcome's to report.
    (void)write_fully(kw.fd, bpf->data(), bpf->size());
    kw.reset();
    trace("launch: command released");
    return true;
  };
  return run_process(spec);
}

}  // namespace cordon
