#include "plan/seccomp_rules.h"

#include <cerrno>

namespace cordon {

namespace {
constexpr uint64_t kLow32 = 0xffffffffULL;
// Values from the kernel's uapi, spelled out so the pure layer needs no kernel headers.
constexpr uint64_t kAfUnix = 1;           // AF_UNIX
constexpr uint64_t kTiocsti = 0x5412;     // TIOCSTI
constexpr uint64_t kTioclinux = 0x541C;   // TIOCLINUX
constexpr uint64_t kCloneNewUser = 0x10000000;  // CLONE_NEWUSER
}  // namespace

std::vector<SeccompRule> default_seccomp_rules() {
  std::vector<SeccompRule> r;
  auto deny = [&](const char* name, const char* why) {
    r.push_back(SeccompRule{name, EPERM, {}, why});
  };
  // NET-2: no Unix-domain sockets (ssh-agent, D-Bus, Docker, tmux); socketpair stays allowed.
  r.push_back(SeccompRule{"socket", EPERM, {{0, SeccompOp::kMaskedEq, kLow32, kAfUnix}}, "NET-2 no Unix sockets"});
  // PROC-2: no keystrokes pushed into a terminal.
  r.push_back(SeccompRule{"ioctl", EPERM, {{1, SeccompOp::kMaskedEq, kLow32, kTiocsti}}, "PROC-2 TIOCSTI"});
  r.push_back(SeccompRule{"ioctl", EPERM, {{1, SeccompOp::kMaskedEq, kLow32, kTioclinux}}, "PROC-2 TIOCLINUX"});
  // PROC-7: no new user namespaces (bwrap --disable-userns as well).
  r.push_back(SeccompRule{"unshare", EPERM, {{0, SeccompOp::kMaskedEq, kCloneNewUser, kCloneNewUser}},
                          "PROC-7 no new user namespace"});
  r.push_back(SeccompRule{"clone", EPERM, {{0, SeccompOp::kMaskedEq, kCloneNewUser, kCloneNewUser}},
                          "PROC-7 no new user namespace"});
  // clone3 passes its flags in memory, where a filter cannot look: answer ENOSYS so that
  // libc falls back to clone(2), whose flags the rule above checks.
  r.push_back(SeccompRule{"clone3", ENOSYS, {}, "PROC-7 clone3 flags cannot be inspected"});
  // PROC-7: personality changes other than the default. Allowed: PER_LINUX (0) and the query
  // 0xffffffff. libseccomp cannot put two comparisons on one argument in a rule, so "neither
  // 0 nor 0xffffffff" is spelled as "some two neighbouring bits differ" (a 32-bit value is 0
  // or all ones exactly when every bit equals the next, cyclically): 64 masked comparisons.
  // Junk in the upper 32 bits is refused on its own.
  r.push_back(SeccompRule{"personality", EPERM, {{0, SeccompOp::kGt, 0, kLow32}},
                          "PROC-7 personality: upper bits set"});
  for (unsigned i = 0; i < 32; ++i) {
    uint64_t a = 1ULL << i, b = 1ULL << ((i + 1) % 32);
    for (uint64_t v : {a, b})
      r.push_back(SeccompRule{"personality", EPERM, {{0, SeccompOp::kMaskedEq, a | b, v}},
                              "PROC-7 personality other than default"});
  }
  for (const char* s : {"keyctl", "add_key", "request_key"}) deny(s, "PROC-7 kernel keyrings");
  deny("bpf", "PROC-7 bpf");
  deny("perf_event_open", "PROC-7 perf events");
  deny("userfaultfd", "PROC-7 userfaultfd");
  for (const char* s : {"kexec_load", "kexec_file_load"}) deny(s, "PROC-7 kexec");
  for (const char* s : {"init_module", "finit_module", "delete_module"})
    deny(s, "PROC-7 module loading");
  for (const char* s : {"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen",
                        "fsconfig", "fsmount", "fspick", "mount_setattr"})
    deny(s, "PROC-7 mounts");
  for (const char* s : {"swapon", "swapoff"}) deny(s, "PROC-7 swap");
  deny("reboot", "PROC-7 reboot");
  for (const char* s : {"io_uring_setup", "io_uring_enter", "io_uring_register"})
    deny(s, "PROC-7 io_uring could create sockets without socket(2)");
  return r;
}

}  // namespace cordon
