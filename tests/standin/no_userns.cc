// no_userns COMMAND [ARG...]: runs COMMAND where new namespaces are refused, the way Docker's
// default seccomp profile refuses them to a process without CAP_SYS_ADMIN (issue 31, LL-1):
// unshare, setns, mount, umount2 and pivot_root fail with EPERM, clone with any namespace flag
// fails with EPERM, and clone3 fails with ENOSYS (its flags sit in memory a filter cannot read,
// so Docker answers "not implemented" and glibc falls back to clone). Everything else is
// allowed. The filter is inherited by every process COMMAND starts, cordon and bwrap included.
//
// make test runs the Landlock backend's suite under it, so that `[sandbox] backend = "auto"`
// falling back to Landlock is exercised on every run, also on a machine where user namespaces
// work. It is a stand-in for a real container, not a sandbox.
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace {

constexpr unsigned long kNamespaceFlags[] = {
    CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,    CLONE_NEWNET,
    CLONE_NEWIPC,  CLONE_NEWUTS, CLONE_NEWCGROUP, 0x00000080 /* CLONE_NEWTIME */};

bool add(scmp_filter_ctx ctx, int err, const char* name) {
  const int nr = seccomp_syscall_resolve_name(name);
  return nr != __NR_SCMP_ERROR && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 0) == 0;
}

bool refuse_namespaces(scmp_filter_ctx ctx) {
  for (const char* name : {"unshare", "setns", "mount", "umount2", "pivot_root"})
    if (!add(ctx, EPERM, name)) return false;
  if (!add(ctx, ENOSYS, "clone3")) return false;
  for (unsigned long flag : kNamespaceFlags)
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)) != 0)
      return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: no_userns COMMAND [ARG...]\n");
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  // no_new_privs: a plain user may load a filter only with it (Docker sets it too).
  if (ctx == nullptr || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || !refuse_namespaces(ctx) ||
      seccomp_load(ctx) != 0) {
    std::fprintf(stderr, "no_userns: cannot load the seccomp filter: %s\n", std::strerror(errno));
    return 125;
  }
  seccomp_release(ctx);
  execvp(argv[1], argv + 1);
  std::fprintf(stderr, "no_userns: cannot run %s: %s\n", argv[1], std::strerror(errno));
  return 127;
}
