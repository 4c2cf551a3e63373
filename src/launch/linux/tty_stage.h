// JOB-3: the terminal stage, run inside the sandbox before a `tty: true` command (as
// `<cordon> __tty-stage <unix fd> <exe fd> <cols> <rows> -- command...`, words of
// render/tty_stage_args.h). It opens a new pseudo-terminal from the sandbox's own devpts
// (bwrap's --dev mounts a private instance with /dev/ptmx), sets its size, sends the master to
// cordon over the inherited Unix socket, makes the slave its controlling terminal (bwrap's
// --new-session made it a session leader) and its standard input, output and error, closes its
// own descriptors and execs the command. The machine's terminal is never involved.
#pragma once

#include "render/tty_stage_args.h"

namespace cordon {

// The stage's main; never returns when the command starts.
int tty_stage_main(int argc, char** argv);

}  // namespace cordon
