// The process table through sysctl (process_table.h), for macOS. Built only there: it needs
// <sys/sysctl.h>'s kinfo_proc and KERN_PROCARGS2, which Linux does not have.
#include "process_table/process_table.h"

#include <sys/sysctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstring>

namespace cordon {

std::vector<int> list_pids() {
  std::vector<int> out;
  int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_ALL, 0};
  for (int attempt = 0; attempt < 4; ++attempt) {
    size_t size = 0;
    if (sysctl(mib, 4, nullptr, &size, nullptr, 0) != 0) return out;
    size += size / 8 + sizeof(kinfo_proc) * 16;  // room for processes started meanwhile
    std::vector<kinfo_proc> procs(size / sizeof(kinfo_proc));
    if (sysctl(mib, 4, procs.data(), &size, nullptr, 0) != 0) continue;  // grew again: retry
    procs.resize(size / sizeof(kinfo_proc));
    for (const auto& p : procs)
      if (p.kp_proc.p_pid > 0) out.push_back(p.kp_proc.p_pid);
    return out;
  }
  return out;
}

std::optional<ProcessEntry> read_process_entry(int pid) {
  if (pid <= 0) return std::nullopt;
  int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PID, pid};
  kinfo_proc kp;
  std::memset(&kp, 0, sizeof kp);
  size_t size = sizeof kp;
  if (sysctl(mib, 4, &kp, &size, nullptr, 0) != 0 || size == 0) return std::nullopt;
  ProcessEntry e;
  switch (kp.kp_proc.p_stat) {
    case SIDL:
      e.state = 'R';
      break;
    case SRUN:
      e.state = 'R';
      break;
    case SSLEEP:
      e.state = 'S';
      break;
    case SSTOP:
      e.state = 'T';
      break;
    case SZOMB:
      e.state = 'Z';
      break;
    default:
      e.state = '?';
      break;
  }
  e.ppid = kp.kp_eproc.e_ppid;
  e.pgrp = kp.kp_eproc.e_pgid;
  e.start = static_cast<long long>(kp.kp_proc.p_starttime.tv_sec) * 1000000LL +
            kp.kp_proc.p_starttime.tv_usec;
  return e;
}

std::optional<std::vector<std::string>> read_process_environment(int pid) {
  int argmax_mib[2] = {CTL_KERN, KERN_ARGMAX};
  int argmax = 0;
  size_t size = sizeof argmax;
  if (sysctl(argmax_mib, 2, &argmax, &size, nullptr, 0) != 0 || argmax <= 0) return std::nullopt;
  std::vector<char> buf(static_cast<size_t>(argmax));
  int mib[3] = {CTL_KERN, KERN_PROCARGS2, pid};
  size = buf.size();
  if (sysctl(mib, 3, buf.data(), &size, nullptr, 0) != 0 || size < sizeof(int)) return std::nullopt;
  // argc, the executable's path, NUL padding, argv[0..argc), then the environment up to an
  // empty string.
  int argc = 0;
  std::memcpy(&argc, buf.data(), sizeof argc);
  size_t p = sizeof argc;
  while (p < size && buf[p] != '\0') ++p;  // the executable's path
  while (p < size && buf[p] == '\0') ++p;  // its padding
  for (int i = 0; i < argc && p < size; ++i) {
    while (p < size && buf[p] != '\0') ++p;
    ++p;
  }
  std::vector<std::string> env;
  while (p < size && buf[p] != '\0') {
    size_t end = p;
    while (end < size && buf[end] != '\0') ++end;
    env.emplace_back(buf.data() + p, end - p);
    p = end + 1;
  }
  return env;
}

std::string read_boot_id() {
  char uuid[64] = {};
  size_t size = sizeof uuid - 1;
  if (sysctlbyname("kern.bootsessionuuid", uuid, &size, nullptr, 0) != 0) return "";
  return std::string(uuid, strnlen(uuid, sizeof uuid));
}

std::vector<int> child_pids(int pid) {
  std::vector<int> out;
  for (int p : list_pids())
    if (auto e = read_process_entry(p); e && e->ppid == pid) out.push_back(p);
  return out;
}

}  // namespace cordon
