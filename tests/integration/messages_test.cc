// cordon's own messages and the server's input (issue 13): names printed raw, arguments past
// the limit, duplicate keys, projects refused at `initialize`. What a user and a client see.
#include <unistd.h>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string reason(const json& r) {
  if (!r.contains("error")) return "(no error: " + r.dump() + ")";
  return r["error"]["data"]["reason"];
}

// No byte a terminal acts on: C0 controls other than the newlines that end cordon's own lines.
bool raw_controls(const std::string& text) {
  for (unsigned char c : text)
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

struct Served {
  explicit Served(World& w, const std::string& project = "")
      : client({"serve"}, w.env, w.project()) {
    init = client.call("initialize", {{"project", project.empty() ? w.project() : project}});
  }
  json exec(const json& params) { return client.call("exec", params); }
  RpcClient client;
  json init;
};

TEST(Messages, PlantedNamesArePrintedEscaped) {  // RES-1, PROT-7 (issue 13 item 12)
  REQUIRE_SANDBOX();
  World w;
  // A .vscode with a tracked file is judged file by file: a new file in it is moved aside on
  // its own, and its note names it (PROT-5, PROT-7).
  w.write(".vscode/settings.json", "{}\n");
  w.host({"git", "add", ".vscode/settings.json"});
  w.host({"git", "commit", "-q", "-m", "vscode"});
  std::string script = std::string("mkdir -p .vscode && : > \"$(printf '") +
                       ".vscode/x\\033[2K\\033]0;owned\\007\\ncordon: note: forged.json" + "')\"";
  Proc r = w.sh(script);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.err, "note:")) << r.err;   // the move aside is reported...
  EXPECT_FALSE(raw_controls(r.err)) << r.err;  // ...without a byte the terminal acts on
  EXPECT_TRUE(has(r.err, "\\x1b[2K")) << r.err;
  EXPECT_FALSE(has(r.err, "\ncordon: note: forged")) << r.err;  // no forged line
  EXPECT_TRUE(has(r.err, "\\x0acordon: note: forged")) << r.err;

  // The server's results: the notes and the moves.
  Served s(w);
  json e = s.exec({{"command", script}});
  ASSERT_TRUE(e.contains("result")) << e.dump();
  std::string all = e["result"]["notes"].dump() + e["result"]["quarantined"].dump();
  for (const auto& n : e["result"]["notes"]) EXPECT_FALSE(raw_controls(n.get<std::string>())) << n;
  for (const auto& q : e["result"]["quarantined"]) {
    EXPECT_FALSE(raw_controls(q["from"].get<std::string>())) << q;
    EXPECT_FALSE(raw_controls(q["to"].get<std::string>())) << q;
  }
  EXPECT_TRUE(has(all, "\\\\x1b")) << all;  // the escape, as text (JSON doubles the backslash)
}

TEST(Messages, PolicyAndReviewPrintNamesEscaped) {  // CFG-6, REV-1 (issue 13 item 12)
  REQUIRE_SANDBOX();
  World w;
  std::string evil = w.home() + "/evil\x1b]0;x\x07name";
  w.write(evil, "secret\n");
  w.config("[sandbox]\nhide = [\"~/evil\\u001b]0;x\\u0007name\"]\n");
  Proc p = w.cordon({"policy"});
  EXPECT_EQ(p.status, 0) << p.err;
  EXPECT_TRUE(has(p.out, "evil\\x1b]0;x\\x07name")) << p.out;
  EXPECT_FALSE(raw_controls(p.out + p.err)) << p.out;
  Proc j = w.cordon({"policy", "--json"});
  EXPECT_FALSE(has(j.out, "\\u001b")) << j.out;

  Proc start = w.cordon({"review", "start"});
  ASSERT_EQ(start.status, 0) << start.err;
  w.write("added\x1b[31mred\nline.txt", "x\n");
  Proc rv = w.cordon({"review"});
  EXPECT_TRUE(has(rv.out, "added\\x1b[31mred\\x0aline.txt")) << rv.out << rv.err;
  EXPECT_FALSE(raw_controls(rv.out + rv.err)) << rv.out;
}

TEST(Messages, ServeExecOverTheArgumentLimitGivesTheBudgetRefusal) {  // BUD-1, SRV-1
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  ASSERT_TRUE(s.init.contains("result")) << s.init.dump();
  json r = s.exec({{"command", "echo " + std::string(200 * 1024, 'a')}});
  EXPECT_EQ(reason(r), "refused") << r.dump().substr(0, 400);
  std::string m = r["error"]["message"];
  EXPECT_FALSE(has(m, "could not start")) << m;
  EXPECT_TRUE(has(m, "file")) << m;  // the fix: pass data through a file
  json argv = json::array({"/bin/echo"});
  for (int i = 0; i < 30; ++i) argv.push_back(std::string(100 * 1024, 'b'));
  r = s.exec({{"argv", argv}});
  EXPECT_EQ(reason(r), "refused") << r.dump().substr(0, 400);
  m = r["error"]["message"];
  EXPECT_FALSE(has(m, "could not start")) << m;
  EXPECT_TRUE(has(m, "argument")) << m;
  // The session still serves.
  r = s.exec({{"command", "echo fine"}});
  EXPECT_EQ(r["result"]["stdout"], "fine\n") << r.dump();
}

TEST(Messages, DuplicateKeysAreInvalidAndNothingRuns) {  // SRV-1, SRV-3 (issue 13 item 14)
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  ASSERT_TRUE(s.init.contains("result")) << s.init.dump();
  s.client.send_line(
      R"({"jsonrpc":"2.0","id":"dup","method":"exec","params":{"command":"touch one","command":"touch two"}})");
  json r = s.client.wait("dup");
  EXPECT_EQ(reason(r), "invalid") << r.dump();
  s.client.send_line(
      R"({"jsonrpc":"2.0","id":"dup2","method":"exec","params":{"argv":["touch","three"],"network":false,"network":true}})");
  r = s.client.wait("dup2");
  EXPECT_EQ(reason(r), "invalid") << r.dump();
  r = s.exec({{"command", "ls"}});
  EXPECT_FALSE(w.exists("one"));
  EXPECT_FALSE(w.exists("two"));
  EXPECT_FALSE(w.exists("three"));

  // MCP: the same.
  RpcClient mcp({"mcp", "--project", w.project()}, w.env, w.project());
  json init = mcp.mcp_initialize();
  ASSERT_TRUE(init.contains("result")) << init.dump();
  mcp.send_line(
      R"({"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"bash","arguments":{"command":"touch four","command":"touch five"}}})");
  r = mcp.wait("d");
  EXPECT_EQ(reason(r), "invalid") << r.dump();
  EXPECT_FALSE(w.exists("four"));
  EXPECT_FALSE(w.exists("five"));
}

TEST(Messages, ServersRefuseACredentialFolderAsTheProject) {  // FS-4 (issue 13 item 8)
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.ssh/id_rsa", "PRIVATE KEY\n", 0600);
  Served s(w, w.home() + "/.ssh");
  EXPECT_EQ(reason(s.init), "refused") << s.init.dump();
  EXPECT_TRUE(has(s.init.dump(), "hidden path")) << s.init.dump();
  Served home(w, w.home());
  EXPECT_EQ(reason(home.init), "refused") << home.init.dump();
  EXPECT_TRUE(has(home.init.dump(), "home folder")) << home.init.dump();

  RpcClient mcp({"mcp", "--project", w.home() + "/.ssh"}, w.env, w.project());
  json init = mcp.mcp_initialize();
  json r = mcp.call("tools/call",
                    {{"name", "bash"}, {"arguments", {{"command", "cat id_rsa; touch planted"}}}});
  EXPECT_TRUE(has(init.dump() + r.dump(), "hidden path")) << init.dump() << r.dump();
  EXPECT_FALSE(has(r.dump(), "PRIVATE KEY"));
  EXPECT_FALSE(w.exists(w.home() + "/.ssh/planted"));
}

}  // namespace
}  // namespace cordon::it
