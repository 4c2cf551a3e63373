// The network rules in a real sandbox (NET-1..4).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "harness.h"

namespace cordon::it {
namespace {

// A TCP service on the machine's own loopback, answering "host-service\n" to each connection.
class HostService {
 public:
  HostService() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    listen(fd_, 16);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      while (true) {
        int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        const char msg[] = "host-service\n";
        ssize_t w = write(c, msg, sizeof msg - 1);
        (void)w;
        close(c);
      }
    });
  }
  ~HostService() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

const char* kConnect = R"(
import socket, sys, time
t = time.time()
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
    print("connected", s.recv(100).decode().strip())
except OSError as e:
    print("refused", e.errno, round(time.time() - t, 2))
)";

Proc connect_from_sandbox(const World& w, const std::string& host, int port,
                          const std::vector<std::string>& flags = {}) {
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "/usr/bin/python3", "-c", kConnect, host, std::to_string(port)});
  return w.cordon(args);
}

TEST(SandboxNet, InternetIsRefusedFast) {  // NET-1
  REQUIRE_SANDBOX();
  World w;
  Proc r = connect_from_sandbox(w, "1.1.1.1", 443);
  EXPECT_EQ(r.out.substr(0, 7), "refused") << r.out << r.err;
  EXPECT_LT(r.ms, 3000);
  // DNS fails fast too, never hangs.
  r = w.py("import socket\ntry:\n  socket.getaddrinfo('example.com', 443)\n  print('resolved')\n"
           "except OSError as e:\n  print('no-dns', e)");
  EXPECT_NE(r.out.find("no-dns"), std::string::npos) << r.out;
  EXPECT_LT(r.ms, 3000);
  // Only loopback exists.
  r = w.sh("cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '");
  EXPECT_EQ(r.out, "lo\n");
}

TEST(SandboxNet, MachineLoopbackServiceIsUnreachable) {  // NET-1
  REQUIRE_SANDBOX();
  World w;
  HostService svc;
  Proc r = connect_from_sandbox(w, "127.0.0.1", svc.port());
  EXPECT_EQ(r.out.substr(0, 7), "refused") << r.out << r.err;
  // The same service is reachable from the host: the test can tell.
  Proc h = w.host({"/usr/bin/python3", "-c", kConnect, "127.0.0.1", std::to_string(svc.port())});
  EXPECT_EQ(h.out, "connected host-service\n");
}

TEST(SandboxNet, ServerStartedByTheCommandOnLoopbackWorks) {  // NET-1
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.py(R"(
import socket, threading
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
port = srv.getsockname()[1]
def serve():
    c, _ = srv.accept(); c.sendall(b"pong"); c.close()
threading.Thread(target=serve).start()
c = socket.create_connection(("127.0.0.1", port), timeout=5)
print(c.recv(10).decode())
)");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "pong\n");
}

TEST(SandboxNet, UnixSocketsRefusedSocketpairWorks) {  // NET-2
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.py(R"(
import socket, errno
try:
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); print("unix-allowed")
except OSError as e:
    print("unix", errno.errorcode[e.errno])
a, b = socket.socketpair(); a.sendall(b"pair"); print(b.recv(4).decode())
)");
  EXPECT_EQ(r.out, "unix EPERM\npair\n") << r.err;
}

TEST(SandboxNet, NetworkWayOutReachesTheMachineAndHidesProjectSecrets) {  // NET-3
  REQUIRE_SANDBOX();
  World w;
  HostService svc;
  w.write(".env", "API_KEY=abc123\n");
  w.write(".env.example", "API_KEY=\n");
  w.write("config/tls.key", "-----BEGIN PRIVATE KEY-----\nxyz\n-----END PRIVATE KEY-----\n");
  w.write("config/ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  w.write(".secrets/token", "s3cr3t-tok\n");
  w.write("node_modules/pkg/.env", "skipped\n");
  Proc r = connect_from_sandbox(w, "127.0.0.1", svc.port(), {"--network"});
  EXPECT_EQ(r.out, "connected host-service\n") << r.err;
  r = w.sh("cat .env config/tls.key .secrets/token 2>&1; echo ---; cat .env.example config/ca.pem",
           {"--network"});
  EXPECT_EQ(r.out.find("abc123"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("xyz"), std::string::npos);
  EXPECT_EQ(r.out.find("s3cr3t"), std::string::npos);
  EXPECT_NE(r.out.find("API_KEY="), std::string::npos);
  EXPECT_NE(r.out.find("BEGIN CERTIFICATE"), std::string::npos);
  // Without the network, the project's own .env is readable as before.
  r = w.sh("cat .env");
  EXPECT_EQ(r.out, "API_KEY=abc123\n");
  // The files are unchanged.
  EXPECT_EQ(w.read(".env"), "API_KEY=abc123\n");
}

TEST(SandboxNet, NetworkRefusedWhenAFolderCannotBeSearched) {  // NET-3
  REQUIRE_SANDBOX();
  World w;
  w.write("locked/x.txt", "x");
  chmod((w.project() + "/locked").c_str(), 0);
  Proc r = w.sh("true", {"--network"});
  chmod((w.project() + "/locked").c_str(), 0755);
  if (geteuid() == 0) {
    // Root can search every folder, so the scan completes and nothing is refused.
    EXPECT_EQ(r.status, 0) << r.err;
  } else {
    EXPECT_EQ(r.status, 125);
    EXPECT_NE(r.err.find("/locked"), std::string::npos) << r.err;
  }
}

TEST(SandboxNet, EscapeNeverRefusesTheWaysOut) {  // NET-5
  REQUIRE_SANDBOX();
  World w;
  w.config("[sandbox]\nescape = \"never\"\n");
  Proc r = w.sh("true", {"--network"});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("escape = \"never\""), std::string::npos) << r.err;
  r = w.sh("true", {"--outside-sandbox"});
  EXPECT_EQ(r.status, 125);
  r = w.sh("true");
  EXPECT_EQ(r.status, 0);
}

}  // namespace
}  // namespace cordon::it
