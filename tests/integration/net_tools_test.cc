// The proxy variables, tool by tool (NET-7): each tool people use reaches an allowed loopback
// upstream through the allowlist proxy, and only through it (the sandbox keeps its own network
// namespace: there is no other way out), and a host not in allow gets the proxy's refusal.
//
// Network rule of these tests: the upstreams are servers the test starts on the machine's
// loopback, outside every sandbox, listed as 127.0.0.1:<port>; refused hosts are names under
// .invalid. Nothing else is reached.
//
// cordon sets NO_PROXY=localhost,127.0.0.1,::1 so that a command's own loopback servers (inside
// the sandbox) are reached directly. The upstreams here are on 127.0.0.1 too, but outside, so
// each tool runs with NO_PROXY and no_proxy cleared (`env -u NO_PROXY -u no_proxy`): what is
// tested is that the tool reads the proxy variables cordon sets.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

// The upstream, in Python: files under DIR as they are (a pip "simple" index, a git repository
// for the dumb protocol) and /git/<repo> through `git http-backend` (git's smart protocol, which
// libgit2 and so cargo need). Each request is logged on standard error.
const char* kServer = R"PY(
import http.server, os, subprocess, sys
ROOT = sys.argv[1]
class H(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **k):
        super().__init__(*a, directory=ROOT, **k)
    def body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", ""):
            out = b""
            while True:
                n = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if n == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(n)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))
    def backend(self):
        path, _, query = self.path[len("/git"):].partition("?")
        data = self.body()
        env = dict(os.environ, GIT_PROJECT_ROOT=ROOT, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path,
                   QUERY_STRING=query, REQUEST_METHOD=self.command, CONTENT_LENGTH=str(len(data)),
                   CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""),
                   GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
        out = subprocess.run(["git", "http-backend"], input=data, env=env,
                             stdout=subprocess.PIPE).stdout
        sep = b"\r\n\r\n" if b"\r\n\r\n" in out else b"\n\n"
        head, _, rest = out.partition(sep)
        status, headers = 200, []
        for line in head.decode().splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k:
                headers.append((k, v.strip()))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)
    def do_GET(self):
        return self.backend() if self.path.startswith("/git/") else super().do_GET()
    def do_POST(self):
        return self.backend()
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print("port", s.server_address[1], flush=True)
s.serve_forever()
)PY";

// A folder served over http on the machine's loopback, outside every sandbox, for one test.
class Upstream {
 public:
  Upstream(const World& w, const std::string& dir) : log_(w.root() + "/upstream.log") {
    p_ = spawn_piped({"/bin/sh", "-c", "exec python3 -c \"$0\" \"$1\" 2>\"$2\"", kServer, dir,
                      log_},
                     w.env, dir);
    std::string line;
    char c;
    pollfd pf{p_.out, POLLIN, 0};
    while (line.find('\n') == std::string::npos && poll(&pf, 1, 10000) > 0 &&
           read(p_.out, &c, 1) == 1)
      line += c;
    if (line.rfind("port ", 0) == 0) port_ = std::stoi(line.substr(5));
  }
  ~Upstream() {
    if (p_.pid > 0) {
      kill(-p_.pid, SIGTERM);
      waitpid(p_.pid, nullptr, 0);
    }
    for (int fd : {p_.in, p_.out, p_.err})
      if (fd >= 0) close(fd);
  }
  Upstream(const Upstream&) = delete;
  Upstream& operator=(const Upstream&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string url() const { return "http://" + address(); }
  // The request lines it logged.
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

std::string allow_only(const std::string& host_port) {
  return "[network]\nallow = [\"" + host_port + "\"]\n";
}

// Runs a shell command in the sandbox through `cordon serve`, whose result lists the hosts
// reached and refused (NET-9). The result object, or null with the reason in `why`.
json exec_via_serve(const World& w, const std::string& command, int timeout_s = 120) {
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}});
  if (!init.contains("result")) return {{"error", init.dump() + client.stderr_text()}};
  json r = client.wait(client.start("exec", {{"command", command},
                                             {"timeout_ms", timeout_s * 1000}}),
                       std::chrono::seconds(timeout_s + 30));
  if (!r.contains("result")) return {{"error", r.dump() + client.stderr_text()}};
  return r["result"];
}

json connection(const json& res, const std::string& host_port) {
  if (res.contains("connections"))
    for (const auto& c : res["connections"])
      if (c.value("host", "") == host_port) return c;
  return nullptr;
}

// NET-7: the tool's traffic went through the proxy: the result lists the upstream as reached by
// the allow entry, with bytes each way.
void expect_through_proxy(const json& res, const std::string& host_port) {
  json c = connection(res, host_port);
  ASSERT_FALSE(c.is_null()) << host_port << " is not in connections: " << res.dump();
  EXPECT_EQ(c["allowed"], true) << c.dump();
  EXPECT_EQ(c["rule"], "allow " + host_port) << c.dump();
  EXPECT_GT(c["bytes_out"].get<long long>(), 0) << c.dump();
  EXPECT_GT(c["bytes_in"].get<long long>(), 0) << c.dump();
}

// NET-9: a host not in allow was refused by the proxy, and the result has its note once.
void expect_refused(const json& res, const std::string& host_port) {
  json c = connection(res, host_port);
  ASSERT_FALSE(c.is_null()) << host_port << " is not in connections: " << res.dump();
  EXPECT_EQ(c["allowed"], false) << c.dump();
  EXPECT_EQ(c["rule"], "not in allow") << c.dump();
  int notes = 0;
  for (const auto& n : res.value("notes", json::array()))
    if (n.get<std::string>().find(host_port + " is not in [network] allow") != std::string::npos)
      ++notes;
  EXPECT_EQ(notes, 1) << res.dump();
}

std::string output_of(const json& res) {
  return res.value("stdout", "") + res.value("stderr", "");
}

bool have(const World& w, const std::string& tool) {
  return w.host({"/bin/sh", "-c", "command -v " + tool}).status == 0;
}

// A bare repository `<dir>/<name>.git` with one commit of `files`, ready for both protocols.
void make_repo(const World& w, const std::string& dir, const std::string& name,
               const std::vector<std::pair<std::string, std::string>>& files) {
  const std::string work = w.root() + "/work-" + name;
  for (const auto& [path, text] : files) w.write(work + "/" + path, text);
  w.host({"git", "init", "-q", "-b", "main", work});
  w.host({"git", "-C", work, "add", "-A"});
  w.host({"git", "-C", work, "commit", "-q", "-m", "init"});
  w.host({"git", "clone", "-q", "--bare", work, dir + "/" + name + ".git"});
  w.host({"git", "-C", dir + "/" + name + ".git", "update-server-info"});
}

// NET-7: git over http (the dumb protocol and the smart one through `git http-backend`) clones
// from an allowed upstream through the proxy; it reads http_proxy. Without the proxy (NO_PROXY
// kept, so git connects straight to 127.0.0.1) nothing answers: the sandbox has no other way out.
TEST(NetTools, GitCloneThroughTheProxy) {
  REQUIRE_SANDBOX();
  World w;
  const std::string dir = w.root() + "/served";
  make_repo(w, dir, "tiny", {{"hello.txt", "from the upstream\n"}});
  Upstream up(w, dir);
  ASSERT_GT(up.port(), 0) << "the upstream did not start";
  w.config(allow_only(up.address()));
  json res = exec_via_serve(
      w, "env -u NO_PROXY -u no_proxy git clone -q " + up.url() + "/tiny.git /tmp/dumb && " +
             "cat /tmp/dumb/hello.txt && " +
             "env -u NO_PROXY -u no_proxy git clone -q " + up.url() + "/git/tiny.git /tmp/smart" +
             " && cat /tmp/smart/hello.txt && " +
             "if git clone -q " + up.url() + "/tiny.git /tmp/direct 2>/tmp/err; then echo direct;" +
             " else echo no-direct-way; fi; " +
             "env -u NO_PROXY -u no_proxy git clone -q http://git-blocked.invalid/tiny.git " +
             "/tmp/refused; echo \"refused exit $?\"");
  ASSERT_FALSE(res.contains("error")) << res.dump();
  EXPECT_EQ(res["stdout"], "from the upstream\nfrom the upstream\nno-direct-way\nrefused exit 128\n")
      << output_of(res);
  expect_through_proxy(res, up.address());
  expect_refused(res, "git-blocked.invalid:80");
  // git shows the proxy's refusal body itself.
  EXPECT_NE(res.value("stderr", "").find("git-blocked.invalid:80 is not in [network] allow"),
            std::string::npos)
      << output_of(res);
  EXPECT_NE(up.log().find("GET /git/tiny.git/info/refs?service=git-upload-pack"),
            std::string::npos)
      << up.log();
  EXPECT_NE(up.log().find("POST /git/tiny.git/git-upload-pack"), std::string::npos) << up.log();
}

// A wheel of one module, built by hand (a wheel is a zip with METADATA, WHEEL and RECORD).
const char* kMakeWheel = R"PY(
import base64, hashlib, os, sys, zipfile
root = sys.argv[1]
name = "cordon_tiny-1.0-py3-none-any.whl"
files = {"cordon_tiny/__init__.py": "VALUE = 'tiny from the upstream'\n",
         "cordon_tiny-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: cordon-tiny\nVersion: 1.0\n",
         "cordon_tiny-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: cordon-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
record = ""
for p, c in files.items():
    d = base64.urlsafe_b64encode(hashlib.sha256(c.encode()).digest()).rstrip(b"=").decode()
    record += "%s,sha256=%s,%d\n" % (p, d, len(c))
files["cordon_tiny-1.0.dist-info/RECORD"] = record + "cordon_tiny-1.0.dist-info/RECORD,,\n"
os.makedirs(root + "/files"); os.makedirs(root + "/simple/cordon-tiny")
with zipfile.ZipFile(root + "/files/" + name, "w") as z:
    for p, c in files.items():
        z.writestr(p, c)
with open(root + "/simple/cordon-tiny/index.html", "w") as f:
    f.write('<html><body><a href="../../files/%s">%s</a></body></html>\n' % (name, name))
)PY";

// NET-7: pip installs a wheel from a "simple" index on an allowed upstream through the proxy
// (pip's requests reads http_proxy and honours NO_PROXY), and an index on a host not in allow
// is refused: pip hides the 403 ("no matching distribution"), the note says why.
TEST(NetTools, PipInstallThroughTheProxy) {
  REQUIRE_SANDBOX();
  World w;
  if (w.host({"python3", "-m", "pip", "--version"}).status != 0)
    GTEST_SKIP() << "pip is not installed (Debian's python3-pip)";
  const std::string dir = w.root() + "/served";
  ASSERT_EQ(w.host({"python3", "-c", kMakeWheel, dir}).status, 0);
  Upstream up(w, dir);
  ASSERT_GT(up.port(), 0) << "the upstream did not start";
  w.config(allow_only(up.address()));
  const std::string pip =
      "env -u NO_PROXY -u no_proxy python3 -m pip --disable-pip-version-check --no-cache-dir "
      "--retries 0 --timeout 20 ";
  json res = exec_via_serve(
      w, pip + "install -q --no-deps --target /tmp/t --index-url " + up.url() +
             "/simple/ cordon-tiny && PYTHONPATH=/tmp/t python3 -c "
             "'import cordon_tiny; print(cordon_tiny.VALUE)' && " +
             pip + "download -q --no-deps -d /tmp/d --index-url http://pip-blocked.invalid/simple/"
             " --trusted-host pip-blocked.invalid cordon-tiny; echo \"refused exit $?\"");
  ASSERT_FALSE(res.contains("error")) << res.dump();
  EXPECT_EQ(res["stdout"], "tiny from the upstream\nrefused exit 1\n") << output_of(res);
  expect_through_proxy(res, up.address());
  expect_refused(res, "pip-blocked.invalid:80");
  EXPECT_NE(up.log().find("GET /files/cordon_tiny-1.0-py3-none-any.whl"), std::string::npos)
      << up.log();
}

}  // namespace
}  // namespace cordon::it
