// The machine's process table, as the process primitive reads it: which processes exist, their
// parent, group and start time, their environment (to find an escaped command's processes by
// its marker, NET-4 and MAC-5), and this boot's id. The one piece of the primitive that differs
// per system: /proc on Linux (process_table/linux/process_table.cc), sysctl on macOS
// (process_table/macos/process_table.cc).
//
// Example:
//   for (int pid : list_pids())
//     if (auto e = read_process_entry(pid); e && e->ppid == getpid()) ...
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cordon {

struct ProcessEntry {
  char state = '?';  // 'R', 'S', 'T', 'Z' (a zombie), ...
  int ppid = 0;
  int pgrp = 0;
  long long start = 0;  // when it started, in the system's own unit (compare, never convert)
};

// Every process id the table shows now (ours included).
std::vector<int> list_pids();

// nullopt when the process does not exist (or cannot be read).
std::optional<ProcessEntry> read_process_entry(int pid);

// Its environment as NAME=VALUE strings, as it was at its last exec; nullopt when it cannot
// be read (another user's process, or gone).
std::optional<std::vector<std::string>> read_process_environment(int pid);

// The children of `pid`, a process with one thread (bwrap's first process, a sandbox's pid
// 1); empty when it is gone or cannot be read.
std::vector<int> child_pids(int pid);

// This boot's id: the same string for every process until the machine restarts.
std::string read_boot_id();

}  // namespace cordon
