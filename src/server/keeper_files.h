// The files of a session's keeper (issue 30), in the session's keeper folder
// (<state>/keepers/<session>/, mode 0700, SessionStore::keeper_dir; removed with the session):
//   keeper.sock   the Unix socket it serves cordon's JSON-RPC on (mode 0600)
//   keeper.lock   held by a `cordon run --background` while it starts a keeper, so that two
//                 starting at once start one
//   keeper.pid    its pid and start time (as HeldProcess), while it runs and holds the lock of
//                 this very file
//   loopback.pid  the pid and start time of its session loopback's holder (JOB-2), once made:
//                 a foreground `cordon run --session S` joins the jobs' loopback through it
//   keeper.log    its standard error
//   read/<job>    how far `cordon job output` has read each job's output
#pragma once

#include <optional>
#include <string>

#include "config/folders.h"
#include "core/result.h"
#include "session/session_store.h"

namespace cordon {

struct KeeperFiles {
  std::string dir, socket, lock, pid, loopback, log, read;
};
KeeperFiles keeper_files(const Folders& folders, const std::string& session);

// Makes the folder (0700) and checks it is this user's own, a real folder no one else can
// write: the socket in it is trusted like the user's own command line.
Status prepare_keeper_dir(const std::string& dir);

// The running keeper's pid and start time; nullopt when none runs (no record, or its process
// has ended: a reused pid does not count).
std::optional<HeldProcess> running_keeper(const KeeperFiles& files);
// JOB-2: the holder of the running keeper's session loopback; nullopt when no keeper runs or
// it has made none.
std::optional<HeldProcess> loopback_holder(const KeeperFiles& files);
// Records the holder (the keeper, once its session made the loopback).
void record_loopback_holder(const KeeperFiles& files, int pid, long long start);

}  // namespace cordon
