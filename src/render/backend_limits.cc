#include "render/backend_limits.h"

namespace cordon {

BackendLimits backend_limits(Backend b) {
  if (b != Backend::kLandlock) return {};
  BackendLimits l;
  l.keeps = {
      "writes only in the project, the session's temp folder (TMPDIR) and the writable paths",
      "hidden paths unreadable (they fail to open)",
      "no listening ports, no UDP; TCP only to the allowlist proxy, when [network] allow is "
      "set (it runs on the machine's loopback, on a free port, and asks for a password per "
      "command)",
      "no Unix sockets, io_uring, ptrace, new namespaces (seccomp, as with bubblewrap)",
      "no capabilities, no_new_privs",
      "the stripped environment",
      "the command's processes ended with it",
  };
  l.gives_up = {
      "a private process view: the command sees the machine's processes",
      "hidden paths read as empty: they fail to open instead, and the names in a hidden folder "
      "can be listed",
      "a private /tmp: /tmp is the machine's, read-only; TMPDIR points to the session's folder",
      "per-command loopback isolation: the machine's loopback is shared (and closed to TCP)",
      "protection of paths created after the rules were made (aftercare still checks them)",
      "read-only protected files, git hooks and git config inside the project: they are "
      "writable while the command runs; after it, cordon moves a planted or changed one aside "
      "and puts yours back, but a hook planted and run by the same command has run",
      "the allowlist proxy's own namespace: the proxy's port is on the machine's loopback, "
      "and the command may open TCP connections to that port number on any address (Landlock's "
      "rules name ports, not addresses); the user's other processes can read its password in "
      "the command's environment",
      "a terminal of its own and shared memory: the machine's /dev/pts and /dev/shm are "
      "hidden",
  };
  return l;
}

namespace {

std::string why_landlock(const BackendChoice& c) {
  if (c.fallback_cause.empty()) return "([sandbox] backend = \"landlock\")";
  return "because bubblewrap cannot run here (" + c.fallback_cause +
         "); set [sandbox] backend = \"bwrap\" to refuse commands instead";
}

}  // namespace

std::string backend_notice(const BackendChoice& c) {
  if (c.backend != Backend::kLandlock) return "";
  return "the sandbox is Landlock + seccomp " + why_landlock(c) +
         ": it gives up a "
         "private process view, a private /tmp (TMPDIR is the session's folder), per-command "
         "loopback, hidden-reads-as-empty (hidden files fail to open), protection of paths "
         "made later, and read-only git hooks and config while the command runs (a changed one is "
         "put back after it); "
         "`cordon policy` lists what it keeps.";
}

}  // namespace cordon
