#include "session/move_aside.h"

#include <fmt/format.h>

#include <cerrno>

#include "core/paths.h"
#include "plan/aftercare_rules.h"
#include "sys/fs_util.h"

namespace cordon {

Result<std::string> move_aside(const Beneath& b, const std::string& rel,
                               const std::string& dest_rel) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string name = quarantine_name(path_base("/" + rel), random_hex16());
    Status st = b.rename(rel, dest_rel, name);
    if (st.ok()) return path_join(path_join(b.root(), dest_rel), name);
    if (st.error().sys_errno == EEXIST) continue;
    return st.error();
  }
  return make_error(ErrorKind::kIo, fmt::format("cannot move {} aside (no free name)", rel), rel,
                    EEXIST);
}

std::string shown_path(const std::string& abs, const std::string& project) {
  return path_within(abs, project) ? path_relative(abs, project) : abs;
}

}  // namespace cordon
