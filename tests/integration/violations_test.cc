// AUD-2: every result carries what was refused, for the agent to act on: through the binary
// (`cordon run`'s block after the output), serve's `exec` result and the MCP `bash` tool.
#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace cordon::it
