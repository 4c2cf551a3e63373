// `cordon mcp`'s progress notifications carry the last line of output (issue 30 item 4,
// SRV-2): the real binary over stdio, a real sandbox; CORDON_MCP_PROGRESS_MS shortens the 10 s
// interval for the test.
#include <chrono>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

TEST(McpLiveOutput, ProgressCarriesTheLastPrintedLine) {  // issue 30 item 4, SRV-2
  REQUIRE_SANDBOX();
  World w;
  std::map<std::string, std::string> env = w.env;
  env["CORDON_MCP_PROGRESS_MS"] = "300";
  RpcClient client({"mcp", "--project", w.project()}, env, w.project());
  json init = client.mcp_initialize();
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  json r = client.call(
      "tools/call",
      {{"name", "bash"},
       {"arguments",
        {{"command", "for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 0.2; done"}}},
       {"_meta", {{"progressToken", "p1"}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump() << client.stderr_text();
  EXPECT_EQ(r["result"]["isError"], false) << r.dump();
  bool line_seen = false;
  for (const auto& m : client.server_requests()) {
    if (m.value("method", "") != "notifications/progress") continue;
    EXPECT_EQ(m["params"]["progressToken"], "p1");
    const std::string msg = m["params"].value("message", "");
    if (msg.rfind("tick ", 0) == 0) line_seen = true;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  EXPECT_TRUE(line_seen) << "no progress notification held a printed line";
}

}  // namespace
}  // namespace cordon::it
