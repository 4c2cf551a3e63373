// JOB-3 (issue 30 item 3): `tty: true` gives a command a new pseudo-terminal of the sandbox's own
// devpts, with the size asked for; the machine's terminal is never given, and TIOCSTI stays
// refused on it (PROC-2, PROC-7). The real binary over `cordon serve`, real sandboxes.
#include <sys/stat.h>

#include <chrono>
#include <string>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

struct Served {
  explicit Served(World& w) : client({"serve"}, w.env, w.project()) {
    init = client.call("initialize", {{"project", w.project()}});
  }
  json exec(json params) { return client.call("exec", std::move(params)); }
  // Starts a background job with a terminal; its id, or "" (with the answer in `last`).
  std::string start(const std::string& command, json extra = json::object()) {
    json params{{"command", command}, {"background", true}, {"tty", true}};
    params.update(extra);
    last = exec(params);
    if (!last.contains("result")) return "";
    return last["result"]["job"].get<std::string>();
  }
  // Everything the job printed so far (its stdout: the terminal).
  std::string output(const std::string& id) {
    json r = client.call("job/output", {{"job", id}});
    return r.contains("result") ? r["result"]["stdout"].get<std::string>() : "";
  }
  // Waits until the job's output holds `text`.
  bool shows(const std::string& id, const std::string& text) {
    return eventually([&] { return output(id).find(text) != std::string::npos; },
                      std::chrono::seconds(30));
  }
  bool ended(const std::string& id) {
    json r = client.call("job/wait", {{"job", id}, {"timeout_ms", 20000}});
    return r.contains("result") && r["result"]["ended"] == true;
  }
  RpcClient client;
  json init, last;
};

// JOB-3: a one-shot command sees a terminal on 0, 1 and 2 with the size asked for; its output
// comes back at the end, as stdout.
TEST(ServeTty, OneShotCommandHasATerminalOfTheSizeAsked) {  // JOB-3, issue 30
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  ASSERT_TRUE(s.init.contains("result")) << s.init.dump();
  json r = s.exec({{"command", "test -t 0 && test -t 1 && test -t 2 && stty size"},
                   {"tty", true},
                   {"cols", 123},
                   {"rows", 45}});
  ASSERT_TRUE(r.contains("result")) << r.dump() << s.client.stderr_text();
  EXPECT_EQ(r["result"]["exit_code"], 0) << r.dump();
  EXPECT_EQ(r["result"]["stdout"], "45 123\r\n") << r.dump();
  EXPECT_EQ(r["result"]["stderr"], "");
  // Without a size: 80 x 24.
  r = s.exec({{"command", "stty size"}, {"tty", true}});
  EXPECT_EQ(r["result"]["stdout"], "24 80\r\n") << r.dump();
  // Without tty: no terminal at all (PROC-2).
  r = s.exec({{"command", "test -t 0 || test -t 1 || echo none"}});
  EXPECT_EQ(r["result"]["stdout"], "none\n") << r.dump();
}

// JOB-3: a REPL driven through job/write: a line typed, its answer read through job/output,
// then the terminal's end of input ends it.
TEST(ServeTty, PythonReplDrivenThroughJobWrite) {  // JOB-3, issue 30
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  std::string id = s.start("python3 -i -q");
  ASSERT_FALSE(id.empty()) << s.last.dump();
  ASSERT_TRUE(s.shows(id, ">>> ")) << s.output(id);
  json r = s.client.call("job/write", {{"job", id}, {"data", "print(6*7)\n"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  ASSERT_TRUE(s.shows(id, "42\r\n")) << s.output(id);
  r = s.client.call("job/write", {{"job", id}, {"data", "exit()\n"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  ASSERT_TRUE(s.ended(id)) << s.output(id);
  r = s.client.call("job/output", {{"job", id}});
  EXPECT_EQ(r["result"]["exit_code"], 0) << r.dump();
  EXPECT_EQ(r["result"]["stderr"], "") << r.dump();

  // The end of input (eof: Ctrl-D on the terminal) ends it too.
  id = s.start("python3 -i -q");
  ASSERT_FALSE(id.empty()) << s.last.dump();
  ASSERT_TRUE(s.shows(id, ">>> ")) << s.output(id);
  r = s.client.call("job/write", {{"job", id}, {"data", "print(6*7)\n"}, {"eof", true}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  ASSERT_TRUE(s.ended(id)) << s.output(id);
  EXPECT_NE(s.output(id).find("42\r\n"), std::string::npos) << s.output(id);
}

// JOB-3: job/resize changes the terminal's size; the command sees the new one.
TEST(ServeTty, JobResizeChangesTheSize) {  // JOB-3, issue 30
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  std::string id =
      s.start("stty size; while read -r line; do stty size; done", {{"cols", 100}, {"rows", 30}});
  ASSERT_FALSE(id.empty()) << s.last.dump();
  ASSERT_TRUE(s.shows(id, "30 100\r\n")) << s.output(id);
  json r = s.client.call("job/resize", {{"job", id}, {"cols", 132}, {"rows", 50}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["cols"], 132);
  r = s.client.call("job/write", {{"job", id}, {"data", "again\n"}});
  ASSERT_TRUE(s.shows(id, "50 132\r\n")) << s.output(id);
  // A size out of range, and a job without a terminal, are refused.
  r = s.client.call("job/resize", {{"job", id}, {"cols", 0}, {"rows", 50}});
  EXPECT_TRUE(r.contains("error")) << r.dump();
  json plain = s.exec({{"command", "sleep 30"}, {"background", true}});
  ASSERT_TRUE(plain.contains("result")) << plain.dump();
  std::string other = plain["result"]["job"];
  r = s.client.call("job/resize", {{"job", other}, {"cols", 90}, {"rows", 20}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("no terminal"), std::string::npos);
  s.client.call("job/signal", {{"job", other}, {"signal", "KILL"}});
  s.client.call("job/write", {{"job", id}, {"eof", true}});
  EXPECT_TRUE(s.ended(id)) << s.output(id);
}

// JOB-3: the command learns of a resize as from any terminal: SIGWINCH, then the new size.
TEST(ServeTty, JobResizeSendsSigwinch) {  // JOB-3
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  std::string id = s.start(
      "python3 -c 'import os, signal, sys\n"
      "signal.signal(signal.SIGWINCH, lambda *a: print(\"winch\", *os.get_terminal_size(), "
      "flush=True))\n"
      "print(\"ready\", flush=True)\n"
      "sys.stdin.readline()'");
  ASSERT_FALSE(id.empty()) << s.last.dump();
  ASSERT_TRUE(s.shows(id, "ready\r\n")) << s.output(id);
  json r = s.client.call("job/resize", {{"job", id}, {"cols", 99}, {"rows", 11}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  ASSERT_TRUE(s.shows(id, "winch 99 11\r\n")) << s.output(id);
  s.client.call("job/write", {{"job", id}, {"data", "\n"}});
  EXPECT_TRUE(s.ended(id)) << s.output(id);
}

// PROC-7, JOB-3: TIOCSTI is refused by the filter on the command's own terminal, which it
// controls (without the filter the kernel would let it push input there).
TEST(ServeTty, TiocstiIsRefusedOnTheNewTerminal) {  // PROC-7, PROC-2, JOB-3
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  json r =
      s.exec({{"command",
               "python3 -c 'import fcntl, termios, os\n"
               "try:\n"
               "    fcntl.ioctl(0, termios.TIOCSTI, b\"x\")\n"
               "    print(\"pushed\")\n"
               "except OSError as e:\n"
               "    print(\"errno\", e.errno, os.ttyname(0) == os.readlink(\"/proc/self/fd/0\"))'"},
              {"tty", true}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["stdout"], "errno 1 True\r\n") << r.dump();
}

// JOB-3: the terminal is /dev/pts/N of the sandbox's own devpts, not the machine's: the
// command's controlling terminal, and a device of the devpts mounted at the sandbox's
// /dev/pts, whose device number is not the machine's /dev/pts's.
TEST(ServeTty, TheTerminalIsTheSandboxesOwn) {  // JOB-3, FS-9
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  json r = s.exec({{"command",
                    "readlink /proc/self/fd/0; readlink /proc/self/fd/1; "
                    "test \"$(stat -L -c %d /proc/self/fd/0)\" = \"$(stat -c %d /dev/pts)\" && "
                    "echo same-devpts; "
                    "awk '{print ($7 != 0) ? \"ctty\" : \"none\"}' /proc/self/stat; "
                    "stat -c %d /dev/pts"},
                   {"tty", true}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  std::string out = r["result"]["stdout"];
  EXPECT_EQ(out.rfind("/dev/pts/0\r\n/dev/pts/0\r\nsame-devpts\r\nctty\r\n", 0), 0u) << out;
  struct stat host_pts;
  ASSERT_EQ(stat("/dev/pts", &host_pts), 0);
  const std::string inside_dev = out.substr(out.rfind("ctty\r\n") + 6);
  EXPECT_NE(inside_dev, std::to_string(host_pts.st_dev) + "\r\n") << out;
}

// JOB-3, NET-7: with the allowlist proxy on, the proxy's stage runs first and then the
// terminal's: the command has both its terminal and the proxy inside its network.
TEST(ServeTty, TheTerminalStageFollowsTheProxyStage) {  // JOB-3, NET-7
  REQUIRE_SANDBOX();
  World w;
  w.config("[network]\nallow = [\"127.0.0.1:9\"]\n");
  Served s(w);
  json r = s.exec({{"command",
                    "stty size; python3 -c 'import os, socket; "
                    "p = os.environ[\"HTTP_PROXY\"].rsplit(\":\", 1)[1].strip(\"/\"); "
                    "socket.create_connection((\"127.0.0.1\", int(p)), 5); print(\"proxy\")'"},
                   {"tty", true},
                   {"cols", 60},
                   {"rows", 20}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["stdout"], "20 60\r\nproxy\r\n") << r.dump();
  EXPECT_EQ(r["result"]["exit_code"], 0) << r.dump();
}

// JOB-3: a tty request's size is checked, and its words are the exec's.
TEST(ServeTty, BadSizesAreRefused) {  // JOB-3
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  json r = s.exec({{"command", "true"}, {"tty", true}, {"cols", 0}});
  EXPECT_TRUE(r.contains("error")) << r.dump();
  r = s.exec({{"command", "true"}, {"cols", 100}});
  EXPECT_TRUE(r.contains("error")) << r.dump();
  r = s.exec({{"command", "true"}, {"tty", "yes"}});
  EXPECT_TRUE(r.contains("error")) << r.dump();
}

}  // namespace
}  // namespace cordon::it
