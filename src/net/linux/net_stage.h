// NET-7: the first stage of a command that uses the allowlist proxy. It runs inside the
// sandbox (as `<cordon> __net-stage <unix fd> <exe fd> <port> -- command...`), creates the
// proxy's listening socket there, in the sandbox's own network namespace, sends it out to cordon
// over the inherited Unix socket, closes every descriptor of its own, and execs the command.
// No port on the host's loopback, no setns (which needs privileges an ordinary user lacks).
#pragma once

namespace cordon {

inline constexpr const char* kNetStageWord = "__net-stage";

// The stage's main; never returns when the command starts.
int net_stage_main(int argc, char** argv);

}  // namespace cordon
