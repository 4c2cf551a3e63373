// What MCP clients rely on from `cordon mcp` while a command runs (SRV-2, DIST-4): progress
// notifications when the call asked for them, nothing at all after `notifications/cancelled`,
// Codex's yes/no elicitation answer (accept without content) read as "allow once", and the
// server's own default time-out for a call that gives none.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "fake_api_session.h"
#include "fake_wire.h"
#include "jsonrpc/jsonrpc_mcp.h"

namespace cordon::rpc {
namespace {

using std::chrono::milliseconds;
using testing::FakeApiSession;
using testing::Wire;

struct Rig {
  explicit Rig(milliseconds interval = milliseconds(20), milliseconds timeout = milliseconds(0)) {
    McpOptions o;
    o.progress_interval = interval;
    o.default_timeout = timeout;
    o.open = [this](Asker* asker) -> Result<std::unique_ptr<api::Session>> {
      auto s = std::make_unique<FakeApiSession>(asker);
      session = s.get();
      return std::unique_ptr<api::Session>(std::move(s));
    };
    conn = std::make_unique<McpConnection>(std::move(o), wire.peer);
  }
  void line(const json& m) { conn->on_line(LineFramer::Line{m.dump(), false}); }
  void init(json caps = json::object()) {
    line({{"jsonrpc", "2.0"},
          {"id", 0},
          {"method", "initialize"},
          {"params",
           {{"protocolVersion", "2025-11-25"},
            {"capabilities", caps},
            {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
    wire.response(0);
  }
  void bash(const json& id, const json& args, const json& meta = nullptr) {
    json params{{"name", "bash"}, {"arguments", args}};
    if (!meta.is_null()) params["_meta"] = meta;
    line({{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}});
  }
  json progress(milliseconds wait = milliseconds(2000)) {
    return wire.take(
        [](const json& m) { return m.value("method", "") == "notifications/progress"; }, wait);
  }
  Wire wire;
  std::unique_ptr<McpConnection> conn;
  FakeApiSession* session = nullptr;
};

TEST(McpProgress, TokenIsReadFromMeta) {
  EXPECT_EQ(progress_token({{"_meta", {{"progressToken", "abc"}}}}), json("abc"));
  EXPECT_EQ(progress_token({{"_meta", {{"progressToken", 7}}}}), json(7));
  EXPECT_FALSE(progress_token({{"_meta", {{"progressToken", 1.5}}}}));
  EXPECT_FALSE(progress_token({{"_meta", json::object()}}));
  EXPECT_FALSE(progress_token({{"name", "bash"}}));
  json m = progress_message("t", 3, milliseconds(61000));
  EXPECT_EQ(m["method"], "notifications/progress");
  EXPECT_EQ(m["params"]["progressToken"], "t");
  EXPECT_EQ(m["params"]["progress"], 3);
  EXPECT_NE(m["params"]["message"].get<std::string>().find("61 s"), std::string::npos);
}

// Progress at the start and then at every interval, increasing, and none after the result.
TEST(McpProgress, SentWhileTheCommandRuns) {
  Rig rig(milliseconds(20));
  rig.init();
  rig.bash(1, {{"command", "wait 300"}}, {{"progressToken", "tok"}});
  std::vector<json> seen;
  json r;
  for (;;) {
    json m = rig.wire.take([](const json&) { return true; });
    ASSERT_FALSE(m.is_null()) << "neither progress nor a result";
    if (m.contains("id")) {
      r = m;
      break;
    }
    seen.push_back(m);
  }
  EXPECT_EQ(r["result"]["isError"], false);
  ASSERT_GE(seen.size(), 3u);  // 300 ms at 20 ms apart; at least the start and two more
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i]["params"]["progressToken"], "tok");
    EXPECT_EQ(seen[i]["params"]["progress"], i);
  }
  EXPECT_TRUE(rig.progress(milliseconds(100)).is_null()) << "progress after the result";
}

// Issue 30 item 4: once the command printed, the progress message is its last line.
TEST(McpProgress, CarriesTheLastLineOfOutput) {  // issue 30, SRV-2
  Rig rig(milliseconds(20));
  rig.init();
  rig.bash(1, {{"command", "wait 300"}}, {{"progressToken", "tok"}});
  bool seen = false;
  for (json m = rig.progress(); !m.is_null() && !seen; m = rig.progress())
    seen = m["params"]["message"] == "waiting";
  EXPECT_TRUE(seen) << "no progress carried the printed line";
  EXPECT_EQ(rig.wire.response(1)["result"]["isError"], false);
}

TEST(McpProgress, NoneWithoutAToken) {
  Rig rig(milliseconds(10));
  rig.init();
  rig.bash(1, {{"command", "wait 100"}});
  EXPECT_EQ(rig.wire.response(1)["result"]["isError"], false);
  EXPECT_EQ(rig.wire.pending(), 0u);
}

// Claude Code drops the connection when anything follows its notifications/cancelled.
TEST(McpProgress, NothingAfterCancelled) {
  Rig rig(milliseconds(5));
  rig.init();
  rig.bash(9, {{"command", "wait 10000"}}, {{"progressToken", 1}});
  ASSERT_FALSE(rig.progress().is_null());
  rig.line({{"jsonrpc", "2.0"},
            {"method", "notifications/cancelled"},
            {"params", {{"requestId", 9}, {"reason", "Esc"}}}});
  // Whatever was sent before the cancel line was read is allowed; drain it.
  while (!rig.progress(milliseconds(0)).is_null()) {
  }
  while (rig.session->in_wait.load() > 0) std::this_thread::sleep_for(milliseconds(1));
  std::this_thread::sleep_for(milliseconds(50));  // ten intervals
  EXPECT_EQ(rig.wire.pending(), 0u) << rig.wire.take([](const json&) { return true; }).dump();
}

// Codex CLI shows a yes/no dialog instead of the form and answers `accept` with empty content.
TEST(McpProgress, AcceptWithoutContentIsAllowOnce) {
  using R = Peer::CallResult;
  EXPECT_EQ(read_elicit_answer(R{R::kResult, {{"action", "accept"}}}, true).reply,
            Reply::kAllowOnce);
  EXPECT_EQ(
      read_elicit_answer(R{R::kResult, {{"action", "accept"}, {"content", json::object()}}}, true)
          .reply,
      Reply::kAllowOnce);
  EXPECT_EQ(
      read_elicit_answer(R{R::kResult, {{"action", "accept"}, {"content", nullptr}}}, true).reply,
      Reply::kAllowOnce);
  // Never more than once: no grant for the session without the user choosing it.
  EXPECT_EQ(read_elicit_answer(R{R::kResult, {{"action", "decline"}}}, true).reply, Reply::kDeny);
  EXPECT_EQ(read_elicit_answer(R{R::kResult, {{"action", "cancel"}}}, true).reply, Reply::kDeny);
  EXPECT_EQ(read_elicit_answer(
                R{R::kResult, {{"action", "accept"}, {"content", {{"decision", "deny"}}}}}, true)
                .reply,
            Reply::kDeny);
  EXPECT_EQ(
      read_elicit_answer(R{R::kResult, {{"action", "accept"}, {"content", {{"other", "x"}}}}}, true)
          .reply,
      Reply::kDeny);

  Rig rig;
  rig.init({{"elicitation", json::object()}});
  rig.bash(1, {{"command", "echo x"}, {"network", true}});
  json q = rig.wire.request("elicitation/create");
  ASSERT_FALSE(q.is_null());
  rig.line({{"jsonrpc", "2.0"}, {"id", q["id"]}, {"result", {{"action", "accept"}}}});
  json r = rig.wire.response(1);
  EXPECT_EQ(r["result"]["isError"], false) << r.dump();
  EXPECT_EQ(r["result"]["structuredContent"]["stdout"], "x\n");
}

TEST(McpProgress, DefaultTimeoutReachesTheCommand) {
  Rig rig(milliseconds(1000), milliseconds(60000));
  rig.init();
  rig.bash(1, {{"command", "echo x"}});
  EXPECT_EQ(rig.wire.response(1)["result"]["isError"], false);
  ASSERT_TRUE(rig.session->last_timeout);
  EXPECT_EQ(*rig.session->last_timeout, milliseconds(60000));
  rig.bash(2, {{"command", "echo x"}, {"timeout_ms", 5}});  // the call's own wins
  rig.wire.response(2);
  EXPECT_EQ(*rig.session->last_timeout, milliseconds(5));
  Rig none(milliseconds(1000), milliseconds(0));
  none.init();
  none.bash(1, {{"command", "echo x"}});
  none.wire.response(1);
  EXPECT_FALSE(none.session->last_timeout);
}

}  // namespace
}  // namespace cordon::rpc
