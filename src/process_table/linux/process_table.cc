// The process table through /proc (process_table.h).
#include "process_table/process_table.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/strings.h"

namespace cordon {

namespace {

std::optional<std::string> read_small(const char* path, size_t cap) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string s;
  char buf[8192];
  ssize_t n;
  while (s.size() < cap && (n = ::read(fd, buf, sizeof buf)) > 0)
    s.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return s;
}

}  // namespace

std::vector<int> list_pids() {
  std::vector<int> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    int pid = std::atoi(e->d_name);
    if (pid > 0) out.push_back(pid);
  }
  closedir(d);
  return out;
}

std::optional<ProcessEntry> read_process_entry(int pid) {
  if (pid <= 0) return std::nullopt;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  auto text = read_small(path, 4096);
  if (!text || text->empty()) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  size_t rp = text->rfind(')');
  if (rp == std::string::npos || rp + 2 > text->size()) return std::nullopt;
  auto fields = split(std::string_view(*text).substr(rp + 2), ' ');
  if (fields.size() < 20) return std::nullopt;
  ProcessEntry e;
  e.state = fields[0].empty() ? '?' : fields[0][0];
  e.ppid = std::atoi(fields[1].c_str());
  e.pgrp = std::atoi(fields[2].c_str());
  e.start = std::atoll(fields[19].c_str());
  return e;
}

std::optional<std::vector<std::string>> read_process_environment(int pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/environ", pid);
  auto text = read_small(path, 1 << 20);
  if (!text) return std::nullopt;
  std::vector<std::string> out;
  for (auto& kv : split(*text, '\0'))
    if (!kv.empty()) out.push_back(std::move(kv));
  return out;
}

std::string read_boot_id() {
  auto s = read_small("/proc/sys/kernel/random/boot_id", 64).value_or("");
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::vector<int> child_pids(int pid) {
  std::vector<int> out;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/children", pid, pid);
  auto text = read_small(path, 64 << 10);
  if (!text) return out;
  for (const auto& w : split(*text, ' '))
    if (int c = std::atoi(w.c_str()); c > 0) out.push_back(c);
  return out;
}

}  // namespace cordon
