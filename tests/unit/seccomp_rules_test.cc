// The socket() allowlist (NET-1, NET-2, PROC-7), checked by evaluating the rule set the way the
// compiled filter does: a call is refused when every condition of some rule holds.
#include "plan/seccomp_rules.h"

#include <gtest/gtest.h>

#include <array>
#include <cerrno>

namespace cordon {
namespace {

bool refused(const std::vector<SeccompRule>& rules, const std::string& syscall,
             std::array<uint64_t, 6> args) {
  for (const auto& r : rules) {
    if (r.syscall != syscall) continue;
    bool all = true;
    for (const auto& a : r.args) {
      uint64_t v = args[a.index];
      bool holds = a.op == SeccompOp::kMaskedEq ? (v & a.mask) == a.value : v > a.value;
      if (!holds) all = false;
    }
    if (all) {
      EXPECT_EQ(r.errno_value, EPERM) << r.why;  // PROC-7: refusals return EPERM
      return true;
    }
  }
  return false;
}

constexpr uint64_t kInet = 2, kUnix = 1, kInet6 = 10, kNetlink = 16, kPacket = 17, kVsock = 40,
                   kAlg = 38, kBluetooth = 31;

TEST(SeccompRules, SocketIsAnAllowlistOfFamilies) {  // NET-1, NET-2, PROC-7
  auto rules = default_seccomp_rules();
  EXPECT_FALSE(refused(rules, "socket", {kInet, 1, 0}));
  EXPECT_FALSE(refused(rules, "socket", {kInet6, 2, 0}));
  EXPECT_FALSE(refused(rules, "socket", {kNetlink, 3, 0}));  // NETLINK_ROUTE (getifaddrs)
  for (uint64_t f : {kUnix, uint64_t{0}, kPacket, kVsock, kAlg, kBluetooth, uint64_t{44},
                     uint64_t{45}, uint64_t{46}, uint64_t{63}, uint64_t{64}, uint64_t{1000},
                     uint64_t{0x7fffffff}, uint64_t{0xffffffff}})
    EXPECT_TRUE(refused(rules, "socket", {f, 1, 0})) << f;
  // Every family below 64 other than the three.
  for (uint64_t f = 0; f < 64; ++f) {
    bool allowed = f == kInet || f == kInet6 || f == kNetlink;
    EXPECT_EQ(refused(rules, "socket", {f, 1, 0}), !allowed) << f;
  }
}

TEST(SeccompRules, JunkInTheUpperBitsChangesNothing) {  // PROC-7: masked 32-bit comparisons
  auto rules = default_seccomp_rules();
  const uint64_t junk = 0xdead000000000000ULL | (1ULL << 32);
  EXPECT_TRUE(refused(rules, "socket", {junk | kUnix, 1, 0}));
  EXPECT_TRUE(refused(rules, "socket", {junk | kVsock, 1, 0}));
  EXPECT_TRUE(refused(rules, "socket", {junk | kPacket, 3, 0}));
  // The kernel reads the family as an int: these are AF_INET and AF_INET6.
  EXPECT_FALSE(refused(rules, "socket", {junk | kInet, 1, 0}));
  EXPECT_FALSE(refused(rules, "socket", {junk | kInet6, 1, 0}));
}

TEST(SeccompRules, NetlinkOnlyForRouting) {  // NET-2
  auto rules = default_seccomp_rules();
  EXPECT_FALSE(refused(rules, "socket", {kNetlink, 3, 0}));
  EXPECT_FALSE(refused(rules, "socket", {kNetlink, 3, 1ULL << 40}));  // upper bits ignored
  for (uint64_t proto : {1ULL, 4ULL, 9ULL, 15ULL, 16ULL, 31ULL,
                         0x80000000ULL})  // NETLINK_USERSOCK, SOCK_DIAG, AUDIT
    EXPECT_TRUE(refused(rules, "socket", {kNetlink, 3, proto})) << proto;
}

TEST(SeccompRules, SocketpairStaysAllowed) {  // NET-2
  auto rules = default_seccomp_rules();
  EXPECT_FALSE(refused(rules, "socketpair", {kUnix, 1, 0}));
}

}  // namespace
}  // namespace cordon
