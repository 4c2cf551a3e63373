#include "host/namespace_conditions.h"

#include <unistd.h>

#include "core/strings.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

std::string read_small(const std::string& path) {
  auto r = read_file(path, 1 << 16);
  return r.ok() ? trim(*r) : "-";
}

// /proc/self/status's "Seccomp:" and "Seccomp_filters:" lines.
std::string seccomp_lines() {
  auto r = read_file("/proc/self/status", 1 << 16);
  if (!r.ok()) return "-";
  std::string out;
  for (const auto& line : split(*r, '\n'))
    if (starts_with(line, "Seccomp")) out += line + ";";
  return out.empty() ? "-" : out;
}

std::string self_user_namespace() {
  char buf[64] = {};
  ssize_t n = readlink("/proc/self/ns/user", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "-";
}

}  // namespace

std::string namespace_conditions() {
  return self_user_namespace() + "|" + seccomp_lines() + "|" +
         read_small("/proc/sys/user/max_user_namespaces") + "|" +
         read_small("/proc/sys/kernel/unprivileged_userns_clone") + "|" +
         read_small("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
}

}  // namespace cordon
