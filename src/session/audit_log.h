// AUD-1: a session's audit log on disk, `<data>/audit/<session>.jsonl` (folder 0700, files
// 0600, hidden from commands like `sessions/`, FS-8), and its head, `<session>.head` (the last
// event's number and hash: the session's record of where its log ends).
//
// Every process of a session (the keeper of its jobs, foreground `cordon run --session S`)
// appends to the same log: an append takes the file's lock (flock), takes the chain's end from
// the file's tail when another process wrote since (else as it left it), writes its line with
// one write() (O_APPEND) and rewrites the head in place. Each event
// is written when it happens, so a crash of cordon loses none that were told; the page cache is
// not synced (a crash of the machine may lose the last events: `cordon log verify` then says
// the log was truncated). Past kAuditRotateBytes the log is renamed `<session>.<n>.jsonl` (n =
// 1, 2, ...) and the chain goes on in a new `<session>.jsonl`.
//
// A session that only this process writes (a `cordon run` without a session: its id is made
// here and given to no other process) appends alone (set_sole_writer): no lock, no check for
// another process's rotation, the file's size and the chain's end kept in memory, and its new
// log made with O_EXCL, so no head is read for it; and its head is not a file of its own (making
// a file is most of a one-shot run's cost) but its line in `one-shot.heads`, which every such
// session appends once and rewrites in place. The chain, the head per event and the
// one-write-per-event are the same.
//
//   AuditLog log(audit_dir(folders), session_id);
//   (void)log.append(command_start_event(...));
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "audit/audit_chain.h"
#include "config/folders.h"
#include "core/result.h"
#include "process/process.h"

namespace cordon {

inline constexpr uint64_t kAuditRotateBytes = 8u << 20;
// The heads of the sessions written alone, a line of kOneShotHeadBytes each.
inline constexpr const char* kOneShotHeads = "one-shot.heads";
inline constexpr size_t kOneShotHeadBytes = 192;

std::string audit_dir(const Folders& folders);

class AuditLog {
 public:
  AuditLog(std::string dir, std::string session, uint64_t rotate_bytes = kAuditRotateBytes)
      : dir_(std::move(dir)), session_(std::move(session)), rotate_bytes_(rotate_bytes) {}

  // Makes the folder (0700), before any command is planned: the plan hides what exists.
  Status make_dir();
  // Appends one event (its "seq" and "prev" set here). Thread-safe.
  Status append(const nlohmann::json& event);
  // Before the first append: no other process writes this session's log (above).
  void set_sole_writer() { sole_ = true; }

  std::string current_path() const;
  std::string head_path() const;

 private:
  Status append_locked(const struct stat& st, const nlohmann::json& event);
  std::optional<Status> append_alone(const nlohmann::json& event);
  ChainHead chain_end(const struct stat& st);
  Status rotate();
  void write_head(const ChainHead& head);
  void write_one_shot_head(const ChainHead& head);

  std::string dir_, session_;
  uint64_t rotate_bytes_;
  std::mutex mu_;  // guards what follows
  bool dir_made_ = false;
  bool sole_ = false;
  Fd log_, head_;  // kept open from one append to the next
  Fd heads_;       // one-shot.heads, once this session's line is in it (sole writer)
  off_t head_at_ = -1;  // where that line is
  // The file as this process last wrote it, and the chain's end then.
  struct Known {
    dev_t dev;
    ino_t ino;
    uint64_t size;
    ChainHead head;
  };
  std::optional<Known> known_;
};

// The files of a session's log, oldest first (the rotated ones, then the current one), read.
Result<std::vector<AuditFile>> read_audit_files(const std::string& dir, const std::string& session);
// The head the session recorded (its .head, else its line in one-shot.heads); nullopt when none
// is.
std::optional<ChainHead> read_audit_head(const std::string& dir, const std::string& session);
// The sessions that have a log, the most recently written last.
std::vector<std::string> audit_sessions(const std::string& dir);

}  // namespace cordon
