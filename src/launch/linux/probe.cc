#include "launch/linux/probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/duration.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/version.h"
#include "launch/linux/bwrap_info.h"
#include "launch/linux/launcher.h"
#include "launch/probe_cache.h"
#include "plan/seccomp_rules.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

using Clock = std::chrono::steady_clock;

const char* kSecret = "cordon-probe-secret\n";

std::string ns_inode(const char* ns) {
  struct stat st;
  std::string p = std::string("/proc/self/ns/") + ns;
  if (stat(p.c_str(), &st) != 0) return "0";
  return std::to_string(st.st_ino);
}

std::string file_stamp(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "missing";
  return fmt::format("{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

long read_long_file(const char* path) {
  std::ifstream in(path);
  long v = -1;
  if (in >> v) return v;
  return -1;
}

// Evidence of a container: the runtimes' marker files, else pid 1's cgroup (PROBE-4).
void detect_container(HostHints& h) {
  if (access("/.dockerenv", F_OK) == 0) {
    h.container = "/.dockerenv";
    h.container_kind = "docker";
    return;
  }
  if (access("/run/.containerenv", F_OK) == 0) {
    h.container = "/run/.containerenv";
    h.container_kind = "podman";
    return;
  }
  std::ifstream in("/proc/1/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    for (const auto& [word, kind] :
         std::initializer_list<std::pair<const char*, const char*>>{{"docker", "docker"},
                                                                    {"libpod", "podman"},
                                                                    {"kubepods", ""},
                                                                    {"containerd", ""},
                                                                    {"lxc", ""}}) {
      if (line.find(word) != std::string::npos) {
        h.container = std::string("/proc/1/cgroup names ") + word;
        h.container_kind = kind;
        return;
      }
    }
  }
}

}  // namespace

std::string probe_cache_key(const ProbeInput& in) {
  return fmt::format("{}|{}|{}|{}|{}", current_boot_id(), in.bwrap, file_stamp(in.bwrap),
                     file_stamp(in.cordon_exe), kCordonVersion);
}

HostHints read_host_hints(const std::string& bwrap, const Folders& folders) {
  HostHints h;
  h.apparmor_restrict_userns =
      static_cast<int>(read_long_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"));
  h.unprivileged_userns_clone =
      static_cast<int>(read_long_file("/proc/sys/kernel/unprivileged_userns_clone"));
  h.max_user_namespaces = read_long_file("/proc/sys/user/max_user_namespaces");
  detect_container(h);
  h.bwrap_path = bwrap;
  h.config_file = folders.config_file;
  if (!bwrap.empty()) h.bwrap_version = read_bwrap_info(bwrap, folders.cache).version;
  return h;
}

Diagnosis diagnose_sandbox_start(const std::string& bwrap_stderr, const std::string& bwrap,
                                 const Folders& folders) {
  return diagnose_bwrap_message(bwrap_stderr, read_host_hints(bwrap, folders));
}

ProbeReport run_probe(const ProbeInput& in) {
  ProbeReport r;
  auto t0 = Clock::now();
  std::string dir = path_join(in.folders.cache, "probe");
  std::string cache_file = path_join(in.folders.cache, fmt::format("probe-{}.json", geteuid()));
  if (in.bwrap.empty()) {
    r.checks.push_back({"bwrap_present", false, 0, "bwrap was not found"});
    r.failed_check = "bwrap_present";
    r.cause = "bwrap (bubblewrap) is not installed";
    r.fix = "install the `bubblewrap` package (sudo apt-get install bubblewrap)";
    return r;
  }
  r.bwrap = in.bwrap;
  std::string key = probe_cache_key(in);
  if (in.use_cache && load_probe_cache(cache_file, key, r)) return r;
  r.checks.push_back({"bwrap_present", true, 0, in.bwrap});
  {
    // PROBE-4: read once; the launcher leaves out the options an older bwrap lacks.
    auto t = Clock::now();
    BwrapInfo info = read_bwrap_info(in.bwrap, in.folders.cache);
    r.bwrap_version = info.version_text;
    auto too_old = bwrap_too_old(info.version, in.bwrap);
    r.checks.push_back({"bwrap_version", !too_old, ms_since(t), info.version_text});
    if (too_old) {
      r.failed_check = "bwrap_version";
      r.step = "reading bwrap's version";
      r.cause = *too_old;
      r.fix = bwrap_upgrade_fix();
      r.total_ms = ms_since(t0);
      return r;
    }
  }

  std::string tmp = path_join(dir, "tmp"), work = path_join(dir, "work");
  std::string secret = path_join(dir, "secret"), outside = path_join(dir, "outside");
  std::string empty = path_join(dir, "empty");
  if (auto s = make_dirs(tmp, 0700); !s.ok()) {
    r.failed_check = "probe_files";
    r.cause = s.error().message;
    r.fix = "make " + in.folders.cache + " writable by you";
    return r;
  }
  (void)make_dirs(work, 0700);
  (void)write_file_atomic(secret, kSecret, false);
  (void)write_file_atomic(empty, "", false);
  chmod(empty.c_str(), 0444);

  Plan p;
  p.runner = Runner::kSandbox;
  p.mounts = {
      {MountKind::kRoBind, "/", "/", "base"},
      {MountKind::kDev, "", "/dev", "base"},
      {MountKind::kProc, "", "/proc", "base"},
      {MountKind::kRoBindTry, "/proc/sys", "/proc/sys", "base"},
      {MountKind::kBind, tmp, "/tmp", "tmp"},
      // Bound at its own path, read-only, so the checks see it even when the cache folder
      // lives under the machine's /tmp (which the private /tmp replaces).
      {MountKind::kRoBind, dir, dir, "probe files"},
      {MountKind::kBind, work, work, "writable"},
  };
  // The checker is this program; under the machine's /tmp it would vanish behind the private
  // one, so bind it in at its own path.
  if (path_within(in.cordon_exe, "/tmp"))
    p.mounts.push_back({MountKind::kRoBind, in.cordon_exe, in.cordon_exe, "checker"});
  p.mounts.push_back({MountKind::kRoBind, empty, secret, "hidden"});
  p.cwd = work;
  p.seccomp = default_seccomp_rules();
  p.env.set("PATH", "/usr/bin:/bin");
  p.timeout = std::chrono::seconds(20);
  p.argv = {in.cordon_exe, "__probe-inside", secret, outside, path_join(work, "ok"),
            ns_inode("user"), ns_inode("mnt"), ns_inode("pid"), ns_inode("ipc"),
            ns_inode("uts"), ns_inode("net")};
  LaunchIo io;
  io.in = InputMode::kNull;
  io.out = OutputMode::kCapture;
  io.err = OutputMode::kCapture;
  auto t_launch = Clock::now();
  auto outcome = launch_sandbox(p, in.bwrap, in.folders.cache, io);
  double launch_ms = ms_since(t_launch);
  if (!outcome.ok()) {
    r.checks.push_back({"bwrap_runs", false, launch_ms, outcome.error().message});
    r.failed_check = "bwrap_runs";
    r.cause = "the sandbox did not hold (bwrap_runs): " + outcome.error().message;
    r.fix = "no setting fixes this; please report the check's name (bwrap_runs)";
    r.total_ms = ms_since(t0);
    return r;
  }
  if (!outcome->bwrap_started) {
    std::string err = outcome->err + outcome->held_err;
    r.checks.push_back({"bwrap_runs", false, launch_ms, trim(err)});
    Diagnosis d = diagnose_sandbox_start(err, in.bwrap, in.folders);
    r.failed_check = "bwrap_runs";
    r.step = d.step;
    r.diagnosis = d.row;
    r.cause = d.cause;
    r.fix = d.fix;
    r.total_ms = ms_since(t0);
    return r;
  }
  r.checks.push_back({"bwrap_runs", true, launch_ms, ""});
  // Lines: "name ok|failed ms detail".
  std::istringstream lines(outcome->out);
  std::string line;
  bool any = false;
  while (std::getline(lines, line)) {
    std::istringstream ls(line);
    ProbeCheck c;
    std::string status;
    ls >> c.name >> status >> c.ms;
    std::getline(ls, c.detail);
    c.detail = trim(c.detail);
    c.ok = status == "ok";
    if (c.name.empty()) continue;
    any = true;
    r.checks.push_back(c);
  }
  if (!any || outcome->exit_code != 0) {
    r.checks.push_back({"checker", false, 0,
                        fmt::format("the checker exited {} without reporting: {}",
                                    outcome->exit_code, trim(outcome->err + outcome->held_err))});
  }
  r.ok = true;
  for (const auto& c : r.checks) {
    if (!c.ok) {
      r.ok = false;
      r.failed_check = c.name;
      r.cause = fmt::format("the sandbox did not hold ({})", c.name);
      r.fix = fmt::format("no setting fixes it; please report the check's name ({})", c.name);
      break;
    }
  }
  r.total_ms = ms_since(t0);
  if (r.ok) save_probe_cache(cache_file, key, r);
  return r;
}

// ---- inside the probe's sandbox ----

int probe_inside_main(int argc, char** argv) {
  if (argc < 11) return 2;
  std::string secret = argv[2], outside = argv[3], inside = argv[4];
  const char* names[] = {"user", "mnt", "pid", "ipc", "uts", "net"};
  auto report = [](const char* name, bool ok, Clock::time_point t, const std::string& detail) {
    std::printf("%s %s %.3f %s\n", name, ok ? "ok" : "failed", ms_since(t), detail.c_str());
  };
  {
    auto t = Clock::now();
    std::string same;
    for (int i = 0; i < 6; ++i)
      if (ns_inode(names[i]) == argv[5 + i]) same += std::string(same.empty() ? "" : ",") + names[i];
    report("namespaces", same.empty(), t, same.empty() ? "" : "shared with the host: " + same);
  }
  {
    auto t = Clock::now();
    std::ifstream st("/proc/self/status");
    std::string l, seccomp, nnp, capeff;
    while (std::getline(st, l)) {
      if (starts_with(l, "Seccomp:")) seccomp = trim(l.substr(8));
      if (starts_with(l, "NoNewPrivs:")) nnp = trim(l.substr(11));
      if (starts_with(l, "CapEff:")) capeff = trim(l.substr(7));
    }
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    int e = errno;
    if (fd >= 0) close(fd);
    // Junk in the upper 32 bits must not slip AF_UNIX past the filter (PROC-7).
    long fd2 = syscall(SYS_socket, 0x100000000L | AF_UNIX, SOCK_STREAM, 0);
    int e2 = errno;
    if (fd2 >= 0) close(static_cast<int>(fd2));
    bool ok = fd < 0 && e == EPERM && fd2 < 0 && e2 == EPERM && seccomp == "2";
    report("seccomp", ok, t,
           ok ? "" : fmt::format("Seccomp: {}, socket(AF_UNIX): {}", seccomp,
                                 fd < 0 ? std::strerror(e) : "allowed"));
    t = Clock::now();
    bool caps = nnp == "1" && capeff == "0000000000000000";
    report("no_privileges", caps, t, caps ? "" : "NoNewPrivs " + nnp + ", CapEff " + capeff);
  }
  {
    auto t = Clock::now();
    std::ifstream in(secret);
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    report("hidden_file_empty", content.empty(), t,
           content.empty() ? "" : "a hidden file could be read");
  }
  {
    auto t = Clock::now();
    int fd = open(outside.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int e = errno;
    if (fd >= 0) {
      close(fd);
      unlink(outside.c_str());
    }
    int fd_in = open(inside.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd_in >= 0) {
      close(fd_in);
      unlink(inside.c_str());
    }
    bool ok = fd < 0 && fd_in >= 0;
    report("write_outside_fails", ok, t,
           ok ? "" : fd >= 0 ? "a write outside the writable roots succeeded"
                             : std::string("a write inside the project failed: ") +
                                   std::strerror(errno));
    (void)e;
  }
  {
    auto t = Clock::now();
    bool ok = false;
    std::string detail;
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (l >= 0 && bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && listen(l, 1) == 0 &&
        getsockname(l, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      ok = c >= 0 && connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
      if (!ok) detail = std::string("connect to 127.0.0.1: ") + std::strerror(errno);
      if (c >= 0) close(c);
    } else {
      detail = std::string("listen on 127.0.0.1: ") + std::strerror(errno);
    }
    if (l >= 0) close(l);
    report("loopback_up", ok, t, detail);
  }
  {
    auto t = Clock::now();
    std::string others;
    if (struct if_nameindex* ifs = if_nameindex()) {
      for (auto* i = ifs; i->if_index != 0; ++i)
        if (std::string(i->if_name) != "lo") others += std::string(others.empty() ? "" : ",") + i->if_name;
      if_freenameindex(ifs);
    }
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(53);
    inet_pton(AF_INET, "192.0.2.1", &a.sin_addr);  // TEST-NET-1: never a real host
    int rc = s >= 0 ? connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) : -1;
    int e = errno;
    if (s >= 0) close(s);
    bool ok = others.empty() && rc < 0 && e == ENETUNREACH;
    report("network_isolated", ok, t,
           ok ? "" : others.empty() ? "a non-loopback address was reachable"
                                    : "interfaces besides loopback: " + others);
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace cordon
