#include "session/record_sync.h"

#include <sys/stat.h>

#include <algorithm>

#include "host/file_open.h"

namespace cordon {

RecordStamp record_stamp(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return {};
  const timespec m = stat_mtime(st);
  return RecordStamp{st.st_dev, st.st_ino, st.st_size,
                     static_cast<long long>(m.tv_sec) * 1000000000LL + m.tv_nsec};
}

void merge_record(SessionRecord& mine, const SessionRecord& disk) {
  for (const auto& h : disk.held)
    if (std::find(mine.held.begin(), mine.held.end(), h) == mine.held.end() &&
        process_alive(h.pid, h.start))
      mine.held.push_back(h);
  for (const auto& d : disk.unreadable)
    if (std::find(mine.unreadable.begin(), mine.unreadable.end(), d) == mine.unreadable.end())
      mine.unreadable.push_back(d);
  mine.effects = std::max(mine.effects, disk.effects);
}

}  // namespace cordon
