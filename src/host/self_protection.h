// What cordon does to its own process before anything else (main.cc): orphans of its commands
// come back to it where the system allows (Linux: a child subreaper, so it can reap a sandbox's
// pid 1 and find a command's orphans), and no process of the same user can read its memory or
// environment, which still hold the tokens it strips from commands (ENV-1).
//   Linux: PR_SET_CHILD_SUBREAPER and PR_SET_DUMPABLE 0 (then /proc/<cordon>/environ and mem
//          belong to root).
//   macOS: PT_DENY_ATTACH (no debugger attaches); there is no subreaper, and a process of the
//          same user can still read cordon's environment through sysctl (docs/security.md).
#pragma once

namespace cordon {

void protect_own_process();

}  // namespace cordon
