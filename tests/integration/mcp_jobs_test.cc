// `cordon mcp`'s background jobs end to end (issue 30 item 1, SRV-2, PROC-1): the real binary
// over stdio, real sandboxes; `bash` with `run_in_background`, `bash_output`, `bash_write` and
// `kill_bash`.
#include <chrono>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

using std::chrono::seconds;

struct Mcp {
  explicit Mcp(World& w) : client({"mcp", "--project", w.project()}, w.env, w.project()) {
    init = client.mcp_initialize();
  }
  // A tool call's result (content, isError, structuredContent).
  json tool(const std::string& name, const json& args) {
    last = client.call("tools/call", {{"name", name}, {"arguments", args}});
    return last.contains("result") ? last["result"] : json();
  }
  // Starts `command` in the background; the job's id, or "" (the answer in `last`).
  std::string start(const std::string& command) {
    json r = tool("bash", {{"command", command}, {"run_in_background", true}});
    if (r.is_null() || r["isError"] == true) return "";
    return r["structuredContent"]["job"].get<std::string>();
  }
  static std::string text(const json& result) {
    return result.is_null() ? "" : result["content"][0]["text"].get<std::string>();
  }
  RpcClient client;
  json init, last;
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Issue 30 item 1: bash_output answers what came since its last call for the job (the server
// keeps the offset): read in turns, nothing is lost and nothing repeated. The command prints a
// line every 0.3 s, then waits for a file the test makes, then prints more.
TEST(McpJobs, BashOutputReadsInTurnsLosingAndRepeatingNothing) {  // JOB-1
  REQUIRE_SANDBOX();
  World w;
  Mcp m(w);
  ASSERT_TRUE(m.init.contains("result")) << m.init.dump() << m.client.stderr_text();
  std::string id = m.start(
      "for i in 1 2 3; do echo line$i; sleep 0.3; done; "
      "while [ ! -e gate ]; do sleep 0.1; done; "
      "for i in 4 5 6; do echo line$i; sleep 0.3; done");
  ASSERT_FALSE(id.empty()) << m.last.dump();
  EXPECT_TRUE(has(m.text(m.last["result"]), "job " + id)) << m.last.dump();
  EXPECT_TRUE(has(m.text(m.last["result"]), "bash_output")) << m.last.dump();
  std::string seen;
  int reads = 0;
  auto read = [&] {
    json r = m.tool("bash_output", {{"job", id}});
    ++reads;
    EXPECT_EQ(r["isError"], false) << r.dump();
    seen += r["structuredContent"]["stdout"].get<std::string>();
    return r;
  };
  // The first three lines, read while the job runs.
  ASSERT_TRUE(eventually([&] {
    read();
    return seen.size() >= 18;
  })) << seen;
  EXPECT_EQ(seen, "line1\nline2\nline3\n");
  // Read again before the job goes on: nothing new, nothing repeated.
  json r = read();
  EXPECT_EQ(r["structuredContent"]["stdout"], "") << r.dump();
  EXPECT_EQ(r["structuredContent"]["running"], true) << r.dump();
  EXPECT_TRUE(has(m.text(r), "still running")) << m.text(r);
  w.write("gate", "");
  // Claude Code's name for the parameter works too.
  ASSERT_TRUE(eventually([&] {
    json end = m.tool("bash_output", {{"bash_id", id}});
    ++reads;
    seen += end["structuredContent"]["stdout"].get<std::string>();
    if (end["structuredContent"]["running"] == true) return false;
    EXPECT_EQ(end["structuredContent"]["exit_code"], 0) << end.dump();
    EXPECT_TRUE(has(m.text(end), "[exit code 0]")) << m.text(end);
    return true;
  }));
  EXPECT_GE(reads, 3);
  EXPECT_EQ(seen, "line1\nline2\nline3\nline4\nline5\nline6\n");
  // Once ended and read, there is nothing more.
  r = read();
  EXPECT_EQ(r["structuredContent"]["stdout"], "");
  EXPECT_EQ(r["structuredContent"]["running"], false);
}

// Issue 30 item 1: bash_write writes to a job's input, which stays open until it gives `eof`
// (`bash_id` names the job as `job` does); it answers as bash_output does.
TEST(McpJobs, BashWriteFeedsAJobsInputUntilEof) {  // JOB-1
  REQUIRE_SANDBOX();
  World w;
  Mcp m(w);
  ASSERT_TRUE(m.init.contains("result")) << m.init.dump() << m.client.stderr_text();
  std::string id = m.start("read x; echo got $x; cat; read y || echo no-more");
  ASSERT_FALSE(id.empty()) << m.last.dump();
  json r = m.tool("bash_write", {{"bash_id", id}, {"data", "hello\n"}});
  ASSERT_EQ(r["isError"], false) << m.last.dump();
  EXPECT_EQ(r["structuredContent"]["written"], 6) << r.dump();
  EXPECT_EQ(r["structuredContent"]["eof"], false) << r.dump();
  EXPECT_TRUE(has(m.text(r), "wrote 6 bytes")) << m.text(r);
  json out;
  // bash_write answers as bash_output does: what the job printed by then comes with it, and is
  // not given again.
  std::string seen = r["structuredContent"]["stdout"];
  ASSERT_TRUE(eventually([&] {
    out = m.tool("bash_output", {{"job", id}});
    seen += out["structuredContent"]["stdout"].get<std::string>();
    return seen == "got hello\n";
  })) << out.dump();
  EXPECT_EQ(out["structuredContent"]["running"], true);
  r = m.tool("bash_write", {{"job", id}, {"data", "to cat\n"}, {"eof", true}});
  ASSERT_EQ(r["isError"], false) << m.last.dump();
  EXPECT_TRUE(has(m.text(r), "and closed it")) << m.text(r);
  seen += r["structuredContent"]["stdout"].get<std::string>();
  json end;
  ASSERT_TRUE(eventually([&] {
    end = m.tool("bash_output", {{"job", id}});
    seen += end["structuredContent"]["stdout"].get<std::string>();
    return end["structuredContent"]["running"] == false;
  })) << end.dump();
  EXPECT_EQ(end["structuredContent"]["exit_code"], 0) << end.dump();
  EXPECT_EQ(seen, "got hello\nto cat\nno-more\n");
  // Its input is closed: a write is the tool's error, as is one without data or eof.
  r = m.tool("bash_write", {{"job", id}, {"data", "late"}});
  EXPECT_EQ(r["isError"], true) << m.last.dump();
  r = m.tool("bash_write", {{"job", id}});
  EXPECT_EQ(r["isError"], true) << m.last.dump();
}

// JOB-3, issue 30 item 3: `bash` with `tty` in the background, driven through bash_write: a
// python REPL answers a line typed into its terminal, and Ctrl-D (eof) ends it. A foreground
// bash with `tty` answers at its end.
TEST(McpJobs, ATtyJobIsDrivenThroughBashWrite) {  // JOB-1
  REQUIRE_SANDBOX();
  World w;
  Mcp m(w);
  json r = m.tool("bash", {{"command", "stty size"}, {"tty", true}, {"cols", 90}, {"rows", 20}});
  ASSERT_EQ(r["isError"], false) << m.last.dump();
  EXPECT_EQ(r["structuredContent"]["stdout"], "20 90\r\n") << r.dump();
  r = m.tool("bash", {{"command", "python3 -i -q"}, {"tty", true}, {"run_in_background", true}});
  ASSERT_EQ(r["isError"], false) << m.last.dump();
  std::string id = r["structuredContent"]["job"];
  std::string seen;
  auto shows = [&](const std::string& text) {
    return eventually([&] {
      json o = m.tool("bash_output", {{"job", id}});
      seen += o["structuredContent"]["stdout"].get<std::string>();
      return has(seen, text);
    });
  };
  ASSERT_TRUE(shows(">>> ")) << seen;
  r = m.tool("bash_write", {{"job", id}, {"data", "print(6*7)\n"}});
  ASSERT_EQ(r["isError"], false) << m.last.dump();
  seen += r["structuredContent"]["stdout"].get<std::string>();
  ASSERT_TRUE(shows("42\r\n")) << seen;
  r = m.tool("bash_write", {{"job", id}, {"eof", true}});
  ASSERT_EQ(r["isError"], false) << m.last.dump();
  json end;
  ASSERT_TRUE(eventually([&] {
    end = m.tool("bash_output", {{"job", id}});
    return end["structuredContent"]["running"] == false;
  })) << end.dump();
  EXPECT_EQ(end["structuredContent"]["exit_code"], 0) << end.dump();
}

// Issue 30 item 1, PROC-1: kill_bash ends the job's whole process tree, and answers its final
// state; a second kill_bash finds it ended and changes nothing.
TEST(McpJobs, KillBashEndsTheWholeTree) {  // JOB-1
  REQUIRE_SANDBOX();
  World w;
  Mcp m(w);
  std::string mark = unique_sleep();
  std::string id =
      m.start("sleep " + mark + " & sleep " + mark + " & echo started; sleep " + mark + "; wait");
  ASSERT_FALSE(id.empty()) << m.last.dump() << m.client.stderr_text();
  ASSERT_TRUE(eventually([&] { return sleeping(mark) == 3; })) << sleeping(mark);
  json r = m.tool("kill_bash", {{"job", id}});
  ASSERT_EQ(r["isError"], false) << m.last.dump();
  EXPECT_EQ(r["structuredContent"]["running"], false) << r.dump();
  EXPECT_EQ(r["structuredContent"]["killed"], true) << r.dump();
  EXPECT_NE(r["structuredContent"]["exit_code"], 0) << r.dump();
  EXPECT_EQ(r["structuredContent"]["stdout"], "started\n") << r.dump();
  EXPECT_TRUE(has(m.text(r), "ended by kill_bash")) << m.text(r);
  EXPECT_TRUE(eventually([&] { return sleeping(mark) == 0; }, seconds(30))) << sleeping(mark);
  // Claude Code's KillShell names it shell_id.
  r = m.tool("kill_bash", {{"shell_id", id}});
  EXPECT_EQ(r["isError"], false) << m.last.dump();
  EXPECT_EQ(r["structuredContent"]["killed"], false) << r.dump();
  EXPECT_TRUE(has(m.text(r), "had ended already")) << m.text(r);
}

// Issue 30 item 1: an unknown job is the tool's error, naming the id and how to start one; a
// job of another connection is unknown. tools/list shows the job tools (SRV-2).
TEST(McpJobs, UnknownJobsAreErrorsAndTheToolsAreListed) {  // JOB-1
  REQUIRE_SANDBOX();
  World w;
  Mcp a(w), b(w);
  json list = a.client.call("tools/list");
  std::map<std::string, json> tools;
  for (const auto& t : list["result"]["tools"]) tools[t["name"]] = t;
  ASSERT_TRUE(tools.count("bash_output") && tools.count("kill_bash") && tools.count("bash_write"))
      << list.dump();
  EXPECT_TRUE(tools["bash_write"]["inputSchema"]["properties"].contains("data"));
  EXPECT_TRUE(tools["bash"]["inputSchema"]["properties"].contains("tty"));
  EXPECT_TRUE(tools["bash"]["inputSchema"]["properties"].contains("run_in_background"));
  EXPECT_TRUE(tools["bash_output"]["inputSchema"]["properties"].contains("job"));
  EXPECT_TRUE(tools["kill_bash"]["inputSchema"]["properties"].contains("job"));
  EXPECT_EQ(tools["bash_output"]["annotations"]["readOnlyHint"], true);

  json r = a.tool("bash_output", {{"job", "no-such-job"}});
  EXPECT_EQ(r["isError"], true) << a.last.dump();
  EXPECT_TRUE(has(a.text(r), "\"no-such-job\"")) << a.text(r);
  EXPECT_TRUE(has(a.text(r), "run_in_background")) << a.text(r);

  std::string id = a.start("cat");
  ASSERT_FALSE(id.empty()) << a.last.dump() << a.client.stderr_text();
  r = b.tool("bash_output", {{"job", id}});
  EXPECT_EQ(r["isError"], true) << b.last.dump();
  EXPECT_TRUE(has(b.text(r), "\"" + id + "\"")) << b.text(r);
  r = b.tool("kill_bash", {{"job", id}});
  EXPECT_EQ(r["isError"], true) << b.last.dump();
  EXPECT_EQ(a.tool("bash_output", {{"job", id}})["structuredContent"]["running"], true);
  EXPECT_EQ(a.tool("kill_bash", {{"job", id}})["structuredContent"]["running"], false);
}

// Issue 30 item 1, APR-7: a job asks as bash asks; refused (a client without elicitation
// cannot ask the user), bash_output answers the refusal as bash would, naming the job.
TEST(McpJobs, ARefusedJobAnswersItsRefusal) {  // JOB-1
  REQUIRE_SANDBOX();
  World w;
  Mcp m(w);
  json r = m.tool(
      "bash", {{"command", "echo net > net.txt"}, {"network", true}, {"run_in_background", true}});
  ASSERT_EQ(r["isError"], false) << m.last.dump();
  std::string id = r["structuredContent"]["job"];
  ASSERT_TRUE(eventually([&] {
    r = m.tool("bash_output", {{"job", id}});
    return r["isError"] == true;
  })) << m.last.dump();
  EXPECT_TRUE(has(m.text(r), "[refused] job " + id + " did not run")) << m.text(r);
  EXPECT_TRUE(has(m.text(r), "--allow-network")) << m.text(r);
  EXPECT_FALSE(w.exists("net.txt"));
}

// Issue 30 item 1, PROC-1: the jobs live in the connection's session and end with it.
TEST(McpJobs, ClosingTheConnectionEndsItsJobs) {  // JOB-1
  REQUIRE_SANDBOX();
  World w;
  std::string mark = unique_sleep();
  {
    Mcp m(w);
    std::string id = m.start("sleep " + mark + " & sleep " + mark + "; wait");
    ASSERT_FALSE(id.empty()) << m.last.dump() << m.client.stderr_text();
    ASSERT_TRUE(eventually([&] { return sleeping(mark) == 2; })) << sleeping(mark);
    m.client.close_stdin();
    EXPECT_EQ(m.client.wait_exit(seconds(60)), 0) << m.client.stderr_text();
  }
  EXPECT_TRUE(eventually([&] { return sleeping(mark) == 0; }, seconds(30))) << sleeping(mark);
}

}  // namespace
}  // namespace cordon::it
