// AUD-2: every result carries what was refused, for the agent to act on: through the binary
// (`cordon run`'s block after the output), serve's `exec` result and the MCP `bash` tool.
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

TEST(Violations, CordonRunListsARefusedWriteAfterTheOutput) {  // AUD-2, RES-3
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.sh("echo x > \"$HOME/outside.txt\"; echo done");
  EXPECT_EQ(r.out, "done\n");
  EXPECT_FALSE(w.exists(w.home() + "/outside.txt"));
  EXPECT_NE(r.err.find("refused write ~/outside.txt: if this step needs it, run it again with "
                       "--outside-sandbox"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(as read from the output)"), std::string::npos) << r.err;
  r = w.sh("echo fine");  // nothing refused, nothing said
  EXPECT_EQ(r.err.find("refused"), std::string::npos) << r.err;
}

TEST(Violations, ServeResultsCarryPlantsAndWrites) {  // AUD-2, PROT-7
  REQUIRE_SANDBOX();
  World w;
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  json r = client.call(
      "exec", {{"command", "echo y > \"$HOME/o2.txt\"; printf 'export A=1\\n' > .envrc"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const json& v = r["result"]["violations"];
  ASSERT_EQ(v.size(), 2u) << r.dump();
  EXPECT_EQ(v[0]["kind"], "plant");
  EXPECT_EQ(v[0]["path"], ".envrc");
  EXPECT_EQ(v[0]["source"], "cordon");
  EXPECT_NE(v[0]["fix"].get<std::string>().find("cordon-quarantined"), std::string::npos);
  EXPECT_EQ(v[1]["kind"], "write");
  EXPECT_EQ(v[1]["path"], w.home() + "/o2.txt");
  EXPECT_EQ(v[1]["source"], "output");
  r = client.call("exec", {{"command", "true"}});
  EXPECT_TRUE(r["result"]["violations"].empty()) << r.dump();
}

TEST(Violations, AHostTheProxyRefusedIsNamedForCertain) {  // AUD-2, NET-9
  REQUIRE_SANDBOX();
  World w;
  w.config("[network]\nallow = [\"127.0.0.1:9\"]\n");
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  json r = client.call("exec", {{"command",
                                 "curl -sS --max-time 10 -o /dev/null "
                                 "https://refused-host.invalid/ 2>&1; true"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const json& v = r["result"]["violations"];
  ASSERT_EQ(v.size(), 1u) << r.dump();
  EXPECT_EQ(v[0]["kind"], "network");
  EXPECT_EQ(v[0]["host"], "refused-host.invalid:443");
  EXPECT_EQ(v[0]["source"], "cordon");
  EXPECT_NE(v[0]["fix"].get<std::string>().find("add it to allow under [network]"),
            std::string::npos);
}

TEST(Violations, McpBashEndsWithThem) {  // AUD-2
  REQUIRE_SANDBOX();
  World w;
  RpcClient client({"mcp"}, w.env, w.project());
  json init = client.mcp_initialize();
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  json r = client.call("tools/call", {{"name", "bash"},
                                      {"arguments", {{"command", "echo x > \"$HOME/m.txt\""}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const std::string text = r["result"]["content"][0]["text"];
  EXPECT_NE(text.find("[violation] write " + w.home() + "/m.txt"), std::string::npos) << text;
  EXPECT_EQ(r["result"]["structuredContent"]["violations"][0]["kind"], "write") << r.dump();
}

// AUD-2: refusals before a command starts carry their violations too.

TEST(Violations, ServeExecDeniedByTheCommandPolicyCarriesThem) {  // AUD-2, CMD-4
  REQUIRE_SANDBOX();
  World w;
  w.write("disk.img", "x");
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  json r = client.call("exec", {{"argv", {"mkfs.ext4", "-q", "-F", "disk.img"}}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["data"]["reason"], "refused");
  const json& v = r["error"]["data"]["violations"];
  ASSERT_EQ(v.size(), 1u) << r.dump();
  EXPECT_EQ(v[0]["kind"], "policy");
  EXPECT_EQ(v[0]["source"], "cordon");
  const std::string rule = v[0]["rule"], fix = v[0]["fix"];
  EXPECT_NE(rule.find("the command policy denies it"), std::string::npos) << rule;
  EXPECT_NE(fix.find("do not retry it in another form"), std::string::npos) << fix;
  // The message has the same words.
  const std::string message = r["error"]["message"];
  EXPECT_NE(message.find(rule), std::string::npos) << message;
  // Another error has none.
  r = client.call("exec", {{"argv", json::array()}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_FALSE(r["error"]["data"].contains("violations")) << r.dump();
}

TEST(Violations, ServeExecWhoseWayOutWasRefusedCarriesIt) {  // AUD-2, APR-4, NET-3
  REQUIRE_SANDBOX();
  World w;
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}, {"away", true}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  json r = client.call("exec", {{"command", "true"}, {"network", true}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  const json& v = r["error"]["data"]["violations"];
  ASSERT_EQ(v.size(), 1u) << r.dump();
  EXPECT_EQ(v[0]["kind"], "network");
  EXPECT_NE(v[0]["rule"].get<std::string>().find("the user is away"), std::string::npos)
      << r.dump();
}

TEST(Violations, ServeFileToolRefusedWriteCarriesIt) {  // AUD-2, FILE-5
  REQUIRE_SANDBOX();
  World w;
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  client.on_request([](const json&) { return RpcClient::Answer{{{"decision", "deny"}}}; });
  const std::string outside = w.home() + "/outside-tool.txt";
  json r = client.call("write_file", {{"path", outside}, {"content", "x\n"}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["data"]["reason"], "refused");
  const json& v = r["error"]["data"]["violations"];
  ASSERT_EQ(v.size(), 1u) << r.dump();
  EXPECT_EQ(v[0]["kind"], "write");
  EXPECT_EQ(v[0]["path"], outside);
  EXPECT_NE(v[0]["rule"].get<std::string>().find("the user denied it"), std::string::npos)
      << r.dump();
  EXPECT_FALSE(w.exists(outside));
  // A hidden path is refused without a question, with its violation too.
  w.write(w.home() + "/.ssh/id_rsa", "PRIVATE KEY\n");
  r = client.call("read_file", {{"path", w.home() + "/.ssh/id_rsa"}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  const json& h = r["error"]["data"]["violations"];
  ASSERT_EQ(h.size(), 1u) << r.dump();
  EXPECT_EQ(h[0]["kind"], "read");
  EXPECT_EQ(h[0]["path"], w.home() + "/.ssh/id_rsa");
  EXPECT_NE(r["error"]["message"].get<std::string>().find(h[0]["rule"].get<std::string>()),
            std::string::npos)
      << r.dump();
}

TEST(Violations, McpRefusedCallEndsWithThem) {  // AUD-2, CMD-4, SRV-2
  REQUIRE_SANDBOX();
  World w;
  w.write("disk.img", "x");
  RpcClient client({"mcp"}, w.env, w.project());
  json init = client.mcp_initialize();
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  json r = client.call("tools/call", {{"name", "bash"},
                                      {"arguments", {{"command", "mkfs.ext4 -q -F disk.img"}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["isError"], true);
  const std::string text = r["result"]["content"][0]["text"];
  EXPECT_EQ(text.rfind("[refused] ", 0), 0u) << text;
  EXPECT_NE(text.find("\n[violation] policy: the command policy denies it"), std::string::npos)
      << text;
  const json& sc = r["result"]["structuredContent"];
  EXPECT_EQ(sc["violations"][0]["kind"], "policy") << r.dump();
  // Valid against bash's output schema: its required fields are there.
  for (const char* k : {"stdout", "stderr", "timed_out", "notes", "quarantined"})
    EXPECT_TRUE(sc.contains(k)) << k << r.dump();
  // A background job refused before it ran: bash_output says so, with the line (its state is
  // what the job tools' schema wants, so no structured content).
  r = client.call("tools/call",
                  {{"name", "bash"},
                   {"arguments", {{"command", "mkfs.ext4 -q -F disk.img"},
                                  {"run_in_background", true}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const std::string job = r["result"]["structuredContent"].value("job", "");
  ASSERT_FALSE(job.empty()) << r.dump();
  json out;
  for (int i = 0; i < 100; ++i) {
    out = client.call("tools/call", {{"name", "bash_output"}, {"arguments", {{"job", job}}}});
    if (out["result"].value("isError", false)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(out["result"]["isError"], true) << out.dump();
  EXPECT_NE(out["result"]["content"][0]["text"].get<std::string>().find("[violation] policy: "),
            std::string::npos)
      << out.dump();
  EXPECT_FALSE(out["result"].contains("structuredContent")) << out.dump();
  // A file tool's refusal (nobody to ask: no elicitation) carries it, with no schema to fill.
  r = client.call("tools/call",
                  {{"name", "write_file"},
                   {"arguments", {{"path", w.home() + "/m2.txt"}, {"content", "x"}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(r["result"]["structuredContent"]["violations"][0]["kind"], "write") << r.dump();
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find(
                "[violation] write " + w.home() + "/m2.txt"),
            std::string::npos)
      << r.dump();
  EXPECT_FALSE(w.exists(w.home() + "/m2.txt"));
}

TEST(Violations, CordonRunPrintsTheBlockForARefusalBeforeTheStart) {  // AUD-2, CMD-4
  REQUIRE_SANDBOX();
  World w;
  w.write("disk.img", "x");
  Proc r = w.cordon({"run", "--", "mkfs.ext4", "-q", "-F", "disk.img"});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("command policy denies it"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cordon: refused policy: do not retry it in another form"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(w.read("disk.img"), "x");
}

}  // namespace
}  // namespace cordon::it
