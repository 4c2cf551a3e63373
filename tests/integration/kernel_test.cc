// The kernel surface the attack pass of 2026-12-01 reached (issue 13): socket families, the
// sandbox's pid 1, process limits. Each test shows what a command sees in a real sandbox.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>

#include "harness.h"

namespace cordon::it {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Tries socket(family, type, protocol) and prints "family ok" or "family errno".
const char* kTrySockets = R"(
import errno, socket, sys
def tryit(name, fam, typ, proto=0):
    try:
        s = socket.socket(fam, typ, proto); s.close(); print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
tryit("inet", socket.AF_INET, socket.SOCK_STREAM)
tryit("inet6", socket.AF_INET6, socket.SOCK_DGRAM)
tryit("netlink-route", 16, socket.SOCK_RAW, 0)
tryit("netlink-audit", 16, socket.SOCK_RAW, 9)
tryit("netlink-diag", 16, socket.SOCK_RAW, 4)
tryit("unix", socket.AF_UNIX, socket.SOCK_STREAM)
tryit("vsock", 40, socket.SOCK_STREAM)
tryit("packet", 17, socket.SOCK_RAW)
tryit("alg", 38, socket.SOCK_SEQPACKET)
tryit("bluetooth", 31, socket.SOCK_STREAM)
tryit("rds", 21, socket.SOCK_SEQPACKET)
tryit("tipc", 30, socket.SOCK_RDM)
print("interfaces", len(socket.if_nameindex()))
a, b = socket.socketpair(); print("socketpair ok")
)";

TEST(Kernel, SocketCreatesOnlyTheAllowedFamilies) {  // NET-1, NET-2, PROC-7
  REQUIRE_SANDBOX();
  World w;
  for (const char* flag : {"", "--network"}) {
    std::vector<std::string> flags;
    if (*flag) flags.push_back(flag);
    Proc r = w.py(kTrySockets, flags);
    ASSERT_EQ(r.status, 0) << flag << r.out << r.err;
    EXPECT_TRUE(has(r.out, "inet ok")) << r.out;
    EXPECT_TRUE(has(r.out, "inet6 ok")) << r.out;
    // getifaddrs and if_nameindex need netlink's routing protocol (Node's
    // os.networkInterfaces() throws without it).
    EXPECT_TRUE(has(r.out, "netlink-route ok")) << r.out;
    EXPECT_TRUE(has(r.out, "interfaces ")) << r.out;
    EXPECT_TRUE(has(r.out, "socketpair ok")) << r.out;
    for (const char* refused : {"netlink-audit", "netlink-diag", "unix", "vsock", "packet", "alg",
                                "bluetooth", "rds", "tipc"})
      EXPECT_TRUE(has(r.out, std::string(refused) + " EPERM")) << flag << " " << refused << "\n"
                                                               << r.out;
  }
}

TEST(Kernel, TheSandboxsPid1CannotBeTracedAndOwnChildrenCan) {  // PROC-1, PROC-7
  REQUIRE_SANDBOX();
  World w;
  const char* script = R"(
import ctypes, errno, os, signal, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
PTRACE_ATTACH, PTRACE_SEIZE, PTRACE_DETACH = 16, 0x4206, 17
for name, req in (("attach", PTRACE_ATTACH), ("seize", PTRACE_SEIZE)):
    for pid in (1, (1 << 32) | 1):
        r = libc.syscall(101, req, ctypes.c_long(pid), 0, 0)
        print(name, hex(pid), r, errno.errorcode.get(ctypes.get_errno(), 0))
buf = ctypes.create_string_buffer(8)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
local = iovec(ctypes.cast(buf, ctypes.c_void_p), 8); remote = iovec(0x400000, 8)
r = libc.process_vm_readv(1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
print("vm_readv", r, errno.errorcode.get(ctypes.get_errno(), 0))
child = os.fork()
if child == 0:
    time.sleep(5); os._exit(0)
r = libc.ptrace(PTRACE_ATTACH, child, 0, 0)
print("own-child", r)
os.kill(child, signal.SIGKILL)
)";
  auto t0 = std::chrono::steady_clock::now();
  Proc r = w.py(script);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "attach 0x1 -1 EPERM")) << r.out;
  EXPECT_TRUE(has(r.out, "attach 0x100000001 -1 EPERM")) << r.out;
  EXPECT_TRUE(has(r.out, "seize 0x1 -1 EPERM")) << r.out;
  EXPECT_TRUE(has(r.out, "vm_readv -1 EPERM")) << r.out;
  EXPECT_TRUE(has(r.out, "own-child 0")) << r.out;  // debuggers keep working
  EXPECT_LT(s, 30) << "cordon waited on the sandbox";
}

TEST(Kernel, AStoppedPid1EndsTheSandboxInsteadOfHangingIt) {  // PROC-1
  REQUIRE_SANDBOX();
  World w;
  // The host stops the sandbox's pid 1 (as a tracer inside could, were ptrace not refused):
  // cordon must end the sandbox rather than wait for it. The test finds pid 1 on the host as
  // the parent of the command's `sleep`.
  std::map<std::string, std::string> env = w.env;
  Piped c =
      spawn_piped({cordon_binary(), "run", "--", "/bin/sh", "-c", "echo started; exec sleep 31337"},
                  env, w.project());
  ASSERT_GT(c.pid, 0);
  close(c.in);
  // Find the sleep on the host, then its parent: the sandbox's pid 1.
  pid_t pid1 = -1;
  for (int i = 0; i < 200 && pid1 < 0; ++i) {
    usleep(50000);
    Proc ps = run_program({"/bin/sh", "-c", "pgrep -f '^sleep 3133[7]' | head -1"}, env, "/");
    int sleeper = atoi(ps.out.c_str());
    if (sleeper <= 0) continue;
    Proc pp = run_program({"/bin/sh", "-c", "ps -o ppid= -p " + std::to_string(sleeper)}, env, "/");
    pid1 = atoi(pp.out.c_str());
  }
  ASSERT_GT(pid1, 1);
  ASSERT_NE(pid1, getpid());
  auto t0 = std::chrono::steady_clock::now();
  kill(pid1, SIGSTOP);
  int st = 0;
  pid_t done = 0;
  for (int i = 0; i < 300 && done == 0; ++i) {
    usleep(50000);
    done = waitpid(c.pid, &st, WNOHANG);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (done == 0) {
    kill(pid1, SIGKILL);
    kill(-c.pid, SIGKILL);
    waitpid(c.pid, &st, 0);
  }
  std::string err;
  char buf[4096];
  ssize_t n;
  while ((n = read(c.err, buf, sizeof buf)) > 0) err.append(buf, static_cast<size_t>(n));
  close(c.out);
  close(c.err);
  EXPECT_NE(done, 0) << "cordon still waited after 15 s on a stopped pid 1";
  EXPECT_LT(s, 15);
  EXPECT_TRUE(has(err, "cordon ended the sandbox and every process in it")) << err;  // PROC-1
}

TEST(Kernel, ProcessLimitDefaultAndConfigured) {  // PROC-6
  REQUIRE_SANDBOX();
  World w;
  // cordon policy shows the default process limit and what holds it.
  Proc p = w.cordon({"policy"});
  EXPECT_TRUE(has(p.out, "pids")) << p.out;
  EXPECT_TRUE(has(p.out, "4096")) << p.out;
  Proc j = w.cordon({"policy", "--json"});
  EXPECT_TRUE(has(j.out, "\"pids\"")) << j.out;
  if (geteuid() == 0) {
    // As root a cgroup can be made here: a thread bomb (threads count as processes, and cost
    // little memory) meets pids.max, not the machine.
    Proc r = w.py(R"(
import threading
threading.stack_size(65536)
stop = threading.Event()
n = 0
try:
    for i in range(6000):
        t = threading.Thread(target=stop.wait); t.start(); n += 1
except RuntimeError as e:
    print("stopped at", n)
stop.set()
print("started", n)
)",
                  {"--timeout", "60s"});
    EXPECT_TRUE(has(r.out, "stopped at")) << r.out << r.err;
  }
  // A [limits] pids too low for the sandbox names the limit as the cause.
  w.config("[limits]\npids = 1\n");
  Proc r = w.sh("true");
  if (r.status != 0) {
    EXPECT_EQ(r.status, 125);
    EXPECT_TRUE(has(r.err, "[limits] pids = 1")) << r.err;
  }
}

}  // namespace
}  // namespace cordon::it
