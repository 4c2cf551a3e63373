// `cordon serve`'s dispatch (SRV-1, SRV-3, SRV-4) over a fake session: every method, every
// malformed input, approvals through `approval/ask`, requests in flight at once, cancel and
// shutdown. The real binary is driven in tests/integration/serve_test.cc.
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
#include "jsonrpc/jsonrpc_serve.h"
#include "jsonrpc/jsonrpc_tools.h"

namespace cordon::rpc {
namespace {

using std::chrono::milliseconds;
using testing::FakeApiSession;
using testing::Wire;

struct Rig {
  explicit Rig(bool threads = true) {
    ServeOptions o;
    o.threads = threads;
    o.max_in_flight = 4;
    o.open = [this](const InitializeParams& ip,
                    Asker* asker) -> Result<std::unique_ptr<api::Session>> {
      opened = ip;
      if (ip.project == "/broken")
        return make_error(ErrorKind::kUnavailable, "the config is broken");
      auto s = std::make_unique<FakeApiSession>(asker, ip.project);
      session = s.get();
      return std::unique_ptr<api::Session>(std::move(s));
    };
    conn = std::make_unique<ServeConnection>(std::move(o), wire.peer);
  }
  void line(const std::string& text) { conn->on_line(LineFramer::Line{text, false}); }
  void request(const json& id, const std::string& method, const json& params = nullptr) {
    json m{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) m["params"] = params;
    line(m.dump());
  }
  json call(const json& id, const std::string& method, const json& params = nullptr) {
    request(id, method, params);
    return wire.response(id);
  }
  void init(const json& extra = json::object()) {
    json p = {{"project", "/p"}};
    p.update(extra);
    json r = call("init", "initialize", p);
    ASSERT_TRUE(r.contains("result")) << r.dump();
  }
  void answer(const json& question, const json& result) {
    line(json{{"jsonrpc", "2.0"}, {"id", question["id"]}, {"result", result}}.dump());
  }

  Wire wire;
  std::unique_ptr<ServeConnection> conn;
  FakeApiSession* session = nullptr;
  InitializeParams opened;
};

std::string reason(const json& r) { return r["error"]["data"]["reason"].get<std::string>(); }

TEST(Serve, InitializeReturnsSessionNoticesAndSandbox) {  // SRV-1
  Rig rig;
  json r = rig.call(1, "initialize",
                    {{"project", "/work/p"}, {"session", "s1"}, {"resume", true}, {"away", true}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["session"], "0123456789abcdef");
  EXPECT_EQ(r["result"]["notice"], json::array({"fake notice"}));
  EXPECT_EQ(r["result"]["sandbox"],
            json({{"mode", "on"}, {"backend", "bubblewrap"}, {"available", true}}));
  EXPECT_EQ(rig.opened.project, "/work/p");
  EXPECT_EQ(rig.opened.session, "s1");
  EXPECT_TRUE(rig.opened.resume);
  EXPECT_TRUE(rig.opened.away);
}

TEST(Serve, InitializeErrors) {
  Rig rig;
  EXPECT_EQ(reason(rig.call(1, "initialize", json::object())), "invalid");  // no project
  EXPECT_EQ(reason(rig.call(2, "initialize", {{"project", "relative"}})), "invalid");
  EXPECT_EQ(reason(rig.call(3, "initialize", {{"project", 5}})), "invalid");
  EXPECT_EQ(reason(rig.call(4, "initialize", {{"project", "/p"}, {"resume", true}})), "invalid");
  EXPECT_EQ(reason(rig.call(5, "initialize", {{"project", "/p"}, {"bogus", 1}})), "invalid");
  json broken = rig.call(6, "initialize", {{"project", "/broken"}});
  EXPECT_EQ(reason(broken), "unavailable");
  EXPECT_EQ(broken["error"]["code"], kUnavailableCode);
  // After all that, the connection still initializes, once.
  EXPECT_TRUE(rig.call(7, "initialize", {{"project", "/p"}}).contains("result"));
  EXPECT_EQ(reason(rig.call(8, "initialize", {{"project", "/p"}})), "invalid");
}

TEST(Serve, MethodsBeforeInitializeAreRefused) {
  Rig rig;
  for (const char* m : {"exec", "read_file", "away", "policy", "review", "cancel"}) {
    json r = rig.call(m, m, json::object());
    EXPECT_EQ(reason(r), "invalid") << m;
    EXPECT_NE(r["error"]["message"].get<std::string>().find("initialize"), std::string::npos);
  }
}

TEST(Serve, ExecResultShape) {  // SRV-1
  Rig rig;
  rig.init();
  json r = rig.call(1, "exec", {{"command", "echo hello"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const json& res = r["result"];
  EXPECT_EQ(res["exit_code"], 0);
  EXPECT_EQ(res["stdout"], "hello\n");
  EXPECT_EQ(res["stderr"], "");
  EXPECT_EQ(res["timed_out"], false);
  EXPECT_TRUE(res["notes"].is_array());
  EXPECT_TRUE(res["quarantined"].is_array());
  EXPECT_FALSE(res.contains("withheld"));
  EXPECT_FALSE(res.contains("signal"));

  r = rig.call(2, "exec",
               {{"argv", {"fail", "3"}},
                {"stdin", "in"},
                {"timeout_ms", 1000},
                {"cwd", "sub"},
                {"network", false},
                {"outside_sandbox", false}});
  EXPECT_EQ(r["result"]["exit_code"], 3);
  EXPECT_EQ(r["result"]["notes"], json::array({"a note"}));
  EXPECT_EQ(r["result"]["stdout"], "in");
}

// Issue 30 item 4: "stream": true sends the output as exec/output before the answer; without
// it nothing is sent; a stream that is not a boolean is an invalid parameter.
TEST(Serve, ExecStreamSendsOutputBeforeTheAnswer) {  // issue 30, SRV-1
  Rig rig;
  rig.init();
  rig.request(5, "exec", {{"command", "wait 50"}, {"stream", true}});
  json out = rig.wire.take([](const json& m) { return m.value("method", "") == "exec/output"; });
  ASSERT_FALSE(out.is_null());
  EXPECT_EQ(out["params"], json({{"id", 5}, {"stream", "stdout"}, {"data", "waiting\n"}}));
  EXPECT_TRUE(rig.wire.response(5).contains("result"));
  json plain = rig.call(6, "exec", {{"command", "wait 10"}});
  EXPECT_TRUE(plain.contains("result")) << plain.dump();
  EXPECT_EQ(rig.wire.pending(), 0u) << "exec/output without stream";
  json bad = rig.call(7, "exec", {{"command", "echo x"}, {"stream", 1}});
  EXPECT_EQ(reason(bad), "invalid");
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("`stream`"), std::string::npos);
}

TEST(Serve, ExecParamsAreChecked) {  // SRV-3
  Rig rig;
  rig.init();
  const json bad[] = {
      json::object(),                             // neither command nor argv
      {{"command", "x"}, {"argv", {"x"}}},        // both
      {{"command", 5}},                           // wrong type
      {{"argv", "ls"}},                           // not an array
      {{"argv", {"ls", 5}}},                      // not strings
      {{"command", "x"}, {"timeout_ms", -1}},     // negative
      {{"command", "x"}, {"timeout_ms", 0}},      // zero
      {{"command", "x"}, {"timeout_ms", "5"}},    // a string
      {{"command", "x"}, {"timeout_ms", 1e300}},  // past a day
      {{"command", "x"}, {"network", "yes"}},     // not a boolean
      {{"command", "x"}, {"stdin", 3}},           // not a string
      {{"command", "x"}, {"timeot_ms", 5}},       // misspelled
      {{"command", std::string("a\0b", 3)}},      // NUL in a command
  };
  int id = 100;
  for (const auto& p : bad) {
    json r = rig.call(id++, "exec", p);
    EXPECT_EQ(reason(r), "invalid") << p.dump();
    EXPECT_EQ(r["error"]["code"], kInvalidParams) << p.dump();
  }
  json r = rig.call(id++, "exec", json::array({"ls"}));
  EXPECT_EQ(reason(r), "invalid");
  EXPECT_EQ(rig.session->execs.load(), 0);  // nothing ran
}

TEST(Serve, RefusalsCarryTheirReason) {  // SRV-1
  Rig rig;
  rig.init();
  EXPECT_EQ(reason(rig.call(1, "exec", {{"command", "refuse"}})), "refused");
  json held = rig.call(2, "exec", {{"command", "held"}});
  EXPECT_EQ(reason(held), "held");
  EXPECT_EQ(held["error"]["code"], kHeldCode);
  EXPECT_EQ(reason(rig.call(3, "exec", {{"command", "invalid"}})), "invalid");
}

TEST(Serve, FileToolsClassifyReviewPolicy) {
  Rig rig;
  rig.init();
  json r = rig.call(1, "read_file", {{"path", "a.txt"}, {"offset", 1}, {"limit", 10}});
  EXPECT_EQ(r["result"]["content"], "content of a.txt\n");
  EXPECT_EQ(r["result"]["path"], "/p/a.txt");
  EXPECT_EQ(reason(rig.call(2, "read_file", {{"path", "missing"}})), "invalid");
  EXPECT_EQ(reason(rig.call(3, "read_file", json::object())), "invalid");
  r = rig.call(4, "write_file", {{"path", "b.txt"}, {"content", std::string("x\0y", 3)}});
  EXPECT_EQ(r["result"]["bytes"], 3);
  EXPECT_EQ(r["result"]["created"], true);
  EXPECT_EQ(reason(rig.call(5, "write_file", {{"path", "b.txt"}})), "invalid");
  r = rig.call(6, "edit_file", {{"path", "b.txt"}, {"old_text", "x"}, {"new_text", "z"}});
  EXPECT_EQ(r["result"]["replacements"], 1);
  EXPECT_EQ(
      reason(rig.call(7, "edit_file", {{"path", "b.txt"}, {"old_text", ""}, {"new_text", "z"}})),
      "invalid");
  r = rig.call(8, "search", {{"pattern", "needle"}, {"glob", "*.txt"}, {"max_results", 5}});
  EXPECT_EQ(r["result"]["matches"][0]["line"], 3);
  EXPECT_EQ(r["result"]["credential_files_skipped"], 0);
  EXPECT_FALSE(r["result"].contains("large_files_skipped"));  // FILE-2: only above 0
  EXPECT_EQ(reason(rig.call(9, "search", {{"pattern", "("}})), "invalid");
  EXPECT_EQ(reason(rig.call(10, "search", {{"pattern", "x"}, {"max_results", 5000}})), "invalid");
  r = rig.call(11, "classify", {{"command", "rm -rf build"}});
  EXPECT_EQ(r["result"]["class"], "needs-approval");
  EXPECT_EQ(r["result"]["rule"], "not-read-only");
  r = rig.call(12, "classify", {{"argv", {"ls", "-l"}}});
  EXPECT_EQ(r["result"]["class"], "read-only");
  // REV-2: show before start is an error; start, then show.
  EXPECT_EQ(reason(rig.call(13, "review", json::object())), "invalid");
  r = rig.call(14, "review", {{"action", "start"}});
  EXPECT_EQ(r["result"]["commit"], "abc123");
  EXPECT_EQ(r["result"]["ignored_files"], 2);
  r = rig.call(15, "review", {{"action", "show"}});
  EXPECT_EQ(r["result"]["changed"], json::array({"M README.md"}));
  EXPECT_EQ(reason(rig.call(16, "review", {{"action", "stop"}})), "invalid");
  r = rig.call(17, "policy");
  EXPECT_EQ(r["result"]["mode"], "on");
  EXPECT_EQ(reason(rig.call(18, "policy", {{"extra", 1}})), "invalid");
}

TEST(Serve, UnknownMethodKeepsServing) {  // SRV-3
  Rig rig;
  rig.init();
  json r = rig.call(1, "rm_rf");
  EXPECT_EQ(r["error"]["code"], kMethodNotFound);
  EXPECT_EQ(reason(r), "invalid");
  EXPECT_EQ(rig.call(2, "exec", {{"command", "echo still here"}})["result"]["stdout"],
            "still here\n");
}

TEST(Serve, MalformedLinesGetErrorsAndTheSessionSurvives) {  // SRV-3
  Rig rig;
  rig.init();
  for (const char* l : {"not json", "[]", "{}", "{\"jsonrpc\":\"2.0\",\"id\":9}", "42",
                        "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"exec\"}"}) {
    rig.line(l);
    json r = rig.wire.take([](const json& m) { return m.contains("error"); });
    EXPECT_EQ(reason(r), "invalid") << l;
  }
  rig.conn->on_line(LineFramer::Line{"", true});  // a line over 16 MiB
  json r = rig.wire.take([](const json& m) { return m.contains("error"); });
  EXPECT_NE(r["error"]["message"].get<std::string>().find("longer than"), std::string::npos);
  // Notifications, unknown or not, get no answer; blank lines neither.
  rig.line(R"({"jsonrpc":"2.0","method":"whatever","params":{}})");
  rig.line("");
  // A response to nothing we asked is ignored.
  rig.line(R"({"jsonrpc":"2.0","id":77,"result":{"decision":"allow"}})");
  EXPECT_EQ(rig.call(1, "exec", {{"command", "echo ok"}})["result"]["stdout"], "ok\n");
  EXPECT_EQ(rig.wire.pending(), 0u);
}

TEST(Serve, ApprovalAllowDenyAndErrors) {  // SRV-1, APR-7
  Rig rig;
  rig.init();
  rig.request(1, "exec", {{"command", "echo net"}, {"network", true}, {"reason", "fetch"}});
  json q = rig.wire.request("approval/ask");
  ASSERT_FALSE(q.is_null());
  EXPECT_EQ(q["params"]["kind"], "network");
  EXPECT_EQ(q["params"]["command"], "echo net");
  EXPECT_EQ(q["params"]["reason"], "fetch");
  EXPECT_EQ(q["params"]["session_grant_offered"], true);
  EXPECT_GT(q["params"]["timeout_ms"].get<int64_t>(), 0);
  rig.answer(q, {{"decision", "allow"}});
  EXPECT_EQ(rig.wire.response(1)["result"]["stdout"], "net\n");

  rig.request(2, "exec", {{"command", "echo net"}, {"outside_sandbox", true}});
  q = rig.wire.request("approval/ask");
  EXPECT_EQ(q["params"]["kind"], "outside_sandbox");
  EXPECT_EQ(q["params"]["session_grant_offered"], false);  // APR-3
  rig.answer(q, {{"decision", "deny"}});
  json r = rig.wire.response(2);
  EXPECT_EQ(reason(r), "refused");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("denied"), std::string::npos);

  // An error answer, or an answer that is not one, counts as no.
  rig.request(3, "exec", {{"command", "echo x"}, {"network", true}});
  q = rig.wire.request("approval/ask");
  rig.line(json{{"jsonrpc", "2.0"},
                {"id", q["id"]},
                {"error", {{"code", -32601}, {"message", "no such method"}}}}
               .dump());
  r = rig.wire.response(3);
  EXPECT_EQ(reason(r), "refused");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("no such method"), std::string::npos);
  rig.request(4, "exec", {{"command", "echo x"}, {"network", true}});
  q = rig.wire.request("approval/ask");
  rig.answer(q, {{"decision", "yes please"}});
  EXPECT_EQ(reason(rig.wire.response(4)), "refused");
}

TEST(Serve, ApprovalTimeoutIsRefused) {  // APR-5
  Rig rig;
  rig.init();
  rig.session->deadline_s = 0;
  rig.request(1, "exec", {{"command", "echo x"}, {"network", true}});
  json q = rig.wire.request("approval/ask");
  json r = rig.wire.response(1);
  EXPECT_EQ(reason(r), "refused");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("no answer in time"), std::string::npos);
  rig.answer(q, {{"decision", "allow"}});  // too late: ignored
  EXPECT_EQ(rig.call(2, "exec", {{"command", "echo after"}})["result"]["stdout"], "after\n");
}

TEST(Serve, AwayOnAndOff) {  // APR-4
  Rig rig;
  rig.init();
  EXPECT_EQ(rig.call(1, "away", {{"on", true}})["result"]["away"], true);
  json r = rig.call(2, "exec", {{"command", "echo x"}, {"network", true}});
  EXPECT_EQ(reason(r), "refused");
  EXPECT_EQ(rig.wire.pending(), 0u);  // nobody was asked
  EXPECT_EQ(rig.call(3, "away", {{"on", false}})["result"]["away"], false);
  EXPECT_EQ(reason(rig.call(4, "away", json::object())), "invalid");
  EXPECT_EQ(reason(rig.call(5, "away", {{"on", "yes"}})), "invalid");
  EXPECT_EQ(reason(rig.call(6, "away", {{"on", true}, {"x", 1}})), "invalid");
  rig.session->refuse_away = true;
  EXPECT_EQ(reason(rig.call(7, "away", {{"on", true}})), "refused");
}

TEST(Serve, SeveralExecsInFlightAnswerByTheirIds) {  // SRV-4
  Rig rig;
  rig.init();
  auto t0 = std::chrono::steady_clock::now();
  rig.request("slow", "exec", {{"command", "wait 300"}});
  while (rig.session->in_wait.load() < 1) std::this_thread::sleep_for(milliseconds(1));
  rig.request("fast", "exec", {{"command", "echo fast"}});
  json fast = rig.wire.response("fast");
  EXPECT_EQ(fast["result"]["stdout"], "fast\n");
  EXPECT_EQ(rig.session->in_wait.load(), 1);  // the slow one still runs
  json slow = rig.wire.response("slow");
  EXPECT_EQ(slow["result"]["exit_code"], 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(3000));
}

TEST(Serve, TooManyInFlightAndDuplicateIds) {
  Rig rig;  // max_in_flight 4
  rig.init();
  for (int i = 0; i < 4; ++i) rig.request(i, "exec", {{"command", "wait 5000"}});
  while (rig.session->in_wait.load() < 4) std::this_thread::sleep_for(milliseconds(1));
  json r = rig.call(99, "exec", {{"command", "echo x"}});
  EXPECT_EQ(reason(r), "unavailable");
  r = rig.call(2, "exec", {{"command", "echo x"}});  // id 2 is in flight
  EXPECT_EQ(reason(r), "invalid");
  // cancel ends one; its response says so.
  r = rig.call("c", "cancel", {{"id", 2}});
  EXPECT_EQ(r["result"]["canceled"], true);
  EXPECT_EQ(rig.wire.response(2)["result"]["canceled"], true);
  EXPECT_EQ(rig.call("c2", "cancel", {{"id", 12345}})["result"]["canceled"], false);
  EXPECT_EQ(reason(rig.call("c3", "cancel", json::object())), "invalid");
}

TEST(Serve, ShutdownEndsRunningCommandsThenAnswers) {  // SRV-3
  Rig rig;
  rig.init();
  rig.request(1, "exec", {{"command", "wait 10000"}});
  rig.request(2, "exec", {{"command", "echo x"}, {"network", true}});  // waits for a question
  json q = rig.wire.request("approval/ask");
  ASSERT_FALSE(q.is_null());
  while (rig.session->in_wait.load() < 1) std::this_thread::sleep_for(milliseconds(1));
  auto t0 = std::chrono::steady_clock::now();
  json r = rig.call("bye", "shutdown");
  EXPECT_TRUE(r.contains("result"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(3000));
  EXPECT_TRUE(rig.conn->finished());
  EXPECT_EQ(rig.wire.response(1)["result"]["canceled"], true);
  json refused = rig.wire.response(2);
  EXPECT_EQ(reason(refused), "refused");
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("went away"), std::string::npos);
  EXPECT_EQ(reason(rig.call(3, "exec", {{"command", "echo late"}})), "unavailable");
}

TEST(Serve, EndOfInputEndsRunningCommands) {
  Rig rig;
  rig.init();
  rig.request(1, "exec", {{"command", "wait 10000"}});
  while (rig.session->in_wait.load() < 1) std::this_thread::sleep_for(milliseconds(1));
  rig.conn->close();
  EXPECT_EQ(rig.wire.response(1)["result"]["canceled"], true);
}

TEST(Serve, WithoutThreadsEverythingRunsInline) {
  Rig rig(/*threads=*/false);
  rig.init();
  EXPECT_EQ(rig.call(1, "exec", {{"command", "echo inline"}})["result"]["stdout"], "inline\n");
}

TEST(ApprovalAnswer, Readings) {
  using R = Peer::CallResult;
  EXPECT_EQ(read_approval_answer(R{R::kResult, {{"decision", "allow"}}}, true).reply,
            Reply::kAllowOnce);
  EXPECT_EQ(read_approval_answer(R{R::kResult, {{"decision", "allow"}, {"scope", "session"}}}, true)
                .reply,
            Reply::kAllowForSession);
  // APR-3: no grant where none was offered.
  EXPECT_EQ(
      read_approval_answer(R{R::kResult, {{"decision", "allow"}, {"scope", "session"}}}, false)
          .reply,
      Reply::kAllowOnce);
  EXPECT_EQ(read_approval_answer(R{R::kResult, {{"decision", "deny"}}}, true).reply, Reply::kDeny);
  EXPECT_EQ(read_approval_answer(R{R::kResult, {{"decision", true}}}, true).reply,
            Reply::kUnavailable);
  EXPECT_EQ(read_approval_answer(R{R::kResult, json::array()}, true).reply, Reply::kUnavailable);
  EXPECT_EQ(read_approval_answer(R{R::kError, {{"code", 1}}}, true).reply, Reply::kUnavailable);
  EXPECT_EQ(read_approval_answer(R{R::kTimeout, nullptr}, true).reply, Reply::kTimeout);
  EXPECT_EQ(read_approval_answer(R{R::kClosed, nullptr}, true).reply, Reply::kUnavailable);
}

}  // namespace
}  // namespace cordon::rpc

namespace cordon::rpc {
namespace {

// Issue 30: the job methods' parameters are checked before any job is looked at, and each
// error names the parameter and the fix.
TEST(ServeJobs, BadParametersNameTheParameterAndTheFix) {  // issue 30, SRV-1
  Rig rig;
  rig.init();
  json r = rig.call(1, "exec", {{"command", "echo hi"}, {"background", "yes"}});
  EXPECT_EQ(reason(r), "invalid");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("`background`"), std::string::npos);
  r = rig.call(2, "exec", {{"command", "echo hi"}, {"background", false}});  // the foreground
  EXPECT_EQ(r["result"]["stdout"], "hi\n") << r.dump();
  r = rig.call(3, "exec", {{"command", "echo hi"}, {"background", true}});
  EXPECT_EQ(reason(r), "unavailable") << r.dump();  // the fake runs no jobs
  r = rig.call(4, "job/output", json::object());
  EXPECT_NE(r["error"]["message"].get<std::string>().find("`job`"), std::string::npos);
  r = rig.call(5, "job/output", {{"job", "7"}});
  EXPECT_NE(r["error"]["message"].get<std::string>().find("job/list"), std::string::npos);
  r = rig.call(6, "job/signal", {{"job", "7"}, {"signal", "TERM"}, {"extra", 1}});
  EXPECT_EQ(reason(r), "invalid");
  r = rig.call(7, "job/wait", {{"job", "7"}});
  EXPECT_EQ(reason(r), "invalid");
  r = rig.call(8, "job/list", json::object());
  EXPECT_EQ(r["result"]["jobs"], json::array()) << r.dump();
}

}  // namespace
}  // namespace cordon::rpc
