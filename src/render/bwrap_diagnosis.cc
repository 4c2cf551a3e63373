#include "render/bwrap_diagnosis.h"

#include <fmt/format.h>

#include "core/strings.h"

namespace cordon {

namespace {

std::string where_config(const HostHints& h) {
  return h.config_file.empty() ? std::string("cordon's config.toml") : h.config_file;
}

// External mode first when the container is the boundary (PROBE-4).
std::string external_first(const HostHints& h) {
  return fmt::format(
      "if this container is the boundary, set mode = \"external\" under [sandbox] "
      "in {}",
      where_config(h));
}

std::string container_options(const HostHints& h, bool proc) {
  std::string docker = proc ? "Docker `--security-opt systempaths=unconfined`"
                            : "Docker `--security-opt seccomp=unconfined --security-opt "
                              "apparmor=unconfined`";
  std::string podman = proc ? "Podman `--security-opt unmask=/proc/*`"
                            : "Podman `--security-opt seccomp=unconfined --security-opt "
                              "apparmor=unconfined`";
  if (h.container_kind == "docker") return docker;
  if (h.container_kind == "podman") return podman;
  return docker + "; " + podman;
}

std::string apparmor_fix(const HostHints& h) {
  std::string bwrap = h.bwrap_path.empty() ? "/usr/bin/bwrap" : h.bwrap_path;
  return fmt::format(
      "install an AppArmor profile that lets {} create user namespaces: run `sudo "
      "cordon setup apparmor` (it writes {} and loads it with apparmor_parser "
      "-r); or, for every program on this machine, `{}`",
      bwrap, kAppArmorProfileFile, kAppArmorSysctlCommand);
}

Diagnosis apparmor(const BwrapMessageRow& row, const HostHints& h) {
  Diagnosis d;
  if (h.apparmor_restrict_userns == 1) {
    d.cause = fmt::format(
        "AppArmor restricts unprivileged user namespaces on this machine "
        "(kernel.apparmor_restrict_unprivileged_userns = 1): bwrap's new "
        "namespace has no privileges, so {} failed",
        row.step);
  } else {
    d.cause = fmt::format(
        "bwrap's new user namespace has no privileges, so {} failed (what "
        "AppArmor's restriction of unprivileged user namespaces does on "
        "Ubuntu 23.10 and later)",
        row.step);
  }
  d.fix = apparmor_fix(h);
  if (!h.container.empty()) d.fix = external_first(h) + "; otherwise " + d.fix;
  return d;
}

Diagnosis container(const BwrapMessageRow& row, const HostHints& h, bool proc) {
  Diagnosis d;
  std::string what = proc ? "masks parts of /proc, and the kernel refuses a fresh /proc over a "
                            "masked one"
                          : "refuses the namespaces and mounts a sandbox needs (its seccomp "
                            "and AppArmor profiles)";
  if (!h.container.empty()) {
    d.cause = fmt::format("{} failed: this machine looks like a container ({}), which {}", row.step,
                          h.container, what);
    d.fix = external_first(h) +
            "; otherwise start the container with options that let bwrap "
            "run: " +
            container_options(h, proc);
  } else {
    d.cause = fmt::format(
        "{} failed: something refuses what a sandbox needs, as a container "
        "does (no container was detected; a security module or a "
        "container runtime cordon does not know may be the cause)",
        row.step);
    d.fix =
        "if cordon runs in a container that is the boundary, set mode = \"external\" under "
        "[sandbox] in " +
        where_config(h) +
        "; otherwise start the container with options "
        "that let bwrap run: " +
        container_options(h, proc);
  }
  return d;
}

Diagnosis no_userns(const BwrapMessageRow& row, const HostHints& h) {
  Diagnosis d;
  std::vector<std::string> why, fixes;
  if (h.unprivileged_userns_clone == 0) {
    why.push_back("kernel.unprivileged_userns_clone = 0");
    fixes.push_back("`sudo sysctl -w kernel.unprivileged_userns_clone=1`");
  }
  if (h.max_user_namespaces == 0) {
    why.push_back("user.max_user_namespaces = 0");
    fixes.push_back("`sudo sysctl -w user.max_user_namespaces=15000`");
  }
  if (fixes.empty()) {
    fixes = {"`sudo sysctl -w kernel.unprivileged_userns_clone=1` (Debian's switch)",
             "make sure user.max_user_namespaces is above 0 (`sudo sysctl -w "
             "user.max_user_namespaces=15000`)"};
  }
  d.cause = fmt::format(
      "this kernel does not let unprivileged users create user namespaces{}, "
      "so {} failed",
      why.empty() ? "" : " (" + join(why, ", ") + ")", row.step);
  d.fix = "allow them: " + join(fixes, " and ") +
          ", kept across reboots in a file under "
          "/etc/sysctl.d/";
  if (!h.container.empty()) d.fix = external_first(h) + "; otherwise, on the host, " + d.fix;
  return d;
}

Diagnosis old_bwrap(const std::string& msg, const HostHints& h) {
  Diagnosis d;
  std::string option = "an option";
  size_t at = msg.find("Unknown option ");
  if (at != std::string::npos) {
    size_t b = at + 15, e = msg.find_first_of(" \n:", b);
    option = msg.substr(b, e == std::string::npos ? std::string::npos : e - b);
  }
  d.cause = fmt::format("bwrap {} does not know {}, which cordon passed",
                        h.bwrap_version ? h.bwrap_version->str() : "(version unknown)", option);
  d.fix =
      "install bubblewrap 0.8 or newer; cordon leaves out the options an older bwrap (0.6 "
      "or newer) lacks when `bwrap --version` names its version, so please also report "
      "this with the output of `" +
      (h.bwrap_path.empty() ? std::string("bwrap") : h.bwrap_path) + " --version`";
  return d;
}

}  // namespace

const std::vector<BwrapMessageRow>& bwrap_message_table() {
  static const std::vector<BwrapMessageRow> table = {
      // Ubuntu 23.10+ (kernel.apparmor_restrict_unprivileged_userns = 1): the user namespace
      // is created, then everything that needs its privileges is denied.
      {"loopback_newaddr",
       {"loopback: Failed RTM_NEWADDR"},
       "bringing up loopback in the new network namespace",
       SandboxCause::kAppArmorUserns},
      {"loopback_newlink",
       {"loopback: Failed RTM_NEWLINK"},
       "bringing up loopback in the new network namespace",
       SandboxCause::kAppArmorUserns},
      {"uid_map",
       {"setting up uid map"},
       "writing the user namespace's uid map",
       SandboxCause::kAppArmorUserns},
      {"gid_map",
       {"setting up gid map"},
       "writing the user namespace's gid map",
       SandboxCause::kAppArmorUserns},
      {"setgroups",
       {"error writing to setgroups"},
       "writing the user namespace's setgroups",
       SandboxCause::kAppArmorUserns},
      // Kernels without unprivileged user namespaces; bwrap 0.11.1 fixed the grammar.
      {"userns_not_permitted",
       {"No permissions to creating new namespace", "No permissions to create a new namespace"},
       "creating the user namespace",
       SandboxCause::kNoUserns},
      {"userns_unsupported",
       {"kernel does not support user namespaces"},
       "creating the user namespace",
       SandboxCause::kNoUsernsKernel},
      // bwrap 0.7+ names the limit; older ones print the errno.
      {"userns_limit",
       {"max_*_namespaces exceeded", "Creating new namespace failed: No space left on device"},
       "creating the user namespace",
       SandboxCause::kUsernsLimit},
      // Docker's default seccomp profile refuses unshare/clone with namespace flags.
      {"new_namespace_failed",
       {"Creating new namespace failed"},
       "creating the namespaces",
       SandboxCause::kContainer},
      {"root_slave",
       {"Failed to make / slave"},
       "making / a slave mount (mount propagation)",
       SandboxCause::kContainer},
      {"mount_tmpfs",
       {"Failed to mount tmpfs"},
       "mounting the new root (tmpfs)",
       SandboxCause::kContainer},
      {"newroot_bind",
       {"setting up newroot bind"},
       "binding the new root",
       SandboxCause::kContainer},
      {"pivot_root",
       {"pivot_root"},
       "switching to the new root (pivot_root)",
       SandboxCause::kContainer},
      {"mount_devpts", {"Can't mount devpts on"}, "mounting /dev/pts", SandboxCause::kContainer},
      // Docker and Podman mask /proc/kcore, /proc/sys, ...: a fresh procfs is refused.
      {"mount_proc",
       {"Can't mount proc on"},
       "mounting a fresh /proc",
       SandboxCause::kContainerProc},
      {"unknown_option", {"Unknown option"}, "reading cordon's options", SandboxCause::kOldBwrap},
      {"disable_userns",
       {"creation of new user namespaces was not disabled as requested",
        "sysctl user.max_user_namespaces = 1", "cannot open /proc/sys/user/max_user_namespaces"},
       "disabling new user namespaces inside the sandbox (--disable-userns)",
       SandboxCause::kNoDisableUserns},
  };
  return table;
}

Diagnosis diagnose_bwrap_message(const std::string& bwrap_stderr, const HostHints& h) {
  const std::string msg = trim(bwrap_stderr);
  for (const auto& row : bwrap_message_table()) {
    bool hit = false;
    for (const char* n : row.needles)
      if (msg.find(n) != std::string::npos) hit = true;
    if (!hit) continue;
    Diagnosis d;
    switch (row.cause) {
      case SandboxCause::kAppArmorUserns:
        // Without the AppArmor switch, a container explains a refused map better.
        d = h.apparmor_restrict_userns != 1 && !h.container.empty() ? container(row, h, false)
                                                                    : apparmor(row, h);
        break;
      case SandboxCause::kNoUserns:
        d = no_userns(row, h);
        break;
      case SandboxCause::kNoUsernsKernel:
        d.cause =
            fmt::format("this kernel was built without user namespaces, so {} failed", row.step);
        d.fix =
            "use a kernel with user namespaces (CONFIG_USER_NS; every major distribution's "
            "kernel has them), or, when this machine is itself the boundary, set mode = "
            "\"external\" under [sandbox] in " +
            where_config(h);
        break;
      case SandboxCause::kUsernsLimit:
        d.cause = fmt::format(
            "no more user namespaces may be created (user.max_user_namespaces"
            "{} or the nesting depth was reached), so {} failed",
            h.max_user_namespaces >= 0 ? " = " + std::to_string(h.max_user_namespaces)
                                       : std::string(),
            row.step);
        d.fix =
            "raise the limit: `sudo sysctl -w user.max_user_namespaces=15000`, kept across "
            "reboots in a file under /etc/sysctl.d/";
        if (!h.container.empty()) d.fix = external_first(h) + "; otherwise " + d.fix;
        break;
      case SandboxCause::kContainer:
        d = container(row, h, false);
        break;
      case SandboxCause::kContainerProc:
        d = container(row, h, true);
        break;
      case SandboxCause::kOldBwrap:
        d = old_bwrap(msg, h);
        break;
      case SandboxCause::kNoDisableUserns:
        d.cause = fmt::format(
            "{} failed: the kernel has no per-namespace "
            "user.max_user_namespaces (Linux 4.9 and later have it)",
            row.step);
        d.fix = "use Linux 4.9 or later";
        break;
    }
    d.row = row.id;
    d.step = row.step;
    return d;
  }
  Diagnosis d;
  d.cause = "the sandbox did not hold (bwrap_runs): " + (msg.empty() ? "bwrap said nothing" : msg);
  d.fix = "no setting fixes this; please report the check's name (bwrap_runs) and bwrap's message";
  return d;
}

std::string troubleshooting_markdown() {
  struct CauseRow {
    SandboxCause cause;
    const char* title;
    HostHints hints;  // a typical machine where these messages appear
  };
  HostHints base;
  base.bwrap_path = "/usr/bin/bwrap";
  base.config_file = "~/.config/cordon/config.toml";
  HostHints ubuntu = base, container = base;
  ubuntu.apparmor_restrict_userns = 1;
  container.container = "/.dockerenv or /run/.containerenv";
  const CauseRow kinds[] = {
      {SandboxCause::kAppArmorUserns, "Ubuntu 23.10 and later: AppArmor restricts user namespaces",
       ubuntu},
      {SandboxCause::kNoUserns, "The kernel does not allow unprivileged user namespaces", base},
      {SandboxCause::kNoUsernsKernel, "The kernel has no user namespaces", base},
      {SandboxCause::kUsernsLimit, "Too many user namespaces", base},
      {SandboxCause::kContainer, "Docker, Podman and other containers", container},
      {SandboxCause::kContainerProc, "Containers that mask /proc", container},
      {SandboxCause::kOldBwrap, "bwrap older than an option cordon passed", base},
      {SandboxCause::kNoDisableUserns, "Kernels older than 4.9", base},
  };
  std::string out;
  for (const CauseRow& k : kinds) {
    std::vector<std::string> messages;
    const BwrapMessageRow* first = nullptr;
    for (const auto& row : bwrap_message_table()) {
      if (row.cause != k.cause) continue;
      if (!first) first = &row;
      for (const char* n : row.needles) messages.push_back(fmt::format("`{}`", n));
    }
    if (!first) continue;
    // bwrap names the option it does not know; the needle alone does not.
    std::string sample = std::string("bwrap: ") + first->needles[0] +
                         (k.cause == SandboxCause::kOldBwrap ? " --disable-userns" : "");
    Diagnosis d = diagnose_bwrap_message(sample, k.hints);
    out += fmt::format("#### {}\n\nbwrap says {}.\n\n- **cause**: {}.\n- **fix**: {}.\n\n", k.title,
                       join(messages, ", "), d.cause, d.fix);
  }
  out += fmt::format("#### bwrap older than {}\n\n- **cause**: {}.\n- **fix**: {}.\n",
                     kMinBwrapVersion.str(),
                     *bwrap_too_old(BwrapVersion{0, 5, 0}, "/usr/bin/bwrap"), bwrap_upgrade_fix());
  return out;
}

std::string apparmor_profile(const std::string& bwrap_path) {
  // abi 4.0 is what knows the `userns` rule; without it the rule is not enforced as written.
  return fmt::format(
      "# Written by `cordon setup apparmor`: lets bwrap create user namespaces where AppArmor\n"
      "# restricts them (kernel.apparmor_restrict_unprivileged_userns = 1, Ubuntu 23.10+).\n"
      "abi <abi/4.0>,\n"
      "include <tunables/global>\n"
      "\n"
      "profile bwrap {} flags=(unconfined) {{\n"
      "  userns,\n"
      "\n"
      "  # Site-specific additions and overrides. See local/README for details.\n"
      "  include if exists <local/bwrap>\n"
      "}}\n",
      bwrap_path);
}

}  // namespace cordon
