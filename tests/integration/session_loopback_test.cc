// The session's own loopback (issue 30 item 2, NET-1): the commands and background jobs of one
// `cordon serve` session share one network namespace; a server a job starts on 127.0.0.1 is
// reachable by the session's next command, and not by the machine or another session; the
// session's end ends the server. Real binary, real sandboxes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

using std::chrono::seconds;

struct Served {
  explicit Served(World& w) : client({"serve"}, w.env, w.project()) {
    init = client.call("initialize", {{"project", w.project()}});
  }
  json exec(const std::string& command) {
    json r = client.call("exec", {{"command", command}});
    return r.contains("result") ? r["result"] : r;
  }
  std::string start(const std::string& command) {
    json r = client.call("exec", {{"command", command}, {"background", true}});
    return r.contains("result") ? r["result"]["job"].get<std::string>() : "";
  }
  RpcClient client;
  json init;
};

// A port nothing on this machine is expected to use, different for each test process.
int test_port() { return 20000 + static_cast<int>(getpid() % 20000); }

// Processes on the machine whose command line starts with `needle` (bwrap's own, which holds
// the command's words after `--`, does not).
int processes_with(const std::string& needle) {
  int n = 0;
  for (const auto& [pid, line] : command_lines())
    if (line.rfind(needle, 0) == 0) ++n;
  return n;
}

std::string fetch_script(int port) {
  return "for i in $(seq 100); do curl -s --max-time 2 127.0.0.1:" + std::to_string(port) +
         "/ && exit 0; sleep 0.1; done; exit 1";
}

TEST(SessionLoopback, AJobsServerIsReachedByTheNextCommandOnly) {  // JOB-2, NET-1, PROC-3
  REQUIRE_SANDBOX();
  World w;
  w.write("marker-file.txt", "x\n");
  const int port = test_port();
  ASSERT_FALSE(host_connects(port)) << "port " << port << " is in use on this machine";
  const std::string server = "/usr/bin/python3 -m http.server " + std::to_string(port);
  {
    Served a(w);
    ASSERT_TRUE(a.init.contains("result")) << a.init.dump() << a.client.stderr_text();
    std::string job = a.start("exec " + server + " --bind 127.0.0.1");
    ASSERT_FALSE(job.empty()) << a.client.stderr_text();
    // A server of the machine's (this test's) is not reachable from the session's loopback.
    int host_port = 0;
    const int host_server = listen_on_host_loopback(host_port);
    ASSERT_GE(host_server, 0);
    json h = a.exec("curl -s --max-time 5 127.0.0.1:" + std::to_string(host_port) +
                    "/; echo exit=$?");
    close(host_server);
    EXPECT_NE(h["stdout"].get<std::string>().find("exit=7"), std::string::npos) << h.dump();
    // Command 2 of the same session gets the listing.
    json r = a.exec(fetch_script(port));
    EXPECT_EQ(r["exit_code"], 0) << r.dump();
    EXPECT_NE(r["stdout"].get<std::string>().find("marker-file.txt"), std::string::npos)
        << r.dump();
    // The machine cannot connect.
    EXPECT_FALSE(host_connects(port));
    // Nor can a command of another session (refused at once: nothing listens there).
    Served b(w);
    json other = b.exec("curl -s --max-time 5 127.0.0.1:" + std::to_string(port) +
                        "/; echo exit=$?");
    EXPECT_NE(other["stdout"].get<std::string>().find("exit=7"), std::string::npos)
        << other.dump();
    // A one-shot `cordon run` has a loopback of its own as well.
    Proc one = w.sh("curl -s --max-time 5 127.0.0.1:" + std::to_string(port) + "/; echo exit=$?");
    EXPECT_NE(one.out.find("exit=7"), std::string::npos) << one.out << one.err;
    EXPECT_EQ(processes_with(server), 1);
    // The session ends with its connection: the server with it.
    a.client.close_stdin();
    EXPECT_EQ(a.client.wait_exit(seconds(30)), 0) << a.client.stderr_text();
  }
  EXPECT_TRUE(eventually([&] { return processes_with(server) == 0; }, seconds(10)));
  EXPECT_FALSE(host_connects(port));
}

TEST(SessionLoopback, CommandsOfASessionEachHaveTheirOwnProxy) {  // JOB-2, NET-7
  REQUIRE_SANDBOX();
  World w;
  w.config("[network]\nallow = [\"registry.npmjs.org\"]\n");
  Served s(w);
  ASSERT_TRUE(s.init.contains("result")) << s.init.dump() << s.client.stderr_text();
  // A job holds its proxy's port in the session's loopback while the next command runs.
  std::string job = s.start("echo $HTTPS_PROXY; exec sleep " + unique_sleep());
  ASSERT_FALSE(job.empty()) << s.client.stderr_text();
  json out;
  ASSERT_TRUE(eventually([&] {
    out = s.client.call("job/output", {{"job", job}});
    return out["result"]["stdout"].get<std::string>().find("127.0.0.1") != std::string::npos;
  })) << out.dump();
  std::string first = out["result"]["stdout"];
  // The next command's proxy answers on another port: it refuses a host no entry names.
  json r = s.exec(
      "echo $HTTPS_PROXY; curl -s -o /dev/null -w '%{http_code}\\n' -x \"$HTTP_PROXY\" "
      "http://not-listed.invalid/");
  EXPECT_EQ(r["exit_code"], 0) << r.dump();
  std::string second = r["stdout"];
  EXPECT_NE(second.substr(0, second.find('\n') + 1), first) << second;
  EXPECT_EQ(second.find("\n000\n"), std::string::npos) << second;  // an HTTP answer came
  s.client.call("job/signal", {{"job", job}, {"signal", "KILL"}});
}

}  // namespace
}  // namespace cordon::it
