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

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
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
    p_ =
        spawn_piped({"/bin/sh", "-c", "exec python3 -c \"$0\" \"$1\" 2>\"$2\"", kServer, dir, log_},
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
  json r =
      client.wait(client.start("exec", {{"command", command}, {"timeout_ms", timeout_s * 1000}}),
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

std::string output_of(const json& res) { return res.value("stdout", "") + res.value("stderr", ""); }

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
             "cat /tmp/dumb/hello.txt && " + "env -u NO_PROXY -u no_proxy git clone -q " +
             up.url() + "/git/tiny.git /tmp/smart" + " && cat /tmp/smart/hello.txt && " +
             "if git clone -q " + up.url() + "/tiny.git /tmp/direct 2>/tmp/err; then echo direct;" +
             " else echo no-direct-way; fi; " +
             "env -u NO_PROXY -u no_proxy git clone -q http://git-blocked.invalid/tiny.git " +
             "/tmp/refused; echo \"refused exit $?\"; " +
             // https: a CONNECT through HTTPS_PROXY, refused before any TLS.
             "env -u NO_PROXY -u no_proxy git clone -q https://git-blocked.invalid/tiny.git " +
             "/tmp/refused2; echo \"https refused exit $?\"");
  ASSERT_FALSE(res.contains("error")) << res.dump();
  EXPECT_EQ(res["stdout"],
            "from the upstream\nfrom the upstream\nno-direct-way\nrefused exit 128\n"
            "https refused exit 128\n")
      << output_of(res);
  expect_through_proxy(res, up.address());
  expect_refused(res, "git-blocked.invalid:80");
  expect_refused(res, "git-blocked.invalid:443");
  // git shows the proxy's refusal body itself.
  EXPECT_NE(res.value("stderr", "").find("git-blocked.invalid:80 is not in [network] allow"),
            std::string::npos)
      << output_of(res);
  EXPECT_NE(up.log().find("GET /git/tiny.git/info/refs?service=git-upload-pack"), std::string::npos)
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
             pip +
             "download -q --no-deps -d /tmp/d --index-url http://pip-blocked.invalid/simple/"
             " --trusted-host pip-blocked.invalid cordon-tiny; echo \"refused exit $?\"");
  ASSERT_FALSE(res.contains("error")) << res.dump();
  EXPECT_EQ(res["stdout"], "tiny from the upstream\nrefused exit 1\n") << output_of(res);
  expect_through_proxy(res, up.address());
  expect_refused(res, "pip-blocked.invalid:80");
  EXPECT_NE(up.log().find("GET /files/cordon_tiny-1.0-py3-none-any.whl"), std::string::npos)
      << up.log();
}

// NET-7: the sandbox's own loopback servers stay reachable directly: pip against an index the
// command serves itself on 127.0.0.1, with NO_PROXY as cordon sets it. (cordon once set
// PIP_PROXY, which pip puts above NO_PROXY: every request, this one too, went to the proxy and
// was refused. pip reads http_proxy and https_proxy, so PIP_PROXY is not needed.)
TEST(NetTools, PipReachesTheCommandsOwnIndexDirectly) {
  REQUIRE_SANDBOX();
  World w;
  if (w.host({"python3", "-m", "pip", "--version"}).status != 0)
    GTEST_SKIP() << "pip is not installed (Debian's python3-pip)";
  ASSERT_EQ(w.host({"python3", "-c", kMakeWheel, w.abs("index")}).status, 0);
  w.config(allow_only("registry.npmjs.org"));
  json res = exec_via_serve(
      w,
      "python3 -u -m http.server 0 --bind 127.0.0.1 --directory index >/tmp/port 2>/dev/null & "
      "for i in 1 2 3 4 5 6 7 8 9 10; do grep -q port /tmp/port && break; sleep 0.5; done; "
      "port=$(sed -n 's/.* port \\([0-9]*\\) .*/\\1/p' /tmp/port); "
      "python3 -m pip --disable-pip-version-check --no-cache-dir --retries 0 --timeout 20 "
      "download -q --no-deps -d /tmp/d --index-url http://127.0.0.1:$port/simple/ cordon-tiny "
      "&& ls /tmp/d; kill %1");
  ASSERT_FALSE(res.contains("error")) << res.dump();
  EXPECT_EQ(res["stdout"], "cordon_tiny-1.0-py3-none-any.whl\n") << output_of(res);
  EXPECT_TRUE(res.value("connections", json::array()).empty()) << res.dump();
}

// The client for Java: HttpURLConnection, the JDK's own, which reads only the http(s).proxyHost
// and proxyPort properties (cordon sets them in JAVA_TOOL_OPTIONS). Prints the status, the
// refusal header and the body, or the exception.
const char* kJavaFetch = R"JAVA(
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;

public class Fetch {
  public static void main(String[] args) {
    for (String a : args) {
      try {
        HttpURLConnection c = (HttpURLConnection) new URL(a).openConnection();
        c.setConnectTimeout(20000);
        c.setReadTimeout(20000);
        int code = c.getResponseCode();
        InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream();
        String body = in == null ? "" : new String(in.readAllBytes(), "UTF-8").trim();
        String refusal = c.getHeaderField("X-Cordon-Refusal");
        System.out.println(code + (refusal == null ? "" : " [" + refusal + "]") + " " + body);
      } catch (Exception e) {
        System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
      }
    }
  }
}
)JAVA";

// NET-7: Java reaches an allowed upstream with nothing but JAVA_TOOL_OPTIONS from cordon, over
// http (absolute-form requests) and https (CONNECT: refused here, for a host not in allow).
// Java keeps localhost and 127.* off the proxy by default (http.nonProxyHosts, its NO_PROXY),
// so the test empties that property for the loopback upstream.
TEST(NetTools, JavaHttpUrlConnectionThroughTheProxy) {
  REQUIRE_SANDBOX();
  World w;
  if (!have(w, "java")) GTEST_SKIP() << "java is not installed (Debian's default-jdk-headless)";
  const std::string dir = w.root() + "/served";
  w.write(dir + "/hello.txt", "hello from the upstream\n");
  Upstream up(w, dir);
  ASSERT_GT(up.port(), 0) << "the upstream did not start";
  w.config(allow_only(up.address()));
  w.write("Fetch.java", kJavaFetch);
  json res = exec_via_serve(w, "java -Dhttp.nonProxyHosts= Fetch.java " + up.url() +
                                   "/hello.txt http://java-blocked.invalid/x "
                                   "https://java-blocked.invalid/y; java Fetch.java " +
                                   up.url() + "/hello.txt");
  ASSERT_FALSE(res.contains("error")) << res.dump();
  EXPECT_EQ(res["stdout"],
            "200 hello from the upstream\n"
            "403 [not in allow] cordon: java-blocked.invalid:80 is not in [network] allow "
            "(~/.config/cordon/config.toml). Ask the user to add it; do not try to get around "
            "the proxy.\n"
            "IOException: Unable to tunnel through proxy. Proxy returns \"HTTP/1.1 403 "
            "Forbidden\"\n"
            // Without the property emptied, Java goes straight to 127.0.0.1: nothing there.
            "ConnectException: Connection refused\n")
      << output_of(res);
  EXPECT_NE(res.value("stderr", "").find("Picked up JAVA_TOOL_OPTIONS: -Dhttp.proxyHost=127.0.0.1"),
            std::string::npos)
      << output_of(res);
  expect_through_proxy(res, up.address());
  expect_refused(res, "java-blocked.invalid:80");
  expect_refused(res, "java-blocked.invalid:443");
  EXPECT_NE(up.log().find("GET /hello.txt"), std::string::npos) << up.log();
}

// NET-7, the real behaviour of Node 20's fetch: it ignores HTTP_PROXY (NODE_USE_ENV_PROXY, which
// cordon sets, is read from Node 24 and 22.21 on), so it connects directly: to the loopback
// upstream it finds nothing (the sandbox's own 127.0.0.1), and a name does not resolve (there
// is no DNS inside), an address has no route; the command fails fast, nothing reaches the
// upstream, and the note names the proxy. npm, which reads npm_config_proxy, is
// NetProxy.NpmCiThroughTheAllowlist.
TEST(NetTools, NodeFetchWithoutProxySupportFailsFastWithTheNote) {
  REQUIRE_SANDBOX();
  World w;
  if (!have(w, "node")) GTEST_SKIP() << "node is not installed";
  const std::string dir = w.root() + "/served";
  w.write(dir + "/hello.txt", "hello from the upstream\n");
  Upstream up(w, dir);
  ASSERT_GT(up.port(), 0) << "the upstream did not start";
  w.config(allow_only(up.address()));
  Proc version = w.host({"node", "-p", "process.versions.node.split('.')[0]"});
  const int major = std::atoi(version.out.c_str());
  w.write("fetch.mjs",
          "for (const u of process.argv.slice(2)) {\n"
          "  try {\n"
          "    const r = await fetch(u, { signal: AbortSignal.timeout(20000) });\n"
          "    console.log(r.status, (await r.text()).trim());\n"
          "  } catch (e) {\n"
          "    console.log(e.cause?.code ?? String(e));\n"
          "    process.exitCode = 1;\n"
          "  }\n"
          "}\n");
  const auto start = std::chrono::steady_clock::now();
  json res = exec_via_serve(w, "env -u NO_PROXY -u no_proxy node fetch.mjs " + up.url() +
                                   "/hello.txt http://node-blocked.invalid/x"
                                   // TEST-NET-1: no route in the sandbox; never a real host.
                                   " http://192.0.2.1/");
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(res.contains("error")) << res.dump();
  if (major >= 24) {
    // Node reads the variables: the same as every other tool here.
    EXPECT_EQ(res.value("stdout", "")
                  .rfind("200 hello from the upstream\n403 cordon: "
                         "node-blocked.invalid:80 is not in [network] allow",
                         0),
              0u)
        << output_of(res);
    expect_through_proxy(res, up.address());
    expect_refused(res, "node-blocked.invalid:80");
    return;
  }
  EXPECT_EQ(res["stdout"], "ECONNREFUSED\nEAI_AGAIN\nENETUNREACH\n")
      << "node " << major << ": " << output_of(res);
  EXPECT_LT(took, std::chrono::seconds(15)) << "fetch did not fail fast";
  EXPECT_TRUE(res.value("connections", json::array()).empty()) << res.dump();
  EXPECT_EQ(up.log(), "");
  std::string notes = res.value("notes", json::array()).dump();
  EXPECT_NE(notes.find("only proxied traffic can leave"), std::string::npos) << notes;
  EXPECT_NE(notes.find("127.0.0.1:3128"), std::string::npos) << notes;
}

std::string cargo_project(const std::string& name, const std::string& git_url) {
  return "[package]\nname = \"" + name +
         "\"\nversion = \"0.1.0\"\nedition = \"2018\"\n\n[dependencies]\ntiny = { git = \"" +
         git_url + "\" }\n";
}

// NET-7: cargo fetches a git dependency from an allowed upstream through the proxy (cargo's
// git transport is libcurl: it reads CARGO_HTTP_PROXY, http_proxy and NO_PROXY), then builds
// and runs offline with it; a dependency on a host not in allow is refused, and cargo shows the
// 403. Debian's cargo (rustup's, under /root, is not readable by other users).
TEST(NetTools, CargoFetchesAGitDependencyThroughTheProxy) {
  REQUIRE_SANDBOX();
  World w;
  if (!have(w, "cargo"))
    GTEST_SKIP() << "cargo is not installed in PATH (Debian's cargo; scripts/deps.sh installs it)";
  const std::string dir = w.root() + "/served";
  make_repo(
      w, dir, "tiny",
      {{"Cargo.toml", "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2018\"\n"},
       {"src/lib.rs", "pub fn value() -> &'static str { \"tiny from the upstream\" }\n"}});
  Upstream up(w, dir);
  ASSERT_GT(up.port(), 0) << "the upstream did not start";
  w.config(allow_only(up.address()));
  // cordon mounts its caches over ~/.cargo/git and ~/.cargo/registry only when they exist
  // (PKG-3), as they do wherever cargo has fetched before.
  ASSERT_EQ(w.host({"mkdir", "-p", w.home() + "/.cargo/git", w.home() + "/.cargo/registry"}).status,
            0);
  w.write("app/Cargo.toml", cargo_project("app", up.url() + "/git/tiny.git"));
  w.write("app/src/main.rs", "fn main() { println!(\"{}\", tiny::value()); }\n");
  w.write("refused/Cargo.toml", cargo_project("refused", "http://cargo-blocked.invalid/tiny.git"));
  w.write("refused/src/main.rs", "fn main() {}\n");
  json res = exec_via_serve(
      w,
      "export CARGO_NET_RETRY=0; cd app && env -u NO_PROXY -u no_proxy cargo fetch -q && "
      "cargo run -q --offline && cd ../refused && env -u NO_PROXY -u no_proxy cargo fetch -q; "
      "echo \"refused exit $?\"",
      300);
  ASSERT_FALSE(res.contains("error")) << res.dump();
  EXPECT_EQ(res["stdout"], "tiny from the upstream\nrefused exit 101\n") << output_of(res);
  EXPECT_NE(res.value("stderr", "").find("got 403"), std::string::npos) << output_of(res);
  expect_through_proxy(res, up.address());
  expect_refused(res, "cargo-blocked.invalid:80");
  EXPECT_NE(up.log().find("POST /git/tiny.git/git-upload-pack"), std::string::npos) << up.log();
}

// NET-7, what can and cannot be tested of Go: the go command reads HTTP_PROXY (a module proxy on
// a host not in allow gets the proxy's 403, which go prints with its body), but Go never sends
// a request for localhost or a loopback address through a proxy, whatever NO_PROXY says, so a
// loopback upstream cannot stand in for an allowed host: go connects straight to the
// sandbox's own 127.0.0.1 and finds nothing. An allowed name needs a real outside host, which
// these tests never reach.
TEST(NetTools, GoModDownloadUsesTheProxyButNeverForLoopback) {
  REQUIRE_SANDBOX();
  World w;
  if (!have(w, "go"))
    GTEST_SKIP() << "go is not installed (Debian's golang-go; scripts/deps.sh installs it)";
  const std::string dir = w.root() + "/served";
  w.write(dir + "/goproxy/example.org/tiny/@v/v1.0.0.info", "{\"Version\":\"v1.0.0\"}\n");
  Upstream up(w, dir);
  ASSERT_GT(up.port(), 0) << "the upstream did not start";
  w.config(allow_only(up.address()));
  w.write("gomod/go.mod", "module example.com/app\n\ngo 1.19\n");
  const std::string go = "env -u NO_PROXY -u no_proxy GOSUMDB=off GOFLAGS= GOPROXY=";
  json res = exec_via_serve(
      w, "cd gomod && " + go + up.url() + "/goproxy go mod download example.org/tiny@v1.0.0; " +
             "echo \"loopback exit $?\"; " + go +
             "http://go-blocked.invalid go mod download example.org/tiny@v1.0.0; "
             "echo \"refused exit $?\"");
  ASSERT_FALSE(res.contains("error")) << res.dump();
  EXPECT_EQ(res["stdout"], "loopback exit 1\nrefused exit 1\n") << output_of(res);
  const std::string err = res.value("stderr", "");
  EXPECT_NE(err.find("dial tcp " + up.address() + ": connect: connection refused"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("403 Forbidden"), std::string::npos) << err;
  EXPECT_NE(err.find("server response: cordon: go-blocked.invalid:80 is not in [network] allow"),
            std::string::npos)
      << err;
  EXPECT_TRUE(connection(res, up.address()).is_null()) << res.dump();
  expect_refused(res, "go-blocked.invalid:80");
  EXPECT_EQ(up.log(), "");
}

// A registry of one package for npm: the package document at /cordon-tiny/ (index.html, which
// the server gives for the folder) and its tarball, with the sha512 integrity npm checks.
const char* kMakeNpmRegistry = R"PY(
import base64, hashlib, io, json, os, sys, tarfile
root, url = sys.argv[1], sys.argv[2]
os.makedirs(root + "/cordon-tiny/-")
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as t:
    for name, text in {"package/package.json": '{"name":"cordon-tiny","version":"1.0.0","main":"index.js"}',
                       "package/index.js": "module.exports = 'tiny from the upstream';\n"}.items():
        info = tarfile.TarInfo(name); info.size = len(text); info.mode = 0o644
        t.addfile(info, io.BytesIO(text.encode()))
tgz = buf.getvalue()
open(root + "/cordon-tiny/-/cordon-tiny-1.0.0.tgz", "wb").write(tgz)
# "time": yarn 4 holds back a version whose publication time it does not know.
doc = {"name": "cordon-tiny", "dist-tags": {"latest": "1.0.0"},
       "time": {"created": "2020-01-01T00:00:00.000Z", "1.0.0": "2020-01-01T00:00:00.000Z"},
       "versions": {"1.0.0": {
    "name": "cordon-tiny", "version": "1.0.0", "main": "index.js",
    "dist": {"tarball": url + "/cordon-tiny/-/cordon-tiny-1.0.0.tgz",
             "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()}}}}
open(root + "/cordon-tiny/index.html", "w").write(json.dumps(doc))
)PY";

// The fixture of the package-manager tests: a one-package registry on an allowed upstream, an
// empty project in app/ and another in refused/.
struct RegistryWorld {
  World w;
  std::string dir = w.root() + "/served";
  std::unique_ptr<Upstream> up;
  bool start() {
    if (w.host({"mkdir", "-p", dir}).status != 0) return false;
    up = std::make_unique<Upstream>(w, dir);
    if (up->port() <= 0) return false;
    if (w.host({"python3", "-c", kMakeNpmRegistry, dir, up->url()}).status != 0) return false;
    w.config(allow_only(up->address()));
    for (const char* p : {"app", "refused"})
      w.write(std::string(p) + "/package.json", "{\"name\": \"app\", \"version\": \"1.0.0\"}\n");
    return true;
  }
};

// What a user of a package manager sees in the tests below: cordon-tiny installed from the
// loopback registry through the proxy (its tarball fetched there), and `refused` refused once.
void expect_fetched_tiny(const json& res, RegistryWorld& rw, const std::string& refused) {
  ASSERT_FALSE(res.contains("error")) << res.dump();
  EXPECT_EQ(res["stdout"], "tiny from the upstream\nrefused exit 1\n") << output_of(res);
  expect_through_proxy(res, rw.up->address());
  expect_refused(res, refused);
  EXPECT_NE(rw.up->log().find("GET /cordon-tiny/-/cordon-tiny-1.0.0.tgz"), std::string::npos)
      << rw.up->log();
}

const char* kNoNoProxy = "env -u NO_PROXY -u no_proxy -u npm_config_noproxy ";

// NET-7: npm installs a package from a registry on an allowed upstream through the proxy; it
// reads npm_config_proxy, and npm_config_noproxy (its NO_PROXY, which cordon sets too) is
// cleared with the others. A registry not in allow is refused. (npm against the real registry
// is NetProxy.NpmCiThroughTheAllowlist.)
TEST(NetTools, NpmInstallThroughTheProxy) {
  REQUIRE_SANDBOX();
  RegistryWorld rw;
  if (!have(rw.w, "npm")) GTEST_SKIP() << "npm is not installed";
  ASSERT_TRUE(rw.start()) << "the upstream did not start";
  const std::string npm = std::string(kNoNoProxy) + "npm --no-audit --no-fund --fetch-retries=0 ";
  json res = exec_via_serve(
      rw.w, "cd app && " + npm + "install -s --registry " + rw.up->url() + "/ cordon-tiny && " +
                "node -p \"require('cordon-tiny')\" && " + npm +
                "view -s cordon-tiny version --registry http://npm-blocked.invalid/; "
                "echo \"refused exit $?\"");
  expect_fetched_tiny(res, rw, "npm-blocked.invalid:80");
}

// pnpm and yarn are npm packages: installed for the test into <project>/tools from
// registry.npmjs.org, outside the sandbox, at pinned versions. Empty when the registry cannot
// be reached, with the reason in `why`.
std::string install_npm_tool(const World& w, const std::string& package, std::string* why) {
  // The machine's CA list, for a machine whose way out re-signs TLS (Node has its own list).
  auto env = w.env;
  env["NODE_EXTRA_CA_CERTS"] = "/etc/ssl/certs/ca-certificates.crt";
  Proc r = run_program({"npm", "install", "--no-audit", "--no-fund", "--fetch-retries=1",
                        "--prefix", w.abs("tools"), package},
                       env, w.project());
  if (r.status != 0) *why = "could not install " + package + " from registry.npmjs.org: " + r.err;
  return r.status == 0 ? w.abs("tools/node_modules") : "";
}

// NET-7: pnpm reads npm_config_proxy and npm_config_https_proxy (and honours the noproxy list,
// cleared here with NO_PROXY).
TEST(NetTools, PnpmAddThroughTheProxy) {
  REQUIRE_SANDBOX();
  RegistryWorld rw;
  if (!have(rw.w, "npm")) GTEST_SKIP() << "npm is not installed";
  std::string why;
  std::string tools = install_npm_tool(rw.w, "pnpm@9.15.9", &why);
  if (tools.empty()) GTEST_SKIP() << why;
  ASSERT_TRUE(rw.start()) << "the upstream did not start";
  // pnpm 9 and 10 read their store folder from npm_config_store_dir, not from the
  // pnpm_config_store_dir cordon sets: without this they try ~/.local/share/pnpm.
  const std::string pnpm =
      std::string(kNoNoProxy) +
      "npm_config_store_dir=$pnpm_config_store_dir npm_config_fetch_retries=0 " + tools +
      "/.bin/pnpm add --registry ";
  json res = exec_via_serve(
      rw.w, "cd app && " + pnpm + rw.up->url() +
                "/ cordon-tiny >&2 && node -p \"require('cordon-tiny')\" && cd ../refused && " +
                pnpm + "http://pnpm-blocked.invalid/ cordon-tiny >&2; echo \"refused exit $?\"");
  expect_fetched_tiny(res, rw, "pnpm-blocked.invalid:80");
  EXPECT_NE(res.value("stderr", "").find("ERR_PNPM_FETCH_403"), std::string::npos)
      << output_of(res);
}

// NET-7: yarn 1 reads the proxy from npm_config_proxy and npm_config_https_proxy too.
TEST(NetTools, YarnClassicAddThroughTheProxy) {
  REQUIRE_SANDBOX();
  RegistryWorld rw;
  if (!have(rw.w, "npm")) GTEST_SKIP() << "npm is not installed";
  std::string why;
  std::string tools = install_npm_tool(rw.w, "yarn@1.22.22", &why);
  if (tools.empty()) GTEST_SKIP() << why;
  ASSERT_TRUE(rw.start()) << "the upstream did not start";
  const std::string yarn = std::string(kNoNoProxy) + tools +
                           "/yarn/bin/yarn.js add --silent --no-progress --network-timeout 20000 "
                           "--registry ";
  json res = exec_via_serve(
      rw.w, "cd app && " + yarn + rw.up->url() +
                "/ cordon-tiny && node -p \"require('cordon-tiny')\"" + " && cd ../refused && " +
                yarn + "http://yarn-blocked.invalid/ cordon-tiny; " + "echo \"refused exit $?\"");
  expect_fetched_tiny(res, rw, "yarn-blocked.invalid:80");
}

// NET-7: yarn 2+ (berry) reads only its own YARN_HTTP_PROXY and YARN_HTTPS_PROXY, which cordon
// sets. It has no NO_PROXY of its own and ignores the variable: it sends every request to the
// proxy, even one for 127.0.0.1, so this test keeps NO_PROXY as cordon sets it. (A registry the
// command serves itself on loopback is therefore refused for berry: a known limit.)
TEST(NetTools, YarnBerryAddThroughTheProxy) {
  REQUIRE_SANDBOX();
  RegistryWorld rw;
  if (!have(rw.w, "npm")) GTEST_SKIP() << "npm is not installed";
  std::string why;
  std::string tools = install_npm_tool(rw.w, "@yarnpkg/cli-dist@4.18.1", &why);
  if (tools.empty()) GTEST_SKIP() << why;
  ASSERT_TRUE(rw.start()) << "the upstream did not start";
  rw.w.write("app/yarn.lock", "");
  rw.w.write("refused/yarn.lock", "");
  auto yarn = [&](const std::string& registry, const std::string& host) {
    return "YARN_ENABLE_TELEMETRY=0 YARN_NODE_LINKER=node-modules YARN_HTTP_RETRY=0 "
           "YARN_NPM_REGISTRY_SERVER=" +
           registry + " YARN_UNSAFE_HTTP_WHITELIST=" + host + " node " + tools +
           "/@yarnpkg/cli-dist/bin/yarn.js add cordon-tiny >/tmp/yarn.log 2>&1";
  };
  json res =
      exec_via_serve(rw.w, "cd app && " + yarn(rw.up->url(), "127.0.0.1") +
                               " && node -p \"require('cordon-tiny')\" && cd ../refused && " +
                               yarn("http://yarn-blocked.invalid", "yarn-blocked.invalid") +
                               "; echo \"refused exit $?\"; cat /tmp/yarn.log >&2");
  expect_fetched_tiny(res, rw, "yarn-blocked.invalid:80");
}

}  // namespace
}  // namespace cordon::it
