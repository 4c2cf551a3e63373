// Renders a Plan into bubblewrap's arguments (pure). The launcher hands them to bwrap through
// `--args FD`, so they never count against the system's argument limit (BUD-1).
#pragma once

#include <string>
#include <vector>

#include "plan/plan.h"
#include "render/bwrap_version.h"

namespace cordon {

struct BwrapFds {
  int seccomp = -1;  // --seccomp FD (a memfd holding the BPF program)
  int status = -1;   // --json-status-fd FD (child pid, exit code)
};

// bwrap's options (namespaces, mounts, chdir, fds), read from `--args FD`. bwrap takes the
// command itself from its real command line only: `bwrap --args FD -- COMMAND...`. Options an
// older bwrap lacks are left out as `features` says (PROBE-4); the default is the newest bwrap.
std::vector<std::string> render_bwrap_args(const Plan& plan, const BwrapFds& fds,
                                           const BwrapFeatures& features = {});

// The real command line: {"bwrap", "--args", FD, "--", COMMAND...}.
std::vector<std::string> bwrap_command_line(const Plan& plan, int args_fd);

// NUL-separated form for `--args FD`; "" when an option itself holds a NUL (it would become
// two options): the launchers refuse to start then.
std::string nul_join(const std::vector<std::string>& args);

}  // namespace cordon
