#include "plan/seccomp_rules.h"

#include <algorithm>
#include <cerrno>

namespace cordon {

namespace {
constexpr uint64_t kLow32 = 0xffffffffULL;
// Values from the kernel's uapi, spelled out so the pure layer needs no kernel headers.
constexpr uint64_t kAfInet = 2;                 // AF_INET
constexpr uint64_t kAfInet6 = 10;               // AF_INET6
constexpr uint64_t kAfNetlink = 16;             // AF_NETLINK
constexpr uint64_t kNetlinkRoute = 0;           // NETLINK_ROUTE
constexpr uint64_t kTiocsti = 0x5412;           // TIOCSTI
constexpr uint64_t kTioclinux = 0x541C;         // TIOCLINUX
constexpr uint64_t kCloneNewUser = 0x10000000;  // CLONE_NEWUSER
}  // namespace

const std::vector<uint64_t>& allowed_socket_families() {
  static const std::vector<uint64_t> families = {kAfInet, kAfInet6, kAfNetlink};
  return families;
}

void add_socket_family_allowlist(std::vector<SeccompRule>& r, bool unix_sockets) {
  // NET-1, NET-2, PROC-7: socket() creates only the families a command needs: IPv4, IPv6, and
  // netlink's routing protocol (getifaddrs, if_nameindex, `ip addr`: Node's
  // os.networkInterfaces() throws without it; it is scoped by the network namespace and
  // changes nothing without CAP_NET_ADMIN). Everything else is refused: AF_UNIX (NET-2: host
  // services behind socket files), AF_VSOCK (not scoped by network namespaces: the
  // hypervisor), AF_PACKET, AF_ALG, AF_BLUETOOTH, ... An allowlist spelled as refusals, since the
  // filter allows by default: the kernel reads the family as an int, so only the low 32 bits
  // count (junk above them is ignored by the comparison, as by the kernel). Any bit from 5 up
  // set: refused (families are below 64; 32 and above are refused as a block); below 32, each
  // family not on the list: refused by value.
  const auto& allowed = allowed_socket_families();
  for (unsigned bit = 5; bit < 32; ++bit) {
    uint64_t b = 1ULL << bit;
    r.push_back(SeccompRule{"socket",
                            EPERM,
                            {{0, SeccompOp::kMaskedEq, b, b}},
                            "socket family not on the allowlist"});  // NET-2
  }
  for (uint64_t family = 0; family < 32; ++family) {
    if (std::find(allowed.begin(), allowed.end(), family) != allowed.end()) continue;
    if (family == 1 && unix_sockets) continue;  // NET-12: the agent opt-in
    r.push_back(SeccompRule{
        "socket",
        EPERM,
        {{0, SeccompOp::kMaskedEq, kLow32, family}},
        family == 1 ? "no Unix sockets" : "socket family not on the allowlist"});  // NET-2
  }
  // AF_NETLINK: the routing protocol only (NETLINK_ROUTE is 0: any protocol bit set refuses).
  for (unsigned bit = 0; bit < 32; ++bit) {
    uint64_t b = 1ULL << bit;
    r.push_back(SeccompRule{"socket",
                            EPERM,
                            {{0, SeccompOp::kMaskedEq, kLow32, kAfNetlink},
                             {2, SeccompOp::kMaskedEq, b, b | kNetlinkRoute}},
                            "netlink protocols other than routing"});  // NET-2
  }
}

void add_udp_refusal(std::vector<SeccompRule>& r) {
  for (uint64_t family : {kAfInet, kAfInet6})
    for (uint64_t type : {2ULL, 3ULL})  // SOCK_DGRAM, SOCK_RAW
      r.push_back(SeccompRule{
          "socket",
          EPERM,
          {{0, SeccompOp::kMaskedEq, kLow32, family}, {1, SeccompOp::kMaskedEq, 0xf, type}},
          "no UDP or raw sockets"});
}

std::vector<SeccompRule> default_seccomp_rules(bool unix_sockets) {
  std::vector<SeccompRule> r;
  auto deny = [&](const char* name, const char* why) {
    r.push_back(SeccompRule{name, EPERM, {}, why});
  };
  add_socket_family_allowlist(r, unix_sockets);
  // PROC-2: no keystrokes pushed into a terminal.
  r.push_back(
      SeccompRule{"ioctl", EPERM, {{1, SeccompOp::kMaskedEq, kLow32, kTiocsti}}, "TIOCSTI"});
  r.push_back(
      SeccompRule{"ioctl", EPERM, {{1, SeccompOp::kMaskedEq, kLow32, kTioclinux}}, "TIOCLINUX"});
  // PROC-7: no new user namespaces (bwrap --disable-userns as well).
  r.push_back(SeccompRule{"unshare",
                          EPERM,
                          {{0, SeccompOp::kMaskedEq, kCloneNewUser, kCloneNewUser}},
                          "no new user namespace"});
  r.push_back(SeccompRule{"clone",
                          EPERM,
                          {{0, SeccompOp::kMaskedEq, kCloneNewUser, kCloneNewUser}},
                          "no new user namespace"});  // PROC-7
  // clone3 passes its flags in memory, where a filter cannot look: answer ENOSYS so that
  // libc falls back to clone(2), whose flags the rule above checks.
  r.push_back(SeccompRule{"clone3", ENOSYS, {}, "clone3 flags cannot be inspected"});
  // PROC-7: personality changes other than the default. Allowed: PER_LINUX (0) and the query
  // 0xffffffff. libseccomp cannot put two comparisons on one argument in a rule, so "neither
  // 0 nor 0xffffffff" is spelled as "some two neighbouring bits differ" (a 32-bit value is 0
  // or all ones exactly when every bit equals the next, cyclically): 64 masked comparisons.
  // Junk in the upper 32 bits is refused on its own.
  r.push_back(SeccompRule{"personality",
                          EPERM,
                          {{0, SeccompOp::kGt, 0, kLow32}},
                          "personality: upper bits set"});  // PROC-7
  for (unsigned i = 0; i < 32; ++i) {
    uint64_t a = 1ULL << i, b = 1ULL << ((i + 1) % 32);
    for (uint64_t v : {a, b})
      r.push_back(SeccompRule{"personality",
                              EPERM,
                              {{0, SeccompOp::kMaskedEq, a | b, v}},
                              "personality other than default"});  // PROC-7
  }
  // PROC-1, PROC-7: the sandbox's pid 1 (bwrap's init) cannot be traced or have its memory
  // touched: a command that stops it (PTRACE_ATTACH sends SIGSTOP) would keep the sandbox, and
  // the cordon waiting for it, alive forever. The kernel reads the pid as an int: low 32 bits.
  // Signals cannot stop it: the kernel drops SIGSTOP and SIGKILL sent to a namespace's init from
  // inside. A command may still trace its own children (debuggers, strace).
  r.push_back(SeccompRule{"ptrace",
                          EPERM,
                          {{1, SeccompOp::kMaskedEq, kLow32, 1}},
                          "no tracing of the sandbox's pid 1"});  // PROC-7
  for (const char* s : {"process_vm_readv", "process_vm_writev"})
    r.push_back(SeccompRule{s,
                            EPERM,
                            {{0, SeccompOp::kMaskedEq, kLow32, 1}},
                            "the sandbox's pid 1 is not the command's to touch"});
  for (const char* s : {"keyctl", "add_key", "request_key"}) deny(s, "kernel keyrings");
  deny("bpf", "bpf");  // PROC-7
  deny("perf_event_open", "perf events");
  deny("userfaultfd", "userfaultfd");
  for (const char* s : {"kexec_load", "kexec_file_load"}) deny(s, "kexec");
  for (const char* s : {"init_module", "finit_module", "delete_module"}) deny(s, "module loading");
  for (const char* s : {"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen",
                        "fsconfig", "fsmount", "fspick", "mount_setattr"})
    deny(s, "mounts");  // PROC-7
  for (const char* s : {"swapon", "swapoff"}) deny(s, "swap");
  deny("reboot", "reboot");
  for (const char* s : {"io_uring_setup", "io_uring_enter", "io_uring_register"})
    deny(s, "io_uring could create sockets without socket(2)");
  return r;
}

bool same_seccomp_rules(const std::vector<SeccompRule>& a, const std::vector<SeccompRule>& b) {
  auto same_arg = [](const SeccompArg& x, const SeccompArg& y) {
    return x.index == y.index && x.op == y.op && x.mask == y.mask && x.value == y.value;
  };
  auto same_rule = [&](const SeccompRule& x, const SeccompRule& y) {
    return x.syscall == y.syscall && x.errno_value == y.errno_value &&
           std::equal(x.args.begin(), x.args.end(), y.args.begin(), y.args.end(), same_arg);
  };
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), same_rule);
}

}  // namespace cordon
