// The seccomp rule set of PROC-7 and NET-2, as data. The BPF is compiled by the Linux backend.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/plan.h"

namespace cordon {

// Every refusal returns EPERM (never kills), and argument comparisons use the low 32 bits
// with a mask so junk in the upper bits cannot slip through.
// NET-12: `unix_sockets` (the [ssh] agent opt-in) leaves AF_UNIX off the refusals, so the
// command's ssh can reach the agent's socket (and any other socket file it can see).
std::vector<SeccompRule> default_seccomp_rules(bool unix_sockets = false);

// The same program: the same rules, with the same conditions, in the same order (their `why`
// aside). How a launcher checks that the plan holds the program it compiled.
bool same_seccomp_rules(const std::vector<SeccompRule>& a, const std::vector<SeccompRule>& b);

// The socket families a command may create (NET-1, NET-2): AF_INET, AF_INET6, AF_NETLINK
// (its routing protocol only). Every other family is refused.
const std::vector<uint64_t>& allowed_socket_families();
// Appends the refusals that make socket() an allowlist of those families.
void add_socket_family_allowlist(std::vector<SeccompRule>& rules, bool unix_sockets = false);

// LL-1: datagram and raw sockets of IPv4 and IPv6 refused (Landlock's network rules cover TCP
// only). The type is compared without SOCK_NONBLOCK and SOCK_CLOEXEC.
void add_udp_refusal(std::vector<SeccompRule>& rules);

}  // namespace cordon
