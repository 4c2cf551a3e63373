#include "launch/linux/landlock_ruleset.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "sys/fs_util.h"

namespace cordon {

namespace {

// The kernel's structures as of ABI 6; Debian 12's header stops at ABI 2.
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};
struct NetPortAttr {
  uint64_t allowed_access;
  uint64_t port;
};
constexpr int kRulePathBeneath = 1;
constexpr int kRuleNetPort = 2;
constexpr uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr uint64_t kBindTcp = 1ULL << 0;    // ABI 4
constexpr uint64_t kConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeSignal = 1ULL << 1;  // ABI 6

constexpr uint64_t kRead =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
constexpr uint64_t kWrite =
    LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
    LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | kTruncate;
// The rights a rule on something other than a folder may hold.
constexpr uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
                                 LANDLOCK_ACCESS_FS_WRITE_FILE | kTruncate;

uint64_t rights_of(LandlockAccess a) {
  switch (a) {
    case LandlockAccess::kList:
      return LANDLOCK_ACCESS_FS_READ_DIR;
    case LandlockAccess::kRead:
      return kRead;
    case LandlockAccess::kReadWrite:
      return kRead | kWrite;
  }
  return 0;
}

Status add_path(int ruleset, const LandlockGrant& g) {
  Fd f(::open(g.path.c_str(), O_PATH | O_CLOEXEC | (g.no_follow ? O_NOFOLLOW : 0)));
  if (f.fd < 0) {
    if (errno == ENOENT || errno == EACCES || errno == ENOTDIR) return ok_status();  // gone
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("the sandbox could not open {} for its rules", g.path), g.path,
                      errno);
  }
  struct stat st;
  if (fstat(f.fd, &st) != 0) return make_error(ErrorKind::kUnavailable, "stat", g.path, errno);
  landlock_path_beneath_attr attr{};
  attr.allowed_access = rights_of(g.access);
  if (!S_ISDIR(st.st_mode)) attr.allowed_access &= kFileRights;
  if (attr.allowed_access == 0) return ok_status();  // a file listed only: nothing to grant
  attr.parent_fd = f.fd;
  if (syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &attr, 0) != 0)
    return make_error(
        ErrorKind::kUnavailable,
        fmt::format("the sandbox could not add its rule for {}: {}", g.path, std::strerror(errno)),
        g.path, errno);
  return ok_status();
}

Status add_port(int ruleset, int port) {
  NetPortAttr attr{kConnectTcp, static_cast<uint64_t>(port)};
  if (syscall(SYS_landlock_add_rule, ruleset, kRuleNetPort, &attr, 0) == 0) return ok_status();
  return make_error(
      ErrorKind::kUnavailable,
      fmt::format("the sandbox could not allow port {}: {}", port, std::strerror(errno)), "",
      errno);
}

}  // namespace

int landlock_abi(std::string* why) {
  long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (v >= 0) return static_cast<int>(v);
  if (why)
    *why = errno == EOPNOTSUPP ? "Landlock is built into the kernel but not enabled (lsm=)"
           : errno == ENOSYS   ? "the kernel has no Landlock"
                               : std::strerror(errno);
  return 0;
}

std::string LandlockProblem::message() const {
  return fmt::format("the Landlock sandbox is unavailable: {}. Fix: {}", cause, fix);
}

std::optional<LandlockProblem> landlock_abi_problem() {
  std::string why;
  const int abi = landlock_abi(&why);
  if (abi >= kLandlockAbiNeeded) return std::nullopt;
  const std::string other = "set [sandbox] backend = \"bwrap\"";
  if (abi == 0)
    return LandlockProblem{
        why, "boot a kernel 6.7 or newer with \"landlock\" in its lsm= list, or " + other};
  return LandlockProblem{
      fmt::format("this kernel's Landlock ABI is {}; cordon needs ABI {} (its network rules)", abi,
                  kLandlockAbiNeeded),
      "use a kernel 6.7 or newer, or " + other};
}

Result<Fd> make_landlock_ruleset(const LandlockRules& rules, const LandlockNet& net) {
  if (auto p = landlock_abi_problem()) return make_error(ErrorKind::kUnavailable, p->message());
  RulesetAttr attr{kRead | kWrite, net.restrict ? kBindTcp | kConnectTcp : 0,
                   landlock_abi() >= 6 ? kScopeSignal : 0};
  Fd ruleset(
      high_fd(static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0))));
  if (ruleset.fd < 0)
    return make_error(
        ErrorKind::kUnavailable,
        fmt::format("the Landlock sandbox could not be made: {}", std::strerror(errno)), "", errno);
  for (const auto& g : rules.grants)
    if (auto st = add_path(ruleset.fd, g); !st.ok()) return st.error();
  if (net.restrict)
    for (int port : net.tcp_ports)
      if (auto st = add_port(ruleset.fd, port); !st.ok()) return st.error();
  return ruleset;
}

int landlock_restrict(int ruleset_fd) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  if (syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0) return -1;
  ::close(ruleset_fd);
  return 0;
}

}  // namespace cordon
