#include "plan/plan_check.h"

#include <fmt/format.h>

#include <string_view>

#include "core/paths.h"
#include "plan/mount_order.h"

namespace cordon {

namespace {

bool has_nul(std::string_view s) { return s.find('\0') != std::string_view::npos; }

// The text before the NUL, so that the message shows which value it was without the rest.
std::string before_nul(std::string_view s) { return std::string(s.substr(0, s.find('\0'))); }

Refusal invalid(std::string what) {
  return Refusal{ErrorKind::kInvalid,
                 fmt::format("{}: a NUL byte or a relative path cannot reach a sandbox (it would "
                             "end one of the sandbox's options and start another). The command "
                             "was not run. Fix: remove it.",
                             what)};
}

bool needs_src(MountKind k) {
  return k == MountKind::kRoBind || k == MountKind::kBind || k == MountKind::kRoBindTry ||
         k == MountKind::kDevBind;
}

// GPU-1: only a device node's own path below /dev is dev-bound (read-write device access).
std::optional<Refusal> check_dev_bind(const MountOp& m) {
  if (m.kind != MountKind::kDevBind) return std::nullopt;
  if (m.src == m.dest && m.dest != "/dev" && path_within(m.dest, "/dev") &&
      normalize_path(m.dest) == m.dest)
    return std::nullopt;
  return Refusal{ErrorKind::kInvalid,
                 fmt::format("the sandbox would give device access to {} (from {}): only the "
                             "GPU's device nodes under /dev, each at its own path, are given "
                             "that way. The command was not run. Fix: report this as a bug.",
                             m.dest, m.src)};
}

}  // namespace

std::optional<Refusal> check_request(const Request& req) {
  for (size_t i = 0; i < req.argv.size(); ++i)
    if (has_nul(req.argv[i]))
      return invalid(
          fmt::format("argument {} (\"{}…\") holds a NUL byte", i, before_nul(req.argv[i])));
  if (req.script && has_nul(*req.script)) return invalid("the script holds a NUL byte");
  if (has_nul(req.cwd))
    return invalid(fmt::format("the working folder \"{}…\" holds a NUL byte", before_nul(req.cwd)));
  if (!req.cwd.empty() && req.cwd[0] != '/')
    return invalid(fmt::format("the working folder \"{}\" is not an absolute path", req.cwd));
  return std::nullopt;
}

std::optional<Refusal> check_plan(const Plan& p) {
  for (size_t i = 0; i < p.argv.size(); ++i)
    if (has_nul(p.argv[i]))
      return invalid(
          fmt::format("argument {} (\"{}…\") holds a NUL byte", i, before_nul(p.argv[i])));
  for (const auto& [name, value] : p.env.vars) {
    if (name.empty() || has_nul(name) || name.find('=') != std::string::npos)
      return invalid(
          fmt::format("the environment variable name \"{}\" is not valid", before_nul(name)));
    if (has_nul(value))
      return invalid(fmt::format("the environment variable {} holds a NUL byte", name));
  }
  if (has_nul(p.cwd))
    return invalid(fmt::format("the working folder \"{}…\" holds a NUL byte", before_nul(p.cwd)));
  if (p.runner == Runner::kSandbox && (p.cwd.empty() || p.cwd[0] != '/'))
    return invalid(fmt::format("the working folder \"{}\" is not an absolute path", p.cwd));
  for (const auto& m : p.mounts) {
    for (const std::string* s : {&m.src, &m.dest})
      if (has_nul(*s))
        return invalid(fmt::format("the path \"{}…\" holds a NUL byte", before_nul(*s)));
    if (m.dest.empty() || m.dest[0] != '/')
      return invalid(fmt::format("the sandbox path \"{}\" is not absolute", m.dest));
    if (needs_src(m.kind) && (m.src.empty() || m.src[0] != '/'))
      return invalid(fmt::format("the host path \"{}\" (for {}) is not absolute", m.src, m.dest));
    if (auto r = check_dev_bind(m)) return r;
  }
  return conflicting_mount(p.mounts);
}

}  // namespace cordon
