#include "launch/linux/cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>
#include <string_view>
#include <vector>

#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "host/quick_exit.h"
#include "plan/wsl_detect.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

struct Hierarchy {
  std::string mount;  // where it is mounted
  std::string own;    // our own cgroup inside it (from /proc/self/cgroup)
  int version = 1;
  std::string controller;  // "memory", "pids", or "" for v2
};

// Where our cgroups are, per controller we need.
struct Layout {
  bool v2 = false;
  Hierarchy unified;       // v2 with memory and pids
  Hierarchy memory, pids;  // v1
};

// Whether the comma-separated `list` names `item`.
bool lists(std::string_view list, std::string_view item) {
  for (const auto& x : split(list, ','))
    if (x == item) return true;
  return false;
}

// PERF-1: each file read with one read (no streams): this runs before bwrap starts, at every
// command run as root. The mount table is parsed as the WSL facts' is (plan/wsl_detect.h).
Layout read_layout() {
  Layout l;
  std::map<std::string, std::string, std::less<>> own;  // controller list -> path
  auto cg = read_file("/proc/self/cgroup", 1 << 20);
  for (const auto& line : split(cg.ok() ? std::string_view(*cg) : std::string_view(), '\n')) {
    const size_t a = line.find(':'), b = a == line.npos ? a : line.find(':', a + 1);
    if (b == line.npos) continue;
    own[line.substr(a + 1, b - a - 1)] = line.substr(b + 1);
  }
  auto mi = read_file("/proc/self/mountinfo", 16 << 20);
  for (const MountEntry& m :
       parse_mountinfo(mi.ok() ? std::string_view(*mi) : std::string_view())) {
    if (m.fstype == "cgroup2") {
      std::string ctrls;
      auto text = read_file(path_join(m.mount_point, "cgroup.controllers"), 4096);
      if (text.ok()) ctrls = *text;
      if (ctrls.find("memory") != std::string::npos && ctrls.find("pids") != std::string::npos) {
        l.v2 = true;
        auto it = own.find("");
        l.unified = Hierarchy{m.mount_point, it != own.end() ? it->second : "/", 2, ""};
      }
    } else if (m.fstype == "cgroup") {
      for (const char* c : {"memory", "pids"}) {
        Hierarchy& h = std::string_view(c) == "memory" ? l.memory : l.pids;
        if (!h.mount.empty() || !lists(m.super_options, c)) continue;
        for (const auto& [k, v] : own)
          if (lists(k, c)) h = Hierarchy{m.mount_point, v, 1, c};
      }
    }
  }
  return l;
}

std::string parent_dir(const Hierarchy& h) { return path_join(h.mount, h.own.substr(1)); }

bool can_make_under(const Hierarchy& h) {
  if (h.mount.empty()) return false;
  return access(parent_dir(h).c_str(), W_OK) == 0;
}

Status write_value(const std::string& file, const std::string& value) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return make_error(ErrorKind::kCgroup,
                      fmt::format("cannot open {} ({})", file, std::strerror(errno)));
  ssize_t w = ::write(fd, value.data(), value.size());
  int e = errno;
  ::close(fd);
  if (w != static_cast<ssize_t>(value.size()))
    return make_error(ErrorKind::kCgroup,
                      fmt::format("cannot write {} ({})", file, std::strerror(e)));
  return ok_status();
}

// Removes the empty cordon-* cgroups in `parent` older than a minute (not one another cordon has
// just made and is about to join).
void sweep_cgroups_under(const std::string& parent) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  DIR* d = opendir(parent.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    if (std::strncmp(e->d_name, "cordon-", 7) != 0) continue;
    std::string dir = path_join(parent, e->d_name);
    struct stat st;
    if (stat(dir.c_str(), &st) != 0 || now.tv_sec - st.st_mtime < 60) continue;
    (void)rmdir(dir.c_str());  // fails while a process is in it
  }
  closedir(d);
}

}  // namespace

std::map<std::string, std::string> limit_mechanisms(const Limits& limits) {
  std::map<std::string, std::string> m;
  Layout l = read_layout();
  bool v2 = l.v2 && can_make_under(l.unified);
  bool mem1 = !v2 && can_make_under(l.memory);
  bool pids1 = !v2 && can_make_under(l.pids);
  if (limits.memory)
    m["memory"] = v2     ? "rlimit (address space) and cgroup v2 memory.max"
                  : mem1 ? "rlimit (address space) and cgroup v1 memory.limit_in_bytes"
                         : "rlimit (address space) only: no cgroup can be made here";
  if (limits.pids)
    m["pids"] = v2      ? "rlimit (processes of this user) and cgroup v2 pids.max"
                : pids1 ? "rlimit (processes of this user) and cgroup v1 pids.max"
                        : "rlimit (processes of this user, machine-wide) only: no cgroup can be "
                          "made here";
  else if (limits.default_pids)
    m["pids"] = v2      ? "default, cgroup v2 pids.max"
                : pids1 ? "default, cgroup v1 pids.max"
                        : "not held: no cgroup can be made here (the default is never an "
                          "rlimit); set [limits] pids to have one";
  if (limits.cpu_seconds) m["cpu_seconds"] = "rlimit (CPU time per process)";
  if (limits.file_size) m["file_size"] = "rlimit (file size)";
  if (limits.open_files) m["open_files"] = "rlimit (open files per process)";
  return m;
}

Result<CgroupJoin> make_cgroups(const Limits& limits, const std::string& name) {
  CgroupJoin j;
  const unsigned long long pids = limits.cgroup_pids();
  if (!limits.memory && !pids) return j;
  Layout l = read_layout();
  std::vector<std::pair<Hierarchy, std::vector<std::pair<std::string, std::string>>>> plan;
  if (l.v2 && can_make_under(l.unified)) {
    std::vector<std::pair<std::string, std::string>> files;
    if (limits.memory) {
      files.push_back({"memory.max", std::to_string(*limits.memory)});
      files.push_back({"memory.swap.max", "0"});
    }
    if (pids) files.push_back({"pids.max", std::to_string(pids)});
    plan.push_back({l.unified, files});
  } else {
    if (limits.memory && can_make_under(l.memory))
      plan.push_back({l.memory,
                      {{"memory.limit_in_bytes", std::to_string(*limits.memory)},
                       {"memory.memsw.limit_in_bytes", std::to_string(*limits.memory)}}});
    if (pids && can_make_under(l.pids))
      plan.push_back({l.pids, {{"pids.max", std::to_string(pids)}}});
  }
  if (plan.empty()) return make_error(ErrorKind::kCgroup, "no cgroup can be made here");
  const bool v2 = plan.front().first.version == 2;
  for (auto& [h, files] : plan) {
    std::string dir = path_join(parent_dir(h), "cordon-" + name);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      remove_cgroups(j);
      return make_error(ErrorKind::kCgroup,
                        fmt::format("cannot make {} ({})", dir, std::strerror(errno)));
    }
    j.dirs.push_back(dir);
    for (const auto& [file, value] : files) {
      std::string path = path_join(dir, file);
      if (access(path.c_str(), F_OK) != 0) continue;  // memsw without swap accounting
      if (auto s = write_value(path, value); !s.ok()) {
        remove_cgroups(j);
        return s.error();
      }
    }
    // PERF-1: on cgroup v1 the child joins through `tasks`: a thread writing "0" there moves
    // only itself, which the kernel does without its machine-wide lock (cgroup.procs, or any
    // pid, waits for an RCU grace period: 9-14 ms here). The child is a process of one thread
    // until it execs, so that moves the whole process. v2 writes cgroup.procs (its processes
    // are born in the cgroup by clone3 instead; this is the fallback).
    const char* join_file = v2 ? "cgroup.procs" : "tasks";
    int fd = ::open(path_join(dir, join_file).c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      remove_cgroups(j);
      return make_error(ErrorKind::kCgroup, fmt::format("cannot open {}/{}", dir, join_file));
    }
    j.procs_fds.push_back(fd);
    if (v2) j.v2_dir_fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  trace("cgroup: made");
  return j;
}

void sweep_stale_cgroups(const CgroupJoin& j) {
  if (!removals_deferred()) return;  // swept as each is removed (remove_cgroups)
  for (const auto& d : j.dirs) sweep_cgroups_under(path_parent(d));
}

void remove_cgroups(CgroupJoin& j) {
  if (j.procs_fds.empty() && j.dirs.empty()) return;
  for (int fd : j.procs_fds) ::close(fd);
  j.procs_fds.clear();
  if (j.v2_dir_fd >= 0) ::close(j.v2_dir_fd);
  j.v2_dir_fd = -1;
  for (const auto& d : j.dirs) {
    // PERF-1: a one-shot command's go after its exit, in one try (a busy one is left to a
    // later sweep); the stale ones beside them were swept while it ran (sweep_stale_cgroups).
    if (remove_after_exit(d)) continue;
    // The processes are gone (confirmed by the caller); the kernel may take a moment to let go.
    // Not long on the command's path (PERF-1): one still busy is left to the next command's
    // sweep, below.
    for (int i = 0; i < 5 && rmdir(d.c_str()) != 0 && errno == EBUSY; ++i) usleep(200);
    sweep_cgroups_under(path_parent(d));  // earlier commands' that could not be removed then
  }
  j.dirs.clear();
  trace("cgroup: removed");
}

}  // namespace cordon
