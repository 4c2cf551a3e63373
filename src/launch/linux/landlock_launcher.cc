#include "launch/linux/landlock_launcher.h"

#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "core/trace.h"
#include "launch/linux/landlock_ruleset.h"
#include "plan/plan_check.h"
#include "plan/seccomp_rules.h"
#include "process_table/process_table.h"
#include "render/linux/seccomp_bpf.h"

namespace cordon {

namespace {

constexpr int kRulesetChildFd = 9;  // where the child finds the ruleset

// What the child reads: prepared before it starts, kept alive until it has exec'd.
struct Confinement {
  sock_fprog prog{};
};

// PROC-7: no capabilities, even for root (bwrap's user namespace does this for the other
// backend). Errors are ignored where there is nothing to drop.
void drop_capabilities() {
  for (int cap = 0; cap < 64; ++cap) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  syscall(SYS_capset, &hdr, data);
}

// In the child: async-signal-safe calls only.
int confine_child(const void* arg) {
  const auto* c = static_cast<const Confinement*>(arg);
  if (landlock_restrict(kRulesetChildFd) != 0) return -1;
  drop_capabilities();
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &c->prog) != 0) return -1;
  return 0;
}

// NET-2 and what Landlock cannot say: no UDP (Landlock rules cover TCP only), unless the
// command shares the machine's network (NET-3).
std::vector<SeccompRule> filter_rules(const Plan& plan) {
  std::vector<SeccompRule> rules = plan.seccomp;
  if (!plan.share_network) add_udp_refusal(rules);
  return rules;
}

bool marked(int pid, const std::string& marker) {
  auto env = read_process_environment(pid);
  return env && std::find(env->begin(), env->end(), marker) != env->end();
}

// PROC-3: the processes the command left that still carry its marker are killed, a few rounds
// (killing a parent hands its children to cordon, the subreaper). One that dropped the marker
// cannot be told from another command's orphan (a server runs several): it is reported as not
// ended, which holds the session until it is gone, never killed on a guess.
void end_leftovers(ProcessOutcome& o, const std::string& marker) {
  std::vector<int> unmarked;
  for (int round = 0; round < 20 && !o.escaped.empty(); ++round) {
    std::vector<int> ours;
    for (int pid : o.escaped) (marked(pid, marker) ? ours : unmarked).push_back(pid);
    if (ours.empty()) break;
    for (int pid : ours) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (int pid : ours) {
      int status;
      waitpid(pid, &status, WNOHANG);
    }
    o.escaped.clear();
    for (int pid : find_marked_processes(marker, {}))
      if (std::find(unmarked.begin(), unmarked.end(), pid) == unmarked.end())
        o.escaped.push_back(pid);
  }
  for (int pid : o.escaped)
    if (std::find(unmarked.begin(), unmarked.end(), pid) == unmarked.end() && ::kill(pid, 0) == 0)
      o.not_ended.push_back(pid);
  for (int pid : unmarked)
    if (::kill(pid, 0) == 0) o.not_ended.push_back(pid);
  o.escaped.clear();
}

}  // namespace

Result<ProcessOutcome> launch_landlock(const Plan& plan, const LandlockRules& rules,
                                       const std::string& cache_dir, const LaunchIo& io,
                                       const std::function<void(pid_t)>& on_started) {
  if (auto r = check_plan(plan)) return make_error(ErrorKind::kInvalid, r->message);
  LandlockNet net;
  net.restrict = !plan.share_network;
  if (plan.proxy_port) net.tcp_ports.push_back(*plan.proxy_port);
  auto ruleset = make_landlock_ruleset(rules, net);
  if (!ruleset.ok()) return ruleset.error();
  trace("landlock: ruleset made");
  auto bpf = cached_filter(filter_rules(plan), cache_dir);
  if (!bpf.ok()) return bpf.error();
  trace("landlock: filter ready");
  Confinement conf;
  conf.prog.len = static_cast<unsigned short>(bpf->size() / sizeof(sock_filter));
  conf.prog.filter = reinterpret_cast<sock_filter*>(bpf->data());
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);  // PROC-3: orphans come back to cordon

  // ENV-1: the plan's environment, already stripped; PROC-1's stand-in: the command's process
  // group ends with it.
  std::string marker;
  auto outcome = run_direct(plan, io, on_started, [&](ProcessSpec& spec) {
    spec.pass_fds = {{ruleset->fd, kRulesetChildFd}};
    spec.confine = confine_child;
    spec.confine_arg = &conf;
    marker = spec.marker;
  });
  if (outcome.ok()) end_leftovers(*outcome, marker);
  return outcome;
}

}  // namespace cordon
