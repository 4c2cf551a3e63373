#include "render/bwrap_args.h"

namespace cordon {

std::vector<std::string> render_bwrap_args(const Plan& plan, const BwrapFds& fds,
                                           const BwrapFeatures& features) {
  std::vector<std::string> a;
  a.reserve(plan.mounts.size() * 3 + plan.argv.size() + 24);
  // Every namespace (user, mount, pid, ipc, uts, net, cgroup). --unshare-user is explicit:
  // bwrap run by root skips the user namespace otherwise, and --disable-userns needs it.
  a.insert(a.end(), {"--unshare-all", "--unshare-user"});
  // bwrap 0.6/0.7 lack --disable-userns; the seccomp rule against CLONE_NEWUSER (PROC-7) is in
  // every plan, so the command still cannot create a user namespace (PROBE-4).
  if (features.disable_userns) a.push_back("--disable-userns");
  a.insert(a.end(), {"--die-with-parent", "--new-session", "--cap-drop", "ALL"});
  // JOB-2: in the session's loopback, bwrap keeps the network namespace the launcher joined.
  if (plan.share_network || plan.session_loopback) a.push_back("--share-net");
  for (const auto& m : plan.mounts) {
    switch (m.kind) {
      case MountKind::kRoBind:
        a.insert(a.end(), {"--ro-bind", m.src, m.dest});
        break;
      case MountKind::kBind:
        a.insert(a.end(), {"--bind", m.src, m.dest});
        break;
      case MountKind::kRoBindTry:
        a.insert(a.end(), {"--ro-bind-try", m.src, m.dest});
        break;
      case MountKind::kDev:
        a.insert(a.end(), {"--dev", m.dest});
        break;
      case MountKind::kProc:
        a.insert(a.end(), {"--proc", m.dest});
        break;
      case MountKind::kTmpfs:
        a.insert(a.end(), {"--tmpfs", m.dest});
        break;
      case MountKind::kDevBind:  // GPU-1: a device node, opened read-write by its users
        a.insert(a.end(), {"--dev-bind", m.src, m.dest});
        break;
    }
  }
  a.insert(a.end(), {"--chdir", plan.cwd});
  if (fds.seccomp >= 0) a.insert(a.end(), {"--seccomp", std::to_string(fds.seccomp)});
  if (fds.status >= 0) a.insert(a.end(), {"--json-status-fd", std::to_string(fds.status)});
  return a;
}

std::vector<std::string> bwrap_command_line(const Plan& plan, int args_fd) {
  std::vector<std::string> c = {"bwrap", "--args", std::to_string(args_fd), "--"};
  c.insert(c.end(), plan.argv.begin(), plan.argv.end());
  return c;
}

std::string nul_join(const std::vector<std::string>& args) {
  // The renderer's own guard (the plan is checked before, plan_check.h): an option that holds
  // a NUL would become two.
  for (const auto& s : args)
    if (s.find('\0') != std::string::npos) return {};
  std::string out;
  size_t n = 0;
  for (const auto& s : args) n += s.size() + 1;
  out.reserve(n);
  for (const auto& s : args) {
    out += s;
    out += '\0';
  }
  return out;
}

}  // namespace cordon
