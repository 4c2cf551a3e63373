// `cordon __session-keeper SESSION READY_FD [PROJECT]` (issue 30): the process that holds a
// lasting session's background jobs for the CLI, so that they outlive the `cordon run
// --session S --background` that started them. Started detached by that command
// (keeper_start.h); it opens the session as `cordon serve` does and serves cordon's JSON-RPC
// (docs/protocol.md) to the same user's `cordon` commands on the socket of its keeper folder
// (keeper_files.h). It writes "ok" or why it cannot serve to READY_FD, then closes it.
//
// It ends its jobs (their whole trees, with their aftercare) and exits on SIGTERM (`cordon
// session end`), SIGINT or SIGHUP, and once it has had no job running and no client for the idle
// time: CORDON_KEEPER_IDLE (a duration: 30s, 10m; default 10 minutes). Until then the output of
// ended jobs stays readable.
#pragma once

namespace cordon {

inline constexpr const char* kSessionKeeperWord = "__session-keeper";
int session_keeper_main(int argc, char** argv);

}  // namespace cordon
