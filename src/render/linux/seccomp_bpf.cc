#include "render/linux/seccomp_bpf.h"

#include <fmt/format.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cordon {

namespace {
struct CtxGuard {
  scmp_filter_ctx ctx;
  ~CtxGuard() {
    if (ctx) seccomp_release(ctx);
  }
};
}  // namespace

Result<std::string> compile_seccomp(const std::vector<SeccompRule>& rules) {
  CtxGuard g{seccomp_init(SCMP_ACT_ALLOW)};
  if (!g.ctx) return make_error(ErrorKind::kSeccomp, "libseccomp could not start a filter");
  // Another architecture's syscalls (32-bit x86 through int 0x80, x32) would skip a filter
  // written for the native one: refuse them with EPERM rather than let them through.
  int rc = seccomp_attr_set(g.ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM));
  if (rc < 0)
    return make_error(ErrorKind::kSeccomp,
                      fmt::format("libseccomp: setting the bad-arch action failed "
                                  "({})",
                                  std::strerror(-rc)));
  for (const auto& r : rules) {
    int nr = seccomp_syscall_resolve_name(r.syscall.c_str());
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    std::vector<scmp_arg_cmp> conds;
    for (const auto& a : r.args) {
      scmp_arg_cmp c{};
      c.arg = a.index;
      if (a.op == SeccompOp::kMaskedEq) {
        c.op = SCMP_CMP_MASKED_EQ;
        c.datum_a = a.mask;
        c.datum_b = a.value;
      } else {
        c.op = SCMP_CMP_GT;
        c.datum_a = a.value;
        c.datum_b = 0;
      }
      conds.push_back(c);
    }
    rc = seccomp_rule_add_array(g.ctx, SCMP_ACT_ERRNO(static_cast<uint32_t>(r.errno_value)), nr,
                                static_cast<unsigned>(conds.size()),
                                conds.empty() ? nullptr : conds.data());
    if (rc < 0)
      return make_error(ErrorKind::kSeccomp, fmt::format("libseccomp refused the rule for {} ({})",
                                                         r.syscall, std::strerror(-rc)));
  }
  int fd = memfd_create("cordon-seccomp", MFD_CLOEXEC);
  if (fd < 0) return make_error(ErrorKind::kSeccomp, "memfd_create failed", "", errno);
  rc = seccomp_export_bpf(g.ctx, fd);
  if (rc < 0) {
    close(fd);
    return make_error(
        ErrorKind::kSeccomp,
        fmt::format("libseccomp could not export the filter ({})", std::strerror(-rc)));
  }
  off_t size = lseek(fd, 0, SEEK_END);
  std::string out(static_cast<size_t>(size < 0 ? 0 : size), '\0');
  ssize_t got = pread(fd, out.data(), out.size(), 0);
  close(fd);
  if (got != static_cast<ssize_t>(out.size()))
    return make_error(ErrorKind::kSeccomp, "reading the exported filter failed", "", errno);
  return out;
}

}  // namespace cordon
