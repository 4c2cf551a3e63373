// `cordon mcp`'s dispatch (SRV-2) over a fake session: version negotiation, the tool list and
// its schemas, tool results, elicitation (APR-7) and its absence, cancellation. The official
// TypeScript SDK client drives the real binary in tests/mcp/.
#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/error_code.h"
#include "fake_api_session.h"
#include "fake_wire.h"
#include "jsonrpc/jsonrpc_mcp.h"
#include "jsonrpc/jsonrpc_mcp_text.h"

namespace cordon::rpc {
namespace {

using std::chrono::milliseconds;
using testing::FakeApiSession;
using testing::Wire;

struct Rig {
  explicit Rig(bool fail_open = false) {
    McpOptions o;
    o.max_in_flight = 4;
    o.open = [this, fail_open](Asker* asker) -> Result<std::unique_ptr<api::Session>> {
      if (fail_open) return make_error(ErrorKind::kUnavailable, "the config is broken");
      auto s = std::make_unique<FakeApiSession>(asker);
      session = s.get();
      return std::unique_ptr<api::Session>(std::move(s));
    };
    conn = std::make_unique<McpConnection>(std::move(o), wire.peer);
  }
  void line(const json& m) { conn->on_line(LineFramer::Line{m.dump(), false}); }
  json call(const json& id, const std::string& method, const json& params = json::object()) {
    line({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return wire.response(id);
  }
  json init(const std::string& version = "2025-11-25", json caps = json::object()) {
    json r = call(0, "initialize",
                  {{"protocolVersion", version},
                   {"capabilities", caps},
                   {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    line({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    return r;
  }
  json tool(const json& id, const std::string& name, const json& args) {
    return call(id, "tools/call", {{"name", name}, {"arguments", args}});
  }
  Wire wire;
  std::unique_ptr<McpConnection> conn;
  FakeApiSession* session = nullptr;
};

TEST(Mcp, VersionNegotiation) {
  EXPECT_EQ(negotiate_mcp_version("2025-11-25"), "2025-11-25");
  EXPECT_EQ(negotiate_mcp_version("2025-06-18"), "2025-06-18");
  EXPECT_EQ(negotiate_mcp_version("2025-03-26"), "2025-03-26");
  EXPECT_EQ(negotiate_mcp_version("2024-11-05"), "2024-11-05");
  EXPECT_EQ(negotiate_mcp_version("2099-01-01"), kMcpLatestVersion);
  EXPECT_EQ(negotiate_mcp_version(42), kMcpLatestVersion);
  Rig rig;
  json r = rig.init("2024-11-05");
  EXPECT_EQ(r["result"]["protocolVersion"], "2024-11-05");
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "cordon");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  EXPECT_NE(r["result"]["instructions"].get<std::string>().find("sandbox"), std::string::npos);
}

TEST(Mcp, InitializeErrors) {
  Rig rig;
  EXPECT_EQ(rig.call(1, "initialize", json::object())["error"]["code"], kInvalidParams);
  EXPECT_EQ(rig.call(2, "tools/call", {{"name", "bash"}})["error"]["code"], kInvalidRequest);
  rig.init();
  EXPECT_EQ(rig.init()["error"]["code"], kInvalidRequest);  // once
}

TEST(Mcp, ToolListHasSchemas) {  // SRV-2
  Rig rig;
  rig.init();
  json r = rig.call(1, "tools/list");
  std::vector<std::string> names;
  for (const auto& t : r["result"]["tools"]) {
    names.push_back(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object");
    EXPECT_FALSE(t["description"].get<std::string>().empty());
    for (const auto& req : t["inputSchema"]["required"])
      EXPECT_TRUE(t["inputSchema"]["properties"].contains(req.get<std::string>()));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"bash", "bash_output", "kill_bash", "bash_write",
                                             "read_file", "write_file", "edit_file", "search"}));
  const json& bash = r["result"]["tools"][0];
  EXPECT_EQ(bash["inputSchema"]["required"], json::array({"command"}));
  for (const char* p : {"command", "network", "outside_sandbox", "timeout_ms", "run_in_background",
                        "tty", "cols", "rows"})
    EXPECT_TRUE(bash["inputSchema"]["properties"].contains(p)) << p;
  EXPECT_TRUE(bash.contains("outputSchema"));
  // Issue 30: the job tools take `job` or Claude Code's own names for it, and say what they do.
  const json& output = r["result"]["tools"][1];
  const json& kill = r["result"]["tools"][2];
  for (const char* p : {"job", "bash_id"})
    EXPECT_TRUE(output["inputSchema"]["properties"].contains(p)) << p;
  for (const char* p : {"job", "shell_id"})
    EXPECT_TRUE(kill["inputSchema"]["properties"].contains(p)) << p;
  EXPECT_EQ(output["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(kill["annotations"]["readOnlyHint"], false);
  EXPECT_EQ(kill["annotations"]["destructiveHint"], false);
  EXPECT_EQ(kill["annotations"]["idempotentHint"], true);
  const json& write = r["result"]["tools"][3];  // JOB-3: a job's input
  for (const char* p : {"job", "bash_id", "data", "eof"})
    EXPECT_TRUE(write["inputSchema"]["properties"].contains(p)) << p;
  EXPECT_EQ(write["annotations"]["readOnlyHint"], false);
  for (const json& t : {output, kill, write}) {
    EXPECT_EQ(t["outputSchema"]["required"][0], "job") << t.dump();
    for (const auto& req : t["outputSchema"]["required"])
      EXPECT_TRUE(t["outputSchema"]["properties"].contains(req.get<std::string>()));
  }
  // Older versions get no outputSchema, which they do not know.
  EXPECT_FALSE(mcp_tools("2025-03-26")["tools"][0].contains("outputSchema"));
}

TEST(Mcp, BashResultCarriesExitOutputAndNotes) {  // SRV-2
  Rig rig;
  rig.init();
  json r = rig.tool(1, "bash", {{"command", "fail 2"}});
  const json& res = r["result"];
  EXPECT_EQ(res["isError"], false);
  std::string text = res["content"][0]["text"];
  EXPECT_NE(text.find("[stderr]\nfailed"), std::string::npos) << text;
  EXPECT_NE(text.find("[exit code 2]"), std::string::npos) << text;
  EXPECT_NE(text.find("[note] a note"), std::string::npos) << text;
  EXPECT_EQ(res["structuredContent"]["exit_code"], 2);
  r = rig.tool(2, "bash", {{"command", "refuse"}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_FALSE(r["result"].contains("structuredContent"));
  EXPECT_EQ(r["result"]["content"][0]["text"], "[refused] refused by the fake");
  // Bad arguments are the tool's error, for the model to correct.
  for (const json& bad : {json::object(), json{{"command", 1}}, json{{"argv", {"ls"}}},
                          json{{"command", "x"}, {"stdin", "no"}}})
    EXPECT_EQ(rig.tool(3, "bash", bad)["result"]["isError"], true) << bad.dump();
  EXPECT_EQ(rig.call(4, "tools/call", {{"name", "bash"}, {"arguments", 5}})["result"]["isError"],
            true);
  // An unknown tool is a protocol error; so are exec and classify, which MCP does not offer.
  for (const char* name : {"nope", "exec", "classify"})
    EXPECT_EQ(rig.tool(5, name, json::object())["error"]["code"], kInvalidParams) << name;
  EXPECT_EQ(rig.call(6, "tools/call", {{"arguments", json::object()}})["error"]["code"],
            kInvalidParams);
}

// Issue 30: the job tools over a session without the job: an unknown id is the tool's error,
// naming it and how to start one; `run_in_background` must be a boolean, false is the
// foreground; a start the session refuses is the tool's error.
TEST(Mcp, JobToolsRefuseUnknownJobsAndBadArguments) {
  Rig rig;
  rig.init();
  for (const char* tool : {"bash_output", "kill_bash"}) {
    json r = rig.tool(1, tool, {{"job", "7"}});
    EXPECT_EQ(r["result"]["isError"], true) << r.dump();
    std::string text = r["result"]["content"][0]["text"];
    EXPECT_NE(text.find("\"7\""), std::string::npos) << text;
    EXPECT_NE(text.find("run_in_background"), std::string::npos) << text;
  }
  for (const json& bad : {json::object(), json{{"job", true}}, json{{"job", "1"}, {"x", 1}}})
    EXPECT_EQ(rig.tool(2, "bash_output", bad)["result"]["isError"], true) << bad.dump();
  EXPECT_EQ(rig.tool(3, "kill_bash", {{"shell_id", 4}})["result"]["isError"], true);
  json r = rig.tool(4, "bash", {{"command", "echo x"}, {"run_in_background", "yes"}});
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("run_in_background"),
            std::string::npos);
  r = rig.tool(5, "bash", {{"command", "echo x"}, {"run_in_background", false}});
  EXPECT_EQ(r["result"]["structuredContent"]["stdout"], "x\n") << r.dump();
  r = rig.tool(6, "bash", {{"command", "echo x"}, {"run_in_background", true}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(r["result"]["content"][0]["text"],
            "[unavailable] the fake runs no background jobs kill_bash ends a job.");
}

// Issue 30: what bash_output and kill_bash tell the model: what is new, whether the job runs,
// and once ended its end as bash gives it.
TEST(Mcp, JobTextSaysWhatIsNewAndTheEnd) {
  json running{{"job", "3"},
               {"running", true},
               {"stdout", "a\n"},
               {"stderr", "b"},
               {"timed_out", false},
               {"notes", json::array()},
               {"quarantined", json::array()}};
  EXPECT_EQ(job_text(running),
            "a\n[stderr]\nb\n"
            "[job 3 is still running; bash_output reads what comes next]");
  running["stdout"] = "";
  running["stderr"] = "";
  running["dropped"] = 10;
  EXPECT_EQ(job_text(running),
            "[10 bytes of output were no longer held: skipped]\n"
            "[no new output]\n"
            "[job 3 is still running; bash_output reads what comes next]");
  json ended = running;
  ended.erase("dropped");
  ended["running"] = false;
  ended["exit_code"] = 2;
  ended["stdout"] = "z\n";
  ended["notes"] = {"a note"};
  EXPECT_EQ(job_text(ended), "[job 3 has ended]\nz\n[exit code 2]\n[note] a note");
  ended["killed"] = true;
  ended["exit_code"] = 137;
  EXPECT_EQ(job_text(ended), "[job 3 ended by kill_bash]\nz\n[exit code 137]\n[note] a note");
  ended["killed"] = false;
  EXPECT_EQ(job_text(ended).rfind("[job 3 had ended already]\n", 0), 0u);
  EXPECT_EQ(started_text({{"job", "3"}}),
            "Started in the background as job 3; read its output with bash_output (job \"3\"), "
            "end it with kill_bash.");
}

TEST(Mcp, FileToolResults) {
  Rig rig;
  rig.init();
  json r = rig.tool(1, "read_file", {{"path", "a.txt"}});
  EXPECT_EQ(r["result"]["content"][0]["text"], "content of a.txt\n");
  r = rig.tool(2, "write_file", {{"path", "a.txt"}, {"content", "x"}});
  EXPECT_EQ(r["result"]["isError"], false);
  EXPECT_EQ(r["result"]["structuredContent"]["bytes"], 1);
  r = rig.tool(3, "edit_file", {{"path", "a.txt"}, {"old_text", "x"}, {"new_text", "y"}});
  EXPECT_EQ(r["result"]["structuredContent"]["replacements"], 1);
  r = rig.tool(4, "search", {{"pattern", "needle"}});
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("a.txt:3:a line with needle"),
            std::string::npos);
}

TEST(Mcp, PingAndUnknownMethods) {
  Rig rig;
  EXPECT_EQ(rig.call(1, "ping")["result"], json::object());
  rig.init();
  EXPECT_EQ(rig.call(2, "resources/list")["error"]["code"], kMethodNotFound);
  rig.conn->on_line(LineFramer::Line{"garbage", false});
  EXPECT_EQ(rig.wire.take([](const json& m) { return m.contains("error"); })["error"]["code"],
            kParseError);
}

TEST(Mcp, ElicitationAsksTheUser) {  // APR-7
  Rig rig;
  rig.init("2025-11-25", {{"elicitation", {{"form", json::object()}}}});
  rig.line(
      {{"jsonrpc", "2.0"},
       {"id", 1},
       {"method", "tools/call"},
       {"params", {{"name", "bash"}, {"arguments", {{"command", "echo x"}, {"network", true}}}}}});
  json q =
      rig.wire.take([](const json& m) { return m.value("method", "") == "elicitation/create"; });
  ASSERT_FALSE(q.is_null());
  EXPECT_NE(q["params"]["message"].get<std::string>().find("network access for `echo x`"),
            std::string::npos);
  json options = q["params"]["requestedSchema"]["properties"]["decision"]["enum"];
  EXPECT_EQ(options, json::array({"allow once", "allow for this session", "deny"}));
  rig.line({{"jsonrpc", "2.0"},
            {"id", q["id"]},
            {"result", {{"action", "accept"}, {"content", {{"decision", "allow once"}}}}}});
  json r = rig.wire.response(1);
  EXPECT_EQ(r["result"]["isError"], false);
  EXPECT_EQ(r["result"]["structuredContent"]["stdout"], "x\n");

  // decline is a no.
  rig.line(
      {{"jsonrpc", "2.0"},
       {"id", 2},
       {"method", "tools/call"},
       {"params",
        {{"name", "bash"}, {"arguments", {{"command", "echo x"}, {"outside_sandbox", true}}}}}});
  q = rig.wire.take([](const json& m) { return m.value("method", "") == "elicitation/create"; });
  EXPECT_EQ(q["params"]["requestedSchema"]["properties"]["decision"]["enum"],
            json::array({"allow once", "deny"}));  // APR-3: no grant for outside_sandbox
  rig.line({{"jsonrpc", "2.0"}, {"id", q["id"]}, {"result", {{"action", "decline"}}}});
  r = rig.wire.response(2);
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("denied"), std::string::npos);
}

TEST(Mcp, WithoutElicitationTheRefusalNamesTheOption) {  // APR-7
  Rig rig;
  rig.init("2025-11-25", json::object());
  json r = rig.tool(1, "bash", {{"command", "echo x"}, {"network", true}});
  std::string text = r["result"]["content"][0]["text"];
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(text.find("cordon mcp --allow-network"), std::string::npos) << text;
  r = rig.tool(2, "read_file", {{"path", ".env"}});
  text = r["result"]["content"][0]["text"];
  EXPECT_NE(text.find("--allow-credential-read"), std::string::npos) << text;
  // APR-3: no option approves outside_sandbox.
  r = rig.tool(3, "bash", {{"command", "echo x"}, {"outside_sandbox", true}});
  text = r["result"]["content"][0]["text"];
  EXPECT_EQ(text.find("--allow-"), std::string::npos) << text;
  EXPECT_NE(text.find("cordon run --outside-sandbox"), std::string::npos) << text;
  // Elicitation declared by a client of an older version that has none: not used.
  Rig old;
  old.init("2025-03-26", {{"elicitation", json::object()}});
  text = old.tool(1, "bash",
                  {{"command", "echo x"}, {"network", true}})["result"]["content"][0]["text"];
  EXPECT_NE(text.find("--allow-network"), std::string::npos) << text;
}

// NET-10, APR-7: a host beyond the allowlist, with a client that cannot elicit: no server
// option approves hosts; the refusal says to add it to [network] allow. With elicitation, the
// form names the host and the command and offers the session grant.
TEST(Mcp, NetworkHostIsElicitedOrRefusedWithTheConfigFix) {
  std::vector<json> sent;
  Peer peer([&](std::string_view l) {
    sent.push_back(json::parse(l));
    return true;
  });
  ElicitAsker asker(peer);
  Question q;
  q.request.kind = AskKind::kNetworkHost;
  q.request.command = "npm ci";
  q.request.reason = "not listed";
  q.request.host = "files.example.org:443";
  PersonAnswer a = asker.ask(q);
  EXPECT_EQ(a.reply, Reply::kUnavailable);
  EXPECT_NE(a.note.find("files.example.org:443"), std::string::npos) << a.note;
  EXPECT_NE(a.note.find("[network] allow"), std::string::npos) << a.note;
  EXPECT_EQ(a.note.find("--allow-"), std::string::npos) << a.note;
  EXPECT_TRUE(sent.empty());
  asker.set_supported(true);
  q.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  a = asker.ask(q);  // nobody answers the form: a timeout, and the form is withdrawn
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0]["method"], "elicitation/create");
  EXPECT_EQ(sent[1]["method"], "notifications/cancelled");
  EXPECT_EQ(sent[1]["params"]["requestId"], sent[0]["id"]);
  const std::string message = sent[0]["params"]["message"];
  EXPECT_NE(message.find("reaching files.example.org:443 from `npm ci`"), std::string::npos)
      << message;
  EXPECT_EQ(sent[0]["params"]["requestedSchema"]["properties"]["decision"]["enum"],
            json::array({"allow once", "allow for this session", "deny"}));
}

TEST(Mcp, ElicitAnswerReadings) {
  using R = Peer::CallResult;
  auto accept = [](const char* d) {
    return R{R::kResult, {{"action", "accept"}, {"content", {{"decision", d}}}}};
  };
  EXPECT_EQ(read_elicit_answer(accept("allow once"), true).reply, Reply::kAllowOnce);
  EXPECT_EQ(read_elicit_answer(accept("allow for this session"), true).reply,
            Reply::kAllowForSession);
  EXPECT_EQ(read_elicit_answer(accept("allow for this session"), false).reply, Reply::kAllowOnce);
  EXPECT_EQ(read_elicit_answer(accept("deny"), true).reply, Reply::kDeny);
  EXPECT_EQ(read_elicit_answer(accept("maybe"), true).reply, Reply::kDeny);
  EXPECT_EQ(read_elicit_answer(R{R::kResult, {{"action", "cancel"}}}, true).reply, Reply::kDeny);
  EXPECT_EQ(read_elicit_answer(R{R::kResult, {{"action", 3}}}, true).reply, Reply::kUnavailable);
  EXPECT_EQ(read_elicit_answer(R{R::kError, {{"message", "x"}}}, true).reply, Reply::kUnavailable);
  EXPECT_EQ(read_elicit_answer(R{R::kTimeout, nullptr}, true).reply, Reply::kTimeout);
  EXPECT_EQ(allow_option(AskKind::kWriteOutside), "--allow-write-outside");
  EXPECT_EQ(allow_option(AskKind::kOutsideSandbox), "");
}

TEST(Mcp, CancelledCallGetsNoResponse) {
  Rig rig;
  rig.init();
  rig.line({{"jsonrpc", "2.0"},
            {"id", 9},
            {"method", "tools/call"},
            {"params", {{"name", "bash"}, {"arguments", {{"command", "wait 10000"}}}}}});
  while (rig.session->in_wait.load() < 1) std::this_thread::sleep_for(milliseconds(1));
  rig.line({{"jsonrpc", "2.0"},
            {"method", "notifications/cancelled"},
            {"params", {{"requestId", 9}, {"reason", "timeout"}}}});
  while (rig.session->in_wait.load() > 0) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_TRUE(rig.wire.response(9, milliseconds(200)).is_null());
  EXPECT_EQ(rig.call(10, "ping")["result"], json::object());
}

TEST(Mcp, FailedOpenIsReportedByEveryTool) {
  Rig rig(/*fail_open=*/true);
  json r = rig.init();
  EXPECT_NE(r["result"]["instructions"].get<std::string>().find("config is broken"),
            std::string::npos);
  r = rig.tool(1, "bash", {{"command", "echo x"}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("config is broken"),
            std::string::npos);
}

}  // namespace
}  // namespace cordon::rpc
