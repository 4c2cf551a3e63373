// Issue 15 item 3: a NUL byte cannot reach a sandbox through any face. bwrap's options are
// joined with NUL bytes, so one inside a path, an argument, a variable or the working folder
// would end an option and start another (`cwd = "<project>/sub\0--bind\0/victim\0/victim"`
// gave bwrap a writable bind of a host folder). Each is refused with `invalid`, and the host
// folder named after the NUL stays untouched. (`cordon run` cannot be given one: the kernel
// ends every argument and variable at its first NUL.)
#include <cordon/cordon.h>
#include <gtest/gtest.h>

#include "harness.h"
#include "rpc_client.h"
#include "world_options.h"

namespace cordon::it {
namespace {

const std::string kNul(1, '\0');

// "<before>\0--bind\0<victim>\0<victim>": what would bind `victim` writable.
std::string injected(const std::string& before, const std::string& victim) {
  return before + kNul + "--bind" + kNul + victim + kNul + victim;
}

std::string reason(const json& r) {
  if (!r.contains("error")) return "(no error: " + r.dump() + ")";
  return r["error"]["data"]["reason"];
}

TEST(NulInput, ApiEnvironmentAndProjectAreInvalid) {  // FS-2, ENV-1
  REQUIRE_SANDBOX();
  World w;
  const std::string victim = w.root() + "/victim";
  w.write(victim + "/keep.txt", "mine\n");
  const std::string write_victim = "echo planted > " + victim + "/keep.txt; echo ran";
  // A variable of the environment the embedder hands over.
  auto s = api::Session::open(world_options(w, {"BUILD_FLAGS=" + injected("-O2", victim)}));
  ASSERT_TRUE(s.ok()) << s.error().message;
  api::ExecRequest r;
  r.command = write_victim;
  auto res = (*s)->exec(r);
  ASSERT_FALSE(res.ok()) << res->stdout_text;
  EXPECT_EQ(res.error().code, ErrorCode::kInvalid) << res.error().message;
  EXPECT_NE(res.error().message.find("BUILD_FLAGS"), std::string::npos) << res.error().message;
  // The project.
  api::Options o = world_options(w);
  o.project = injected(w.project(), victim);
  auto bad = api::Session::open(o);
  if (bad.ok()) {
    res = (*bad)->exec(r);
    ASSERT_FALSE(res.ok()) << res->stdout_text;
    EXPECT_EQ(res.error().code, ErrorCode::kInvalid) << res.error().message;
  } else {
    EXPECT_EQ(bad.error().code, ErrorCode::kInvalid) << bad.error().message;
  }
  // The caller's folder.
  o = world_options(w);
  o.cwd = injected(w.project(), victim);
  bad = api::Session::open(o);
  if (bad.ok()) {
    res = (*bad)->exec(r);
    ASSERT_FALSE(res.ok()) << res->stdout_text;
    EXPECT_EQ(res.error().code, ErrorCode::kInvalid) << res.error().message;
  } else {
    EXPECT_EQ(bad.error().code, ErrorCode::kInvalid) << bad.error().message;
  }
  EXPECT_EQ(w.read(victim + "/keep.txt"), "mine\n");
}

TEST(NulInput, ServeRefusesItInEveryField) {  // FS-2, SRV-1
  REQUIRE_SANDBOX();
  World w;
  const std::string victim = w.root() + "/victim";
  w.write(victim + "/keep.txt", "mine\n");
  w.write("sub/x", "x\n");
  const std::string write_victim = "echo planted > " + victim + "/keep.txt";
  {
    RpcClient bad({"serve"}, w.env, w.project());
    json init = bad.call("initialize", {{"project", injected(w.project(), victim)}});
    EXPECT_EQ(reason(init), "invalid") << init.dump();
  }
  RpcClient c({"serve"}, w.env, w.project());
  json init = c.call("initialize", {{"project", w.project()}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << c.stderr_text();
  for (const json& params : {
           json{{"command", write_victim}, {"cwd", injected(w.project() + "/sub", victim)}},
           json{{"argv", {"/bin/sh", "-c", write_victim, injected("x", victim)}}},
           json{{"command", injected(write_victim, victim)}},
       }) {
    json r = c.call("exec", params);
    EXPECT_EQ(reason(r), "invalid") << r.dump();
  }
  json r = c.call("exec", {{"command", "echo still serving"}});
  EXPECT_EQ(r["result"]["stdout"], "still serving\n") << r.dump();
  EXPECT_EQ(w.read(victim + "/keep.txt"), "mine\n");
}

TEST(NulInput, McpRefusesItInAToolCall) {  // FS-2, SRV-1
  REQUIRE_SANDBOX();
  World w;
  const std::string victim = w.root() + "/victim";
  w.write(victim + "/keep.txt", "mine\n");
  RpcClient mcp({"mcp", "--project", w.project()}, w.env, w.project());
  json init = mcp.mcp_initialize();
  ASSERT_TRUE(init.contains("result")) << init.dump() << mcp.stderr_text();
  json r = mcp.call(
      "tools/call",
      {{"name", "bash"},
       {"arguments", {{"command", injected("echo planted > " + victim + "/keep.txt", victim)}}}});
  // MCP reports a tool's refusal as its result, marked as an error, with the reason first.
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["isError"], true) << r.dump();
  EXPECT_EQ(r["result"]["content"][0]["text"].get<std::string>().rfind("[invalid]", 0), 0u)
      << r.dump();
  EXPECT_EQ(w.read(victim + "/keep.txt"), "mine\n");
}

}  // namespace
}  // namespace cordon::it
