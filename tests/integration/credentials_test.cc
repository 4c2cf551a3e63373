// AUD-3: [credentials] in real sandboxes. A command sees a placeholder; the allowlist proxy
// terminates TLS for the bound host only (cordon's CA, trusted through the bundle cordon binds)
// and puts the real value in the configured header. Network rule of these tests: only HTTPS
// servers of the test's own on the machine's loopback (listed as 127.0.0.1:<port>; their CA
// trusted by the proxy through the test-only CORDON_TEST_UPSTREAM_CA), and names under .invalid.
#include <linux/landlock.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness.h"

namespace cordon::it {
namespace {

const char* kRealToken = "ghp_realsecretAbCdEf0123456789ghijklmnopqr";
const char* kRealBasic = "basicRealSecret4242";
const char* kRealFile = "fileRealSecret-7q7q7q7q";
const char* kRealNpm = "npm_realNpmSecretXyZ0123456789abcdef";

// The test's CA and a server certificate for 127.0.0.1 and registry.cordon-test.invalid.
const char* kMakeCerts = R"(set -e
cd "$0"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
  -out ca.pem -days 2 -subj /CN=cordon-test-ca -addext basicConstraints=critical,CA:TRUE \
  -addext keyUsage=critical,keyCertSign 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout srv.key \
  -out srv.csr -subj /CN=127.0.0.1 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:registry.cordon-test.invalid\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > ext
openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 \
  -extfile ext 2>/dev/null
)";

// An HTTPS server on 127.0.0.1 that writes every request it gets (path and headers) as a JSON
// line to its log, and answers: git's info/refs a minimal smart-HTTP advertisement, /tinypkg a
// tiny package document, anything else a line of text.
const char* kServer = R"(import ssl, sys, json, http.server
d, log = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        with open(log, "a") as f:
            f.write(json.dumps({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}}) + "\n")
        ctype = "text/plain"
        if "info/refs" in self.path:
            def pkt(s):
                return ("%04x" % (len(s) + 4)) + s
            body = (pkt("# service=git-upload-pack\n") + "0000" + pkt("1" * 40 + " HEAD\0side-band-64k\n") +
                    pkt("1" * 40 + " refs/heads/main\n") + "0000").encode()
            ctype = "application/x-git-upload-pack-advertisement"
        elif self.path.rstrip("/").endswith("/tinypkg"):
            body = json.dumps({"name": "tinypkg", "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": {
                "name": "tinypkg", "version": "1.0.0", "description": "tiny package of the test",
                "dist": {"tarball": "https://registry.cordon-test.invalid/t.tgz", "shasum": "0" * 40}}},
                "time": {"1.0.0": "2020-01-01T00:00:00.000Z", "created": "2020-01-01T00:00:00.000Z",
                         "modified": "2020-01-01T00:00:00.000Z"}}).encode()
            ctype = "application/json"
        else:
            body = b"hello from the test server\n"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(d + "/srv.pem", d + "/srv.key")
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print(srv.server_address[1], flush=True)
srv.serve_forever()
)";

// One such server, in a process group of its own, ended with the test.
class TlsServer {
 public:
  TlsServer(const std::string& dir, const std::string& name) : log_(dir + "/" + name + ".log") {
    std::ofstream(dir + "/server.py") << kServer;
    p_ = spawn_piped({"python3", dir + "/server.py", dir, log_},
                     {{"PATH", "/usr/local/bin:/usr/bin:/bin"}}, dir);
    std::string line;
    char c;
    while (p_.out >= 0 && read(p_.out, &c, 1) == 1 && c != '\n') line += c;
    port_ = line.empty() ? 0 : std::stoi(line);
  }
  ~TlsServer() {
    if (p_.pid > 0) {
      kill(-p_.pid, SIGKILL);
      waitpid(p_.pid, nullptr, 0);
    }
    for (int fd : {p_.in, p_.out, p_.err})
      if (fd >= 0) close(fd);
  }
  int port() const { return port_; }
  std::string hp() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string log() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  std::string log_;
  Piped p_;
  int port_ = 0;
};

// Every file under `dir`, read, concatenated (the audit log, cordon's folders).
std::string read_tree(World& w, const std::string& dir) {
  return w.host({"sh", "-c", "find \"$0\" -type f -exec cat {} + 2>/dev/null", dir}).out;
}

class Credentials : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!sandbox_available()) return;
    certs_ = w_.root() + "/certs";
    w_.host({"mkdir", "-p", certs_});
    Proc r = w_.host({"sh", "-c", kMakeCerts, certs_});
    ASSERT_EQ(r.status, 0) << r.err;
    w_.env["CORDON_TEST_UPSTREAM_CA"] = certs_ + "/ca.pem";  // test only: trust the test's CA
    w_.env["GITHUB_TOKEN"] = kRealToken;
    w_.env["BASIC_TOKEN"] = kRealBasic;
    w_.write(w_.home() + "/.config/x/token", std::string(kRealFile) + "\n", 0600);
    // The plain tunnel's client checks the second server against the test's CA itself.
    w_.write("testca.pem", w_.read(certs_ + "/ca.pem"));
  }

  std::string config(const TlsServer& bound, const TlsServer& other,
                     const std::string& extra_allow = "") const {
    return "[network]\nallow = [\"" + bound.hp() + "\", \"" + other.hp() + "\"" + extra_allow +
           "]\n"
           "[credentials.github]\nenv = \"GITHUB_TOKEN\"\nhosts = [\"" + bound.hp() +
           "\"]\nsend = \"authorization\"\n"
           "[credentials.basic]\nenv = \"BASIC_TOKEN\"\nhosts = [\"" + bound.hp() +
           "\"]\nsend = \"basic\"\n"
           "[credentials.custom]\nfile = \"~/.config/x/token\"\nhosts = [\"" + bound.hp() +
           "\"]\nheader = \"X-Api-Key\"\n";
  }

  std::string audit_log() { return read_tree(w_, w_.home() + "/.local/share/cordon/audit"); }

  World w_;
  std::string certs_;
};

// AUD-3: curl (Bearer, gh's "token", basic auth, a header of the user's naming) and git over
// https reach the bound host with the real value, while the command sees only the placeholder;
// the placeholder through a plain tunnel to another allowed host arrives as the placeholder, and
// a plain-http request carrying it is refused with a 403 that says why, and a note.
TEST_F(Credentials, RealValueGoesOnlyToTheBoundHost) {
  REQUIRE_SANDBOX();
  TlsServer bound(certs_, "bound"), other(certs_, "other");
  ASSERT_GT(bound.port(), 0);
  ASSERT_GT(other.port(), 0);
  w_.config(config(bound, other));
  const std::string b = "https://" + bound.hp();
  // NO_PROXY names 127.0.0.1 (the sandbox's own loopback): these upstreams are the machine's,
  // reached through the proxy.
  Proc r = w_.sh(
      "export NO_PROXY= no_proxy=\n"
      "echo \"token=$GITHUB_TOKEN\"\n"
      "echo \"file=$(cat ~/.config/x/token)\"\n"
      "curl -sS --max-time 30 -H \"Authorization: Bearer $GITHUB_TOKEN\" " + b + "/bearer\n"
      "curl -sS --max-time 30 -H \"Authorization: token $GITHUB_TOKEN\" " + b + "/gh\n"
      "curl -sS --max-time 30 -u \"user:$BASIC_TOKEN\" " + b + "/basic\n"
      "curl -sS --max-time 30 -H \"X-Api-Key: $(cat ~/.config/x/token)\" " + b + "/custom\n"
      "git -c http.extraHeader=\"Authorization: Bearer $GITHUB_TOKEN\" ls-remote " + b +
      "/repo.git && echo git-ok\n"
      "curl -sS --max-time 30 --cacert testca.pem -H \"Authorization: Bearer $GITHUB_TOKEN\" "
      "https://" + other.hp() + "/tunnel\n"
      "curl -sS -i --max-time 30 -H \"Authorization: Bearer $GITHUB_TOKEN\" http://" +
      other.hp() + "/plain\n"
      "curl -sS -i --max-time 30 -H \"X-Api-Key: $GITHUB_TOKEN\" " + b + "/wrong-header\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("token=ghp_cordon_"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("file=cordon_"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("git-ok"), std::string::npos) << r.out << r.err;
  const std::string got = bound.log();
  EXPECT_NE(got.find(std::string("\"authorization\": \"Bearer ") + kRealToken), std::string::npos)
      << got;
  EXPECT_NE(got.find(std::string("\"authorization\": \"token ") + kRealToken), std::string::npos)
      << got;
  // basic: "user:" + the real password, base64 (dXNlcjpiYXNpY1JlYWxTZWNyZXQ0MjQy).
  EXPECT_NE(got.find("\"authorization\": \"Basic dXNlcjpiYXNpY1JlYWxTZWNyZXQ0MjQy\""),
            std::string::npos)
      << got;
  EXPECT_NE(got.find(std::string("\"x-api-key\": \"") + kRealFile), std::string::npos) << got;
  EXPECT_NE(got.find("/repo.git/info/refs?service=git-upload-pack"), std::string::npos) << got;
  EXPECT_EQ(got.find("/wrong-header"), std::string::npos) << got;  // refused, never sent
  // The plain tunnel: the other host got the placeholder, never the value.
  const std::string other_got = other.log();
  EXPECT_NE(other_got.find("/tunnel"), std::string::npos) << other_got << r.err;
  EXPECT_NE(other_got.find("Bearer ghp_cordon_"), std::string::npos) << other_got;
  EXPECT_EQ(other_got.find(kRealToken), std::string::npos) << other_got;
  EXPECT_EQ(other_got.find("/plain"), std::string::npos) << other_got;
  EXPECT_NE(r.out.find("X-Cordon-Refusal: placeholder of credential github (not bound to this "
                       "host)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("carries the placeholder of the credential \"github\""), std::string::npos)
      << r.err;
  // Nothing the command or the person sees, and nothing in the audit log, holds a real value.
  const std::string audit = audit_log();
  for (const char* real : {kRealToken, kRealBasic, kRealFile}) {
    EXPECT_EQ(r.out.find(real), std::string::npos) << real;
    EXPECT_EQ(r.err.find(real), std::string::npos) << real;
    EXPECT_EQ(audit.find(real), std::string::npos) << real;
  }
  EXPECT_NE(audit.find("\"credential_used\""), std::string::npos) << audit;
}

// AUD-3: the real values are nowhere inside the sandbox: the environment, /proc/self/environ and
// every process's, the file source's path, cordon's own folders as far as a command can read
// them; the CA's key is not readable, its certificate is (in the bundle the variables name).
TEST_F(Credentials, RealValueNeverInsideTheSandbox) {
  REQUIRE_SANDBOX();
  TlsServer bound(certs_, "bound"), other(certs_, "other");
  w_.config(config(bound, other));
  const std::string data = w_.home() + "/.local/share/cordon";
  // The values searched for, put together in the shell: the command line itself (which
  // cordon's records keep) never holds them whole.
  auto joined = [](const std::string& v) {
    const size_t half = v.size() / 2;
    return "\"" + v.substr(0, half) + "\"\"" + v.substr(half) + "\"";
  };
  Proc r = w_.sh(
      "env; cat /proc/self/environ | tr '\\0' '\\n'; cat /proc/*/environ 2>/dev/null | tr '\\0' "
      "'\\n'; cat ~/.config/x/token\n"
      "for d in ~/.local/share/cordon ~/.local/state/cordon ~/.cache/cordon ~/.config/cordon; do "
      "grep -r -a -h -e " + joined(kRealToken) + " -e " + joined(kRealFile) + " -e " +
      joined(kRealBasic) + " \"$d\" 2>/dev/null; done\n"
      // Hidden files read as empty (FS-4).
      "grep -q 'PRIVATE KEY' " + data + "/credentials/ca.key 2>/dev/null && echo key-readable || "
      "echo key-hidden\n"
      "grep -c 'BEGIN CERTIFICATE' \"$SSL_CERT_FILE\" >/dev/null && echo bundle-ok\n"
      "[ \"$SSL_CERT_FILE\" = \"$GIT_SSL_CAINFO\" ] && [ \"$SSL_CERT_FILE\" = \"$NODE_EXTRA_CA_CERTS\" ] "
      "&& [ \"$SSL_CERT_FILE\" = \"$REQUESTS_CA_BUNDLE\" ] && [ \"$SSL_CERT_FILE\" = \"$CURL_CA_BUNDLE\" ] "
      "&& echo variables-ok\n");
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* real : {kRealToken, kRealBasic, kRealFile})
    EXPECT_EQ(r.out.find(real), std::string::npos) << real << "\n" << r.out;
  EXPECT_NE(r.out.find("GITHUB_TOKEN=ghp_cordon_"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("key-hidden"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bundle-ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("variables-ok"), std::string::npos) << r.out;
  // Outside, the key is the user's alone.
  struct stat st {};
  ASSERT_EQ(stat((data + "/credentials/ca.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// AUD-3: without the allowlist proxy (a way out: the machine's whole network) no placeholder is
// given: the variable is stripped as ENV-1 strips it, the file hidden, and a notice says why.
TEST_F(Credentials, WithoutTheProxyTheVariableIsStripped) {
  REQUIRE_SANDBOX();
  TlsServer bound(certs_, "bound"), other(certs_, "other");
  w_.config(config(bound, other));
  Proc r = w_.cordon({"run", "--network", "--", "/bin/sh", "-c",
                      "echo \"token=${GITHUB_TOKEN:-unset}\"; cat ~/.config/x/token; echo"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("token=unset"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(kRealFile), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("[credentials] works through the allowlist proxy only"), std::string::npos)
      << r.err;
}

// AUD-3, LL-1: the Landlock backend has no mount namespace for the bundle and the placeholder
// file: no placeholder is given, the variable is stripped and the file hidden, and a notice says
// why.
TEST_F(Credentials, UnderLandlockTheVariableIsStripped) {
  REQUIRE_SANDBOX();
  if (syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION) < 4)
    GTEST_SKIP() << "Landlock ABI 4 is unavailable";
  TlsServer bound(certs_, "bound"), other(certs_, "other");
  w_.config("[sandbox]\nbackend = \"landlock\"\n" + config(bound, other));
  Proc r = w_.sh("echo \"token=${GITHUB_TOKEN:-unset}\"; cat ~/.config/x/token; echo");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("token=unset"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(kRealFile), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("[credentials] needs the bubblewrap sandbox"), std::string::npos) << r.err;
}

// AUD-3: npm with a project .npmrc naming ${NPM_TOKEN}: the registry gets the real value. npm's
// agent names an IP registry "localhost" in TLS, so the registry is a name here, resolved to the
// test's server through a hosts file of its own (a private mount namespace, as in NetAllowlist).
TEST_F(Credentials, NpmSendsTheRealTokenToTheRegistry) {
  REQUIRE_SANDBOX();
  if (w_.host({"sh", "-c", "command -v npm"}).status != 0) GTEST_SKIP() << "npm is not installed";
  const std::string unshare = geteuid() == 0 ? "-m" : "-rm";
  if (w_.host({"unshare", unshare, "true"}).status != 0)
    GTEST_SKIP() << "unshare " << unshare << " is unavailable: no hosts file of its own";
  TlsServer registry(certs_, "registry"), other(certs_, "other");
  const std::string name = "registry.cordon-test.invalid:" + std::to_string(registry.port());
  w_.config(config(registry, other, ", \"" + name + "\"") +
            "[credentials.npm]\nenv = \"NPM_TOKEN\"\nhosts = [\"" + name + "\"]\n");
  w_.env["NPM_TOKEN"] = kRealNpm;
  w_.write(".npmrc", "//" + name + "/:_authToken=${NPM_TOKEN}\n");
  w_.write(w_.root() + "/hosts", "127.0.0.1 localhost registry.cordon-test.invalid\n");
  Proc r = run_program(
      {"unshare", unshare, "--", "/bin/sh", "-c",
       "mount --bind \"$0\" /etc/hosts && exec \"$1\" run -- /bin/sh -c \"$2\"",
       w_.root() + "/hosts", cordon_binary(),
       "npm view tinypkg description --registry https://" + name + "/ --fetch-retries=0"},
      w_.env, w_.project());
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("tiny package of the test"), std::string::npos) << r.out << r.err;
  const std::string got = registry.log();
  EXPECT_NE(got.find(std::string("\"authorization\": \"Bearer ") + kRealNpm), std::string::npos)
      << got;
  EXPECT_EQ(r.out.find(kRealNpm), std::string::npos);
  EXPECT_EQ(r.err.find(kRealNpm), std::string::npos);
}

}  // namespace
}  // namespace cordon::it
