#include "launch/linux/session_loopback.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>

#include "process/process_registry.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// The child's descriptors: where it reports, and where it waits for the parent's EOF.
constexpr int kToParent = 3;
constexpr int kFromParent = 4;
// How long the child may take to make the namespaces (it takes about a millisecond).
constexpr int kAnswerMs = 5000;

// 0, or the errno of writing `text` to the /proc file `path`.
int write_proc(const char* path, const std::string& text) {
  Fd f(::open(path, O_WRONLY | O_CLOEXEC));
  if (f.fd < 0) return errno;
  return write_fully(f.fd, text.data(), text.size());
}

// Our own uid and gid only, as bwrap maps them. Written by the process itself, which may map
// only its own ids, and its gid only after refusing setgroups (user_namespaces(7)): root too,
// whose capabilities over the parent namespace are gone once it is in the new one.
int write_own_maps(uid_t uid, gid_t gid) {
  if (int e = write_proc("/proc/self/setgroups", "deny")) return e;
  if (int e = write_proc("/proc/self/uid_map", fmt::format("{} {} 1\n", uid, uid))) return e;
  return write_proc("/proc/self/gid_map", fmt::format("{} {} 1\n", gid, gid));
}

int loopback_up() {
  Fd s(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, "lo", 3);
  if (s.fd < 0 || ioctl(s.fd, SIOCGIFFLAGS, &ifr) != 0) return errno;
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  return ioctl(s.fd, SIOCSIFFLAGS, &ifr) == 0 ? 0 : errno;
}

unsigned long inode_of(int fd) {
  struct stat st {};
  return fstat(fd, &st) == 0 ? static_cast<unsigned long>(st.st_ino) : 0;
}

// Whether `net_inode` is the caller's own network namespace (never to be used as a session's:
// that would be the machine's loopback).
bool own_network(unsigned long net_inode) {
  Fd self(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
  return net_inode == 0 || self.fd < 0 || inode_of(self.fd) == net_inode;
}

Error failure(const std::string& step, int err) {
  return make_error(ErrorKind::kUnavailable,
                    fmt::format("the session's own loopback could not be made ({}: {}); each "
                                "command keeps a loopback of its own",
                                step, std::strerror(err)),
                    "", err);
}

// Forks and execs `exe` as the child (a fresh image: none of cordon's memory is in the process
// whose /proc files become writable to the user). Async-signal-safe calls only after fork.
pid_t spawn_child(const std::string& exe, int up_w, int down_r) {
  const char* argv[] = {exe.c_str(), kLoopbackChildWord, nullptr};
  const char* envp[] = {nullptr};
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (dup2(up_w, kToParent) < 0 || dup2(down_r, kFromParent) < 0) _exit(127);
  if (syscall(SYS_close_range, kFromParent + 1, ~0U, 0) != 0)
    for (int f = kFromParent + 1; f < 4096; ++f) ::close(f);
  execve(exe.c_str(), const_cast<char**>(argv), const_cast<char**>(envp));
  _exit(127);
}

}  // namespace

int loopback_child_main() {
  const uid_t uid = geteuid();
  const gid_t gid = getegid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) return 1;
  if (write_own_maps(uid, gid) != 0 || loopback_up() != 0) return 1;
  char c = 'R';
  if (::write(kToParent, &c, 1) != 1) return 1;
  (void)::read(kFromParent, &c, 1);  // EOF: the parent holds the namespaces
  return 0;
}

Result<SessionLoopback> SessionLoopback::create(const std::string& cordon_exe) {
  Fd up_r, up_w, down_r, down_w;
  if (auto st = make_pipe(up_r, up_w); !st.ok()) return st.error();
  if (auto st = make_pipe(down_r, down_w); !st.ok()) return st.error();
  SessionLoopback lo;
  pid_t pid;
  {
    std::shared_lock<std::shared_mutex> lock(spawn_mutex());
    pid = spawn_child(cordon_exe, up_w.fd, down_r.fd);
    if (pid > 0) lo.registration_.add(pid);
  }
  if (pid < 0) return failure("fork", errno);
  up_w.reset();
  down_r.reset();
  char c = 0;
  int err = EPERM;
  // A program that is not cordon (an embedder whose main does not run api::helper_main) never
  // answers: it is ended after a while, and the session keeps a loopback per command.
  pollfd p{up_r.fd, POLLIN, 0};
  if (poll(&p, 1, kAnswerMs) != 1) {
    ::kill(pid, SIGKILL);
    err = ETIMEDOUT;
  } else if (::read(up_r.fd, &c, 1) == 1 && c == 'R') {
    lo.user_ = Fd(::open(fmt::format("/proc/{}/ns/user", pid).c_str(), O_RDONLY | O_CLOEXEC));
    lo.net_ = Fd(::open(fmt::format("/proc/{}/ns/net", pid).c_str(), O_RDONLY | O_CLOEXEC));
    err = errno;
  }
  lo.holder_ = pid;
  lo.release_ = std::move(down_w);
  if (c != 'R') return failure("a user and network namespace", err);
  if (lo.user_.fd < 0 || lo.net_.fd < 0) return failure("open the namespaces", err);
  lo.net_inode_ = inode_of(lo.net_.fd);
  if (own_network(lo.net_inode_)) return failure("a network namespace of its own", EINVAL);
  return lo;
}

Result<SessionLoopback> SessionLoopback::join_holder(int pid, long long start) {
  auto same = [&] {
    auto st = read_proc_stat(pid);
    return st && st->start == start;
  };
  auto cmdline = read_file(fmt::format("/proc/{}/cmdline", pid), 4096);
  const std::string word = std::string(kLoopbackChildWord) + '\0';
  if (!same() || !cmdline.ok() || cmdline->size() < word.size() ||
      cmdline->compare(cmdline->size() - word.size(), word.size(), word) != 0)
    return failure("the session's holder is gone", ESRCH);
  SessionLoopback lo;
  lo.user_ = Fd(::open(fmt::format("/proc/{}/ns/user", pid).c_str(), O_RDONLY | O_CLOEXEC));
  lo.net_ = Fd(::open(fmt::format("/proc/{}/ns/net", pid).c_str(), O_RDONLY | O_CLOEXEC));
  if (lo.user_.fd < 0 || lo.net_.fd < 0) return failure("open the session's namespaces", errno);
  if (!same()) return failure("the session's holder is gone", ESRCH);  // a reused pid
  lo.net_inode_ = inode_of(lo.net_.fd);
  if (own_network(lo.net_inode_)) return failure("a network namespace of its own", EINVAL);
  return lo;
}

SessionLoopback::SessionLoopback(SessionLoopback&& o) noexcept
    : user_(std::move(o.user_)),
      net_(std::move(o.net_)),
      net_inode_(o.net_inode_),
      holder_(std::exchange(o.holder_, -1)),
      release_(std::move(o.release_)),
      registration_(std::move(o.registration_)) {}

SessionLoopback& SessionLoopback::operator=(SessionLoopback&& o) noexcept {
  if (this != &o) {
    end_holder();
    user_ = std::move(o.user_);
    net_ = std::move(o.net_);
    net_inode_ = o.net_inode_;
    holder_ = std::exchange(o.holder_, -1);
    release_ = std::move(o.release_);
    registration_ = std::move(o.registration_);
  }
  return *this;
}

SessionLoopback::~SessionLoopback() { end_holder(); }

// The holder reads its input's end and exits; collected here (a moment: it does nothing else).
void SessionLoopback::end_holder() {
  release_.reset();
  if (holder_ <= 0) return;
  int status = 0;
  while (waitpid(holder_, &status, 0) < 0 && errno == EINTR) {
  }
  holder_ = -1;
}

std::vector<std::pair<int, int>> SessionLoopback::join() const {
  return {{user_.fd, CLONE_NEWUSER}, {net_.fd, CLONE_NEWNET}};
}

}  // namespace cordon
