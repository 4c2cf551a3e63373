// A lasting session open in several processes at once (issue 30: the keeper that holds its
// background jobs beside foreground `cordon run --session S` commands; SRV-4's several cordons
// before it): each keeps the record in memory and saves it now and then, so each takes in what
// the others saved before it saves or decides, instead of writing over it.
#pragma once

#include <sys/types.h>

#include <string>

#include "session/session_store.h"

namespace cordon {

// Which file the record was, last time this process read or wrote it.
struct RecordStamp {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  long long mtime_ns = 0;
  bool operator==(const RecordStamp&) const = default;
};
// The stamp of the file at `path` now (all zero when it does not exist).
RecordStamp record_stamp(const std::string& path);

// Takes into `mine` what another process recorded in `disk`: its held processes that still run
// (PROC-3), its unreadable folders (FS-10), a higher effect counter (SES-2). The tracked set
// stays this process's own.
void merge_record(SessionRecord& mine, const SessionRecord& disk);

}  // namespace cordon
