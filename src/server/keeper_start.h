// Starts a session's keeper (issue 30, session_keeper.h) detached from the command that starts
// it: its own session (setsid), reparented away by a second fork, its standard input and output
// /dev/null, its standard error the keeper's log. Returns once it answers "ok" (it listens), or
// with its reason. Called with the keeper folder's start lock held (keeper_files.h).
#pragma once

#include "core/result.h"
#include "server/keeper_client.h"
#include "server/keeper_files.h"

namespace cordon {

Status start_keeper(const KeeperTarget& t, const KeeperFiles& files);

}  // namespace cordon
