// NET-12: git over ssh through the allowlist proxy, against a real sshd the test starts on
// the machine's loopback (fetched and unpacked by scripts/deps.sh, never installed; run
// unprivileged: as root the test runs it as cordon-test, so no privilege-separation user is
// needed). The sandbox reaches it only through the proxy: the allow entry names 127.0.0.1 and
// the sshd's port (NET-8's "the entry names the address" exception), and a `127.0.0.1:22`
// entry turns the route on. Nothing outside loopback is ever contacted; refused hosts are
// names under .invalid, refused before any lookup.
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "harness.h"

namespace cordon::it {
namespace {

using namespace std::chrono_literals;

const char* kSshdDir = "/var/cache/cordon-test/openssh-server";

bool must_work() {
  const char* m = std::getenv("CORDON_MUST_WORK");
  return m && std::string(m) == "1";
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A real sshd on 127.0.0.1 serving a bare repository, with a key pair the test made: the
// private key in the world's ~/.ssh (hidden from commands), its public half authorized.
class Sshd {
 public:
  explicit Sshd(World& w) : w_(w) {
    sshd_ = std::string(kSshdDir) + "/usr/sbin/sshd";
    if (access(sshd_.c_str(), X_OK) != 0) {
      why_ = "no sshd unpacked in " + std::string(kSshdDir) + " (scripts/deps.sh test fetches it)";
      return;
    }
    srv_ = w.root() + "/srv";
    const bool root = geteuid() == 0;
    if (root) {
      passwd* pw = getpwnam("cordon-test");
      if (!pw) {
        why_ = "running as root, and there is no user cordon-test to run sshd as";
        return;
      }
      user_ = "cordon-test";
    } else {
      passwd* pw = getpwuid(geteuid());
      user_ = pw ? pw->pw_name : "";
    }
    run({"mkdir", "-p", srv_, w.home() + "/.ssh"});
    run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", srv_ + "/host_key"});
    run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", key()});
    run({"cp", key() + ".pub", srv_ + "/authorized_keys"});
    run({"git", "init", "-q", "--bare", "-b", "main", srv_ + "/repo.git"});
    run({"git", "push", "-q", srv_ + "/repo.git", "HEAD:refs/heads/main"});
    int fd = listen_on_host_loopback(port_);
    close(fd);
    w.write(srv_ + "/sshd_config",
            "Port " + std::to_string(port_) + "\nListenAddress 127.0.0.1\nHostKey " + srv_ +
                "/host_key\nAuthorizedKeysFile " + srv_ +
                "/authorized_keys\nUsePAM no\nStrictModes no\nPidFile none\n"
                "PasswordAuthentication no\nKbdInteractiveAuthentication no\nLogLevel VERBOSE\n");
    if (root) run({"chown", "-R", "cordon-test", srv_});
    std::string cmd = "exec " + sshd_ + " -D -e -f " + srv_ + "/sshd_config >" + srv_ +
                      "/log 2>&1";
    std::vector<std::string> argv = {"/bin/sh", "-c", cmd};
    if (root) argv = {"runuser", "-u", "cordon-test", "--", "/bin/sh", "-c", cmd};
    Piped p = spawn_piped(argv, w.env, "/");
    pid_ = p.pid;
    for (int f : {p.in, p.out, p.err})
      if (f >= 0) close(f);
    if (!eventually([&] { return host_connects(port_); }, 20s))
      why_ = "sshd did not start: " + slurp(srv_ + "/log");
  }
  ~Sshd() {
    if (pid_ > 0) {
      kill(-pid_, SIGTERM);
      kill(pid_, SIGTERM);
      int st;
      waitpid(pid_, &st, 0);
    }
  }
  bool ready() const { return why_.empty(); }
  const std::string& why() const { return why_; }
  int port() const { return port_; }
  std::string key() const { return w_.home() + "/.ssh/id_test"; }
  std::string url() const {
    return "ssh://" + user_ + "@127.0.0.1:" + std::to_string(port_) + srv_ + "/repo.git";
  }
  // The server's host key, as the user's known_hosts has it after accepting it once.
  void trust() const {
    std::string pub = slurp(srv_ + "/host_key.pub");
    pub = pub.substr(0, pub.rfind(' '));
    w_.write(w_.home() + "/.ssh/known_hosts",
             "[127.0.0.1]:" + std::to_string(port_) + " " + pub + "\n");
  }
  std::string config(const std::string& ssh = "") const {
    return "[network]\nallow = [\"127.0.0.1:22\", \"127.0.0.1:" + std::to_string(port_) +
           "\"]\n" + ssh;
  }
  std::string head_subject() const {
    return w_.host({"git", "--git-dir=" + srv_ + "/repo.git", "log", "-1", "--format=%s", "main"})
        .out;
  }
  std::string log() const { return slurp(srv_ + "/log"); }

 private:
  void run(const std::vector<std::string>& argv) const {
    Proc r = w_.host(argv);
    if (r.status != 0) ADD_FAILURE() << argv[0] << ": " << r.err;
  }
  World& w_;
  std::string sshd_, srv_, user_, why_;
  int port_ = 0;
  pid_t pid_ = -1;
};

#define REQUIRE_SSHD(s)                                                       \
  do {                                                                        \
    if (!(s).ready()) {                                                       \
      if (must_work()) FAIL() << (s).why() << " but CORDON_MUST_WORK=1";     \
      GTEST_SKIP() << (s).why();                                              \
    }                                                                         \
  } while (0)

// NET-12, the key opt-in: clone, push and ls-remote through the proxy with the key named for
// the host; the user's own ~/.ssh/config (which would send ssh to port 1) and their other keys
// stay unreadable, and the ssh used never reads them.
TEST(GitSsh, NamedKeyClonesPushesAndListsThroughTheProxy) {
  REQUIRE_SANDBOX();
  World w;
  Sshd s(w);
  REQUIRE_SSHD(s);
  s.trust();
  w.write(w.home() + "/.ssh/config", "Host *\n  Port 1\n  ProxyCommand false\n");
  w.write(w.home() + "/.ssh/id_other", "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n", 0600);
  w.config(s.config("[ssh]\nkeys = { \"127.0.0.1\" = \"~/.ssh/id_test\" }\n"));
  Proc r = w.sh("set -e; git clone -q " + s.url() +
                " clone; cd clone; git commit -q --allow-empty -m from-the-sandbox; "
                "git push -q origin HEAD:main; git ls-remote " + s.url() +
                "; printf 'readable:%s\\n' \"$(cat ~/.ssh/config ~/.ssh/id_other ~/.ssh/id_test "
                "2>/dev/null | wc -c)\"");
  EXPECT_EQ(r.status, 0) << r.out << r.err << s.log();
  EXPECT_NE(r.out.find("refs/heads/main"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("readable:0"), std::string::npos) << r.out;
  EXPECT_EQ(s.head_subject(), "from-the-sandbox\n");
  // NET-9: the tunnel is listed with the command's hosts.
  Proc p = w.cordon({"policy"});
  EXPECT_NE(p.out.find("git over ssh"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("127.0.0.1:22"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("~/.ssh/id_test for 127.0.0.1 (commands can read this key)"),
            std::string::npos)
      << p.out;
}

// NET-12, the agent opt-in: the user's agent holds the key; no key file is given, and the
// command's ssh logs in through the agent's socket.
TEST(GitSsh, AgentOptInLogsInThroughTheUsersAgent) {
  REQUIRE_SANDBOX();
  World w;
  Sshd s(w);
  REQUIRE_SSHD(s);
  s.trust();
  const std::string sock = w.root() + "/agent.sock";
  Proc a = w.host({"ssh-agent", "-a", sock, "-s"});
  ASSERT_EQ(a.status, 0) << a.err;
  std::string pid = a.out.substr(a.out.find("SSH_AGENT_PID=") + 14);
  pid = pid.substr(0, pid.find(';'));
  struct AgentGuard {
    int pid;
    ~AgentGuard() { kill(pid, SIGTERM); }
  } guard{std::atoi(pid.c_str())};
  w.env["SSH_AUTH_SOCK"] = sock;
  ASSERT_EQ(w.host({"ssh-add", "-q", s.key()}).status, 0);
  w.config(s.config("[ssh]\nagent = true\n"));
  Proc r = w.sh("set -e; git ls-remote " + s.url() +
                "; ls -A /tmp/.cordon-ssh | tr '\\n' ' '; echo; echo sock=$SSH_AUTH_SOCK");
  EXPECT_EQ(r.status, 0) << r.out << r.err << s.log();
  EXPECT_NE(r.out.find("refs/heads/main"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("key-"), std::string::npos) << r.out;  // no key file given
  EXPECT_NE(r.out.find("sock=/tmp/.cordon-ssh/agent"), std::string::npos) << r.out;
}

// NET-12: without an opt-in, ssh has no key: the login fails, the note names both opt-ins, and
// no private key can be read inside.
TEST(GitSsh, WithoutAnOptInSshHasNoKeyAndTheNoteSaysWhichToUse) {
  REQUIRE_SANDBOX();
  World w;
  Sshd s(w);
  REQUIRE_SSHD(s);
  s.trust();
  w.config(s.config());
  Proc r = w.sh("printf 'readable:%s\\n' \"$(cat ~/.ssh/id_* 2>/dev/null | wc -c)\"; "
                "ls -A /tmp/.cordon-ssh | tr '\\n' ' '; echo; git ls-remote " + s.url());
  EXPECT_NE(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("readable:0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("key-"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("Permission denied (publickey"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("note: ssh had no key"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[ssh] keys"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[ssh] agent = true"), std::string::npos) << r.err;
}

// NET-6, NET-12: an entry without a port never opens 22, a port no entry names is refused, and
// so is a host not listed: each at CONNECT, at once, with the proxy's reason and a note.
TEST(GitSsh, PortsAndHostsOutsideTheListAreRefusedAtConnect) {
  REQUIRE_SANDBOX();
  World w;
  Sshd s(w);
  REQUIRE_SSHD(s);
  s.trust();
  // The route is on (127.0.0.1:22), but the sshd's own port is not listed, and the other
  // host is listed without a port (80 and 443 only).
  w.config("[network]\nallow = [\"127.0.0.1:22\", \"git.example.invalid\"]\n[ssh]\nkeys = { "
           "\"127.0.0.1\" = \"~/.ssh/id_test\" }\n");
  for (const std::string& url :
       {s.url(), std::string("ssh://git@git.example.invalid/repo.git"),
        std::string("git@blocked.invalid:org/repo.git")}) {
    auto t0 = std::chrono::steady_clock::now();
    Proc r = w.sh("git ls-remote " + url);
    auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_NE(r.status, 0) << url << r.out << r.err;
    EXPECT_LT(took, 20s) << url;
    EXPECT_NE(r.err.find("the allowlist proxy refused"), std::string::npos) << url << r.err;
    EXPECT_NE(r.err.find("is not in [network] allow"), std::string::npos) << url << r.err;
    EXPECT_NE(r.err.find("note:"), std::string::npos) << url << r.err;
  }
  EXPECT_EQ(s.log().find("Accepted publickey"), std::string::npos) << s.log();
}

// NET-12: a host key the user never accepted is refused (StrictHostKeyChecking), with a note
// saying to accept it once outside cordon.
TEST(GitSsh, UnknownHostKeyIsRefusedWithTheFix) {
  REQUIRE_SANDBOX();
  World w;
  Sshd s(w);
  REQUIRE_SSHD(s);
  w.config(s.config("[ssh]\nkeys = { \"127.0.0.1\" = \"~/.ssh/id_test\" }\n"));
  Proc r = w.sh("git ls-remote " + s.url());
  EXPECT_NE(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("Host key verification failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("its host key is not in your known_hosts"), std::string::npos) << r.err;
  EXPECT_EQ(s.log().find("Accepted publickey"), std::string::npos) << s.log();
}

// NET-12, LL-1: under the Landlock backend the proxy is on the machine's loopback with a
// password; the connect helper (cordon's binary where it lies) sends it, and the named key is
// a copy in the session's folder. The user's other keys stay unreadable.
TEST(GitSsh, LandlockBackendTunnelsWithTheProxyPassword) {
  REQUIRE_SANDBOX();
  World w;
  Sshd s(w);
  REQUIRE_SSHD(s);
  s.trust();
  w.write(w.home() + "/.ssh/id_other", "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n", 0600);
  w.config("[sandbox]\nbackend = \"landlock\"\n" +
           s.config("[ssh]\nkeys = { \"127.0.0.1\" = \"~/.ssh/id_test\" }\n"));
  Proc probe = w.sh("true");
  if (probe.status != 0) {
    if (must_work()) FAIL() << "the Landlock backend does not run here: " << probe.err;
    GTEST_SKIP() << "the Landlock backend does not run here: " << probe.err;
  }
  Proc r = w.sh("set -e; case \"$HTTPS_PROXY\" in http://cordon:*@127.0.0.1:*) ;; *) exit 9;; "
                "esac; git ls-remote " + s.url() +
                "; printf 'readable:%s\\n' \"$(cat ~/.ssh/id_other ~/.ssh/config 2>/dev/null | "
                "wc -c)\"");
  EXPECT_EQ(r.status, 0) << r.out << r.err << s.log();
  EXPECT_NE(r.out.find("refs/heads/main"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("readable:0"), std::string::npos) << r.out;
}

// NET-12: a key file that does not exist is a notice, and the route still runs without it.
TEST(GitSsh, ConfigErrorsAreClear) {
  World w;
  w.config("[ssh]\nkeys = { \"*.github.com\" = \"~/.ssh/id\" }\n");
  Proc r = w.cordon({"policy"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("not a host name"), std::string::npos) << r.err;
  w.config("[ssh]\nkeys = { \"github.com\" = \"id_ed25519\" }\n");
  r = w.cordon({"policy"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("is not a path from the home"), std::string::npos) << r.err;
  w.config("[ssh]\nagent = \"yes\"\n");
  r = w.cordon({"policy"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("[ssh] agent"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cordon::it
