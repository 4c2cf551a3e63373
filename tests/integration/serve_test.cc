// `cordon serve` end to end (SRV-1, SRV-3, SRV-4, REV-2, APR-7): the real binary, real
// sandboxes, a scripted client that also answers `approval/ask`.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using std::chrono::seconds;

std::string reason(const json& r) {
  if (!r.contains("error")) return "(no error: " + r.dump() + ")";
  return r["error"]["data"]["reason"];
}
std::string message(const json& r) { return r["error"]["message"]; }
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A serve connection on the world's project, initialized.
struct Served {
  explicit Served(World& w, const json& init_extra = json::object())
      : client({"serve"}, w.env, w.project()) {
    json p = {{"project", w.project()}};
    p.update(init_extra);
    init = client.call("initialize", p);
  }
  json exec(const json& params) { return client.call("exec", params); }
  RpcClient client;
  json init;
};

TEST(Serve, InitializeAndEveryMethod) {  // SRV-1, REV-2
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.ssh/id_rsa", "PRIVATE KEY\n");
  w.write("notes.txt", "alpha\nneedle here\nomega\n");
  Served s(w);
  ASSERT_TRUE(s.init.contains("result")) << s.init.dump() << s.client.stderr_text();
  const json& init = s.init["result"];
  EXPECT_EQ(init["session"].get<std::string>().size(), 16u);
  EXPECT_TRUE(init["notice"].is_array());
  EXPECT_EQ(init["sandbox"]["mode"], "on");
  EXPECT_EQ(init["sandbox"]["backend"], "bubblewrap");
  EXPECT_EQ(init["sandbox"]["available"], true);
  EXPECT_FALSE(init["sandbox"].contains("reason"));

  // exec: the command runs in the sandbox (FS-2, FS-4).
  json r = s.exec({{"command",
                    "echo out; echo err >&2; cat ~/.ssh/id_rsa | wc -c; "
                    "echo x > \"$HOME/outside.txt\" || echo refused; exit 3"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["exit_code"], 3);
  EXPECT_EQ(r["result"]["stdout"], "out\n0\nrefused\n");
  EXPECT_TRUE(has(r["result"]["stderr"], "err\n"));
  EXPECT_TRUE(has(r["result"]["stderr"], "Read-only file system"));
  EXPECT_EQ(r["result"]["timed_out"], false);
  EXPECT_TRUE(r["result"]["notes"].is_array());
  EXPECT_TRUE(r["result"]["quarantined"].is_array());
  EXPECT_FALSE(w.exists(w.home() + "/outside.txt"));
  // argv, stdin, cwd, a timeout (PROC-4).
  w.write("sub/keep", "");
  r = s.exec({{"argv", {"/bin/sh", "-c", "pwd; cat"}}, {"stdin", "from stdin"}, {"cwd", "sub"}});
  EXPECT_EQ(r["result"]["stdout"], w.project() + "/sub\nfrom stdin") << r.dump();
  r = s.exec({{"command", "sleep 5"}, {"timeout_ms", 200}});
  EXPECT_EQ(r["result"]["exit_code"], 124);
  EXPECT_EQ(r["result"]["timed_out"], true);
  // A command that does not exist.
  r = s.exec({{"argv", {"no-such-program-xyz"}}});
  EXPECT_EQ(r["result"]["exit_code"], 127) << r.dump();

  // The file tools (FILE-1..6).
  r = s.client.call("read_file", {{"path", "notes.txt"}, {"offset", 2}, {"limit", 1}});
  EXPECT_EQ(r["result"]["content"], "needle here\n") << r.dump();
  EXPECT_EQ(r["result"]["more"], true);
  r = s.client.call("read_file", {{"path", w.home() + "/.ssh/id_rsa"}});
  EXPECT_EQ(reason(r), "refused") << r.dump();  // a hidden path
  r = s.client.call("write_file", {{"path", "new/made.txt"}, {"content", "made\n"}});
  EXPECT_EQ(r["result"]["created"], true) << r.dump();
  EXPECT_EQ(w.read("new/made.txt"), "made\n");
  r = s.client.call("edit_file",
                    {{"path", "new/made.txt"}, {"old_text", "made"}, {"new_text", "edited"}});
  EXPECT_EQ(r["result"]["replacements"], 1) << r.dump();
  EXPECT_EQ(w.read("new/made.txt"), "edited\n");
  r = s.client.call("search", {{"pattern", "needle"}});
  ASSERT_EQ(r["result"]["matches"].size(), 1u) << r.dump();
  EXPECT_EQ(r["result"]["matches"][0]["path"], "notes.txt");
  EXPECT_EQ(r["result"]["matches"][0]["line"], 2);

  // classify (CMD-6).
  r = s.client.call("classify", {{"command", "git status | head"}});
  EXPECT_EQ(r["result"]["class"], "read-only") << r.dump();
  r = s.client.call("classify", {{"argv", {"rm", "-rf", "build"}}});
  EXPECT_EQ(r["result"]["class"], "needs-approval");
  r = s.client.call("classify", {{"command", "mkfs.ext4 /dev/sda"}});
  EXPECT_EQ(r["result"]["class"], "denied");

  // review (REV-2): start, change, show.
  r = s.client.call("review", {{"action", "start"}});
  EXPECT_EQ(r["result"]["started"], true) << r.dump();
  w.write("README.md", "changed\n");
  s.exec({{"command", "echo new > added.txt"}});
  r = s.client.call("review");
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_TRUE(has(r["result"]["changed"].dump(), "README.md")) << r.dump();
  EXPECT_TRUE(has(r["result"]["added"].dump(), "added.txt")) << r.dump();
  EXPECT_TRUE(has(r["result"]["text"], "README.md"));

  // policy (CFG-6).
  r = s.client.call("policy");
  EXPECT_EQ(r["result"]["mode"], "on") << r.dump();
  EXPECT_EQ(r["result"]["project"], w.project());
  EXPECT_TRUE(r["result"]["hidden"].is_array());

  // away (APR-4).
  EXPECT_EQ(s.client.call("away", {{"on", true}})["result"]["away"], true);
  EXPECT_EQ(s.client.call("away", {{"on", false}})["result"]["away"], false);

  r = s.client.call("shutdown");
  EXPECT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(s.client.wait_exit(), 0);
  EXPECT_TRUE(s.client.bad_lines().empty());
}

TEST(Serve, MalformedInputGetsErrorsAndTheSessionLives) {  // SRV-3
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  ASSERT_TRUE(s.init.contains("result"));
  std::string session = s.init["result"]["session"];
  s.client.send_line("this is not json");
  s.client.send_line(
      "{\"jsonrpc\":\"2.0\",\"id\":\"bin\",\"method\":\"exec\",\"params\":{\"command\":"
      "\"\xff\xfe\"}}");
  s.client.send_line("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"policy\"}]");
  // A line over 16 MiB.
  s.client.send_line(
      "{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"exec\",\"params\":{\"command\":\"" +
      std::string((17u << 20), 'a') + "\"}}");
  json r = s.client.call("no_such_method");
  EXPECT_EQ(r["error"]["code"], -32601);
  EXPECT_EQ(reason(r), "invalid");
  r = s.exec({{"command", 42}});
  EXPECT_EQ(reason(r), "invalid");
  EXPECT_TRUE(has(message(r), "`command` must be a string"));
  r = s.exec({{"argv", {"echo", 1}}});
  EXPECT_EQ(reason(r), "invalid");
  r = s.exec({{"command", "true"}, {"timeout_ms", "soon"}});
  EXPECT_EQ(reason(r), "invalid");
  r = s.client.call("read_file", {{"path", {"not", "a", "string"}}});
  EXPECT_EQ(reason(r), "invalid");
  r = s.client.call("initialize", {{"project", w.project()}});
  EXPECT_EQ(reason(r), "invalid");  // the connection keeps its one session
  // Still the same session, still serving.
  r = s.exec({{"command", "echo alive"}});
  EXPECT_EQ(r["result"]["stdout"], "alive\n") << r.dump() << s.client.stderr_text();
  s.client.close_stdin();
  EXPECT_EQ(s.client.wait_exit(), 0);
  // Every garbage line got its own error line; nothing else was written.
  EXPECT_TRUE(s.client.bad_lines().empty());
  (void)session;
}

TEST(Serve, TheLongLineIsAnsweredAndTheNextRequestServed) {  // SRV-3
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  s.client.send_line(std::string((16u << 20) + 10, 'x'));
  json r = s.exec({{"command", "echo after"}});
  EXPECT_EQ(r["result"]["stdout"], "after\n") << r.dump();
  s.client.close_stdin();
  EXPECT_EQ(s.client.wait_exit(), 0);
}

// APR: "allow for this session" covers exactly the request the person saw: the same command,
// folder, standard input and ways out. The question shows the folder and the start of stdin.
TEST(Serve, SessionGrantCoversOnlyTheExactRequest) {  // APR-1, APR-7, SRV-1
  REQUIRE_SANDBOX();
  World w;
  w.write("sub/keep", "");
  Served s(w);
  std::atomic<int> asked{0};
  s.client.on_request([&](const json&) {
    ++asked;
    return RpcClient::Answer{{{"decision", "allow"}, {"scope", "session"}}};
  });
  json req = {{"command", "sh"}, {"stdin", "echo hello"}, {"network", true}};
  json r = s.exec(req);
  EXPECT_EQ(r["result"]["stdout"], "hello\n") << r.dump();
  ASSERT_EQ(asked, 1);
  json params = s.client.server_requests().back()["params"];
  EXPECT_EQ(params["cwd"], w.project()) << params.dump();
  EXPECT_EQ(params["stdin"]["size"], 10);
  EXPECT_EQ(params["stdin"]["start"], "echo hello");
  s.exec(req);
  EXPECT_EQ(asked, 1) << "the same request: covered by the grant";
  json other = req;
  other["stdin"] = "echo other";
  s.exec(other);
  EXPECT_EQ(asked, 2) << "another stdin asks again";
  json elsewhere = req;
  elsewhere["cwd"] = "sub";
  s.exec(elsewhere);
  EXPECT_EQ(asked, 3) << "another folder asks again";
}

// FILE-6, GIT-1..3: the files that decide what git runs or where the repository is ask first.
TEST(Serve, GitControlFilesAskBeforeAWrite) {  // FILE-6
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  std::vector<std::string> kinds;
  std::mutex mu;
  s.client.on_request([&](const json& req) {
    std::lock_guard<std::mutex> lock(mu);
    kinds.push_back(req["params"]["kind"]);
    return RpcClient::Answer{{{"decision", "deny"}}};
  });
  for (const char* path : {".git/commondir", ".git/config.worktree", ".git/info/attributes",
                           ".git/objects/info/alternates"}) {
    json r = s.client.call("write_file", {{"path", path}, {"content", "x\n"}});
    EXPECT_EQ(reason(r), "refused") << path << r.dump();
    EXPECT_FALSE(w.exists(path)) << path;
  }
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(kinds, std::vector<std::string>(4, "protected_write"));
}

TEST(Serve, ApprovalAllowAndDeny) {  // APR-1, APR-7, SRV-1
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  std::atomic<int> asked{0};
  std::string decision = "allow";
  std::mutex mu;
  s.client.on_request([&](const json& req) {
    EXPECT_EQ(req["method"], "approval/ask");
    ++asked;
    std::lock_guard<std::mutex> lock(mu);
    return RpcClient::Answer{{{"decision", decision}}};
  });
  // Sandboxed commands run without asking.
  json r = s.exec({{"command", "true"}});
  EXPECT_EQ(r["result"]["exit_code"], 0);
  EXPECT_EQ(asked, 0);
  // network: asked, allowed: the command shares the machine's network namespace.
  r = s.exec({{"command", "cat /proc/net/dev | wc -l"}, {"network", true}, {"reason", "fetch"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(asked, 1);
  auto reqs = s.client.server_requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0]["params"]["kind"], "network");
  EXPECT_EQ(reqs[0]["params"]["command"], "cat /proc/net/dev | wc -l");
  EXPECT_EQ(reqs[0]["params"]["reason"], "fetch");
  // outside_sandbox: asked, allowed: it runs as the user (a write outside the project works).
  r = s.exec({{"command", "echo out > \"$HOME/outside.txt\""}, {"outside_sandbox", true}});
  EXPECT_EQ(r["result"]["exit_code"], 0) << r.dump();
  EXPECT_EQ(w.read(w.home() + "/outside.txt"), "out\n");
  EXPECT_EQ(s.client.server_requests().back()["params"]["kind"], "outside_sandbox");
  EXPECT_EQ(s.client.server_requests().back()["params"]["session_grant_offered"], false);
  // Denied: refused, not run.
  {
    std::lock_guard<std::mutex> lock(mu);
    decision = "deny";
  }
  r = s.exec({{"command", "echo no > \"$HOME/denied.txt\""}, {"outside_sandbox", true}});
  EXPECT_EQ(reason(r), "refused") << r.dump();
  EXPECT_TRUE(has(message(r), "denied by the user"));
  EXPECT_FALSE(w.exists(w.home() + "/denied.txt"));
}

// SRV-4, APR-5 (issue 27): `cancel` while the exec's question is open withdraws the question at
// once (approval/withdrawn names it) and the exec answers canceled, without waiting for the
// answer or the 15-minute timeout; nothing ran.
TEST(Serve, CancelWithdrawsAnOpenQuestion) {
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  s.client.on_request([&](const json&) { return RpcClient::Answer{nullptr, false, true}; });
  json id = s.client.start(
      "exec", {{"command", "echo x > \"$HOME/c.txt\""}, {"outside_sandbox", true}});
  auto asked = [&] {
    for (const auto& r : s.client.server_requests())
      if (r.value("method", "") == "approval/ask") return r.value("id", json());
    return json();
  };
  auto t0 = steady_clock::now();
  while (asked().is_null() && steady_clock::now() - t0 < seconds(20))
    std::this_thread::sleep_for(milliseconds(20));
  json ask_id = asked();
  ASSERT_FALSE(ask_id.is_null()) << "no question was put";
  t0 = steady_clock::now();
  json c = s.client.call("cancel", {{"id", id}});
  EXPECT_EQ(c["result"]["canceled"], true) << c.dump();
  json r = s.client.wait(id, seconds(10));
  EXPECT_LT(steady_clock::now() - t0, seconds(3)) << "the exec waited for the answer";
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["canceled"], true) << r.dump();
  EXPECT_EQ(r["result"]["exit_code"], 130) << r.dump();
  EXPECT_FALSE(w.exists(w.home() + "/c.txt"));
  bool withdrawn = false;
  for (const auto& m : s.client.server_requests())
    if (m.value("method", "") == "approval/withdrawn" && m["params"]["id"] == ask_id)
      withdrawn = true;
  EXPECT_TRUE(withdrawn) << "the client was not told the question is withdrawn";
}

// APR-7 (issue 27): an exec whose cwd is outside the project runs at the project root, and its
// question shows that folder, not the one asked for.
TEST(Serve, QuestionShowsWhereTheCommandRuns) {
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  s.client.on_request([&](const json&) { return RpcClient::Answer{{{"decision", "allow"}}}; });
  json r = s.exec({{"command", "pwd"}, {"cwd", w.home()}, {"network", true}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["stdout"], w.project() + "\n");
  auto reqs = s.client.server_requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0]["params"]["cwd"], w.project()) << reqs[0].dump();
}

TEST(Serve, ClientErrorOrSilenceIsNo) {  // APR-5, APR-7
  REQUIRE_SANDBOX();
  World w;
  w.config("[away]\ntimeout = \"1s\"\n");
  Served s(w);
  bool error = true;
  s.client.on_request([&](const json&) {
    if (error) return RpcClient::Answer{{{"code", -32601}, {"message", "unsupported"}}, true};
    return RpcClient::Answer{nullptr, false, /*ignore=*/true};
  });
  json r = s.exec({{"command", "echo x > \"$HOME/e.txt\""}, {"outside_sandbox", true}});
  EXPECT_EQ(reason(r), "refused");
  EXPECT_TRUE(has(message(r), "unsupported")) << message(r);
  error = false;
  auto t0 = steady_clock::now();
  r = s.exec({{"command", "echo x > \"$HOME/t.txt\""}, {"outside_sandbox", true}});
  EXPECT_EQ(reason(r), "refused");
  EXPECT_TRUE(has(message(r), "did not answer within")) << message(r);
  EXPECT_GE(steady_clock::now() - t0, milliseconds(900));
  EXPECT_FALSE(w.exists(w.home() + "/e.txt"));
  EXPECT_FALSE(w.exists(w.home() + "/t.txt"));
}

TEST(Serve, AwayRefusesWithoutAsking) {  // APR-4
  REQUIRE_SANDBOX();
  World w;
  Served s(w, {{"away", true}});
  ASSERT_EQ(s.init["result"]["away"], true) << s.init.dump();
  s.client.on_request([](const json&) { return RpcClient::Answer{{{"decision", "allow"}}}; });
  json r = s.exec({{"command", "true"}, {"network", true}});
  EXPECT_EQ(reason(r), "refused");
  EXPECT_TRUE(has(message(r), "away")) << message(r);
  EXPECT_TRUE(s.client.server_requests().empty());
  // Back: asked again.
  s.client.call("away", {{"on", false}});
  r = s.exec({{"command", "true"}, {"network", true}});
  EXPECT_EQ(r["result"]["exit_code"], 0) << r.dump();
  EXPECT_EQ(s.client.server_requests().size(), 1u);
}

TEST(Serve, ApproveAllRefusesOutsideSandbox) {  // APR-2, APR-3
  REQUIRE_SANDBOX();
  World w;
  w.config("[approvals]\nmode = \"approve-all\"\n");
  Served s(w);
  s.client.on_request([](const json&) { return RpcClient::Answer{{{"decision", "allow"}}}; });
  json r = s.exec({{"command", "echo x > \"$HOME/all.txt\""}, {"outside_sandbox", true}});
  EXPECT_EQ(reason(r), "refused");
  EXPECT_TRUE(has(message(r), "approve-all")) << message(r);
  EXPECT_FALSE(w.exists(w.home() + "/all.txt"));
  // network is approved without asking.
  r = s.exec({{"command", "true"}, {"network", true}});
  EXPECT_EQ(r["result"]["exit_code"], 0) << r.dump();
  EXPECT_TRUE(s.client.server_requests().empty());
  // Away is refused under approve-all.
  r = s.client.call("away", {{"on", true}});
  EXPECT_EQ(reason(r), "refused");
}

TEST(Serve, DeniedCommandsAreRefused) {  // CMD-4, CMD-6
  REQUIRE_SANDBOX();
  World w;
  w.write("disk.img", "x");
  Served s(w);
  json r = s.exec({{"command", "mkfs.ext4 -q -F disk.img"}});
  EXPECT_EQ(reason(r), "refused");
  EXPECT_TRUE(has(message(r), "denies")) << message(r);
  EXPECT_EQ(w.read("disk.img"), "x");
}

TEST(Serve, EscapeNeverRefusesBeforeAsking) {  // NET-5
  REQUIRE_SANDBOX();
  World w;
  w.config("[sandbox]\nescape = \"never\"\n");
  Served s(w);
  s.client.on_request([](const json&) { return RpcClient::Answer{{{"decision", "allow"}}}; });
  json r = s.exec({{"command", "true"}, {"network", true}});
  EXPECT_EQ(reason(r), "refused");
  EXPECT_TRUE(has(message(r), "escape")) << message(r);
  EXPECT_TRUE(s.client.server_requests().empty());
}

TEST(Serve, CredentialReadAsks) {  // FILE-4, APR-1
  REQUIRE_SANDBOX();
  World w;
  w.write(".env", "TOKEN=1\n");
  Served s(w);
  std::string decision = "deny";
  s.client.on_request([&](const json&) { return RpcClient::Answer{{{"decision", decision}}}; });
  json r = s.client.call("read_file", {{"path", ".env"}});
  EXPECT_EQ(reason(r), "refused") << r.dump();
  ASSERT_EQ(s.client.server_requests().size(), 1u);
  EXPECT_EQ(s.client.server_requests()[0]["params"]["kind"], "credential_read");
  EXPECT_EQ(s.client.server_requests()[0]["params"]["path"], w.project() + "/.env");
  decision = "allow";
  r = s.client.call("read_file", {{"path", ".env"}});
  EXPECT_EQ(r["result"]["content"], "TOKEN=1\n") << r.dump();
}

// PROT-6, SRV-4: a write the user approved through the file tools while a command runs is left
// alone by that command's aftercare; what the command itself plants next to it is moved aside.
TEST(Serve, ApprovedFileToolWriteSurvivesAConcurrentCommandsAftercare) {  // PROT-6, SRV-4
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  s.client.on_request([&](const json&) { return RpcClient::Answer{{{"decision", "allow"}}}; });
  json running =
      s.client.start("exec", {{"command",
                               "sleep 1.5; mkdir -p .vscode; echo planted > .vscode/tasks.json; "
                               "echo planted > AGENTS.md"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  json wr = s.client.call("write_file", {{"path", ".envrc"}, {"content", "approved\n"}});
  ASSERT_TRUE(wr.contains("result")) << wr.dump();
  wr = s.client.call("write_file", {{"path", ".vscode/settings.json"}, {"content", "{}\n"}});
  ASSERT_TRUE(wr.contains("result")) << wr.dump();
  json r = s.client.wait(running);
  ASSERT_TRUE(r.contains("result")) << r.dump();
  // Only the very files written: what the command planted beside them is moved aside.
  EXPECT_EQ(r["result"]["quarantined"].size(), 2u) << r.dump();
  EXPECT_EQ(w.read(".envrc"), "approved\n");
  EXPECT_EQ(w.read(".vscode/settings.json"), "{}\n");
  EXPECT_FALSE(w.exists(".vscode/tasks.json")) << r.dump();
  EXPECT_FALSE(w.exists("AGENTS.md")) << r.dump();
}

TEST(Serve, TwoExecsInFlightOverlap) {  // SRV-4
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  s.exec({{"command", "true"}});  // the probe and first-command costs are paid here
  auto t0 = steady_clock::now();
  json a = s.client.start("exec", {{"command", "sleep 1; echo a"}});
  json b = s.client.start("exec", {{"command", "sleep 1; echo b"}});
  json rb = s.client.wait(b);
  json ra = s.client.wait(a);
  auto took = steady_clock::now() - t0;
  EXPECT_EQ(ra["result"]["stdout"], "a\n") << ra.dump();
  EXPECT_EQ(rb["result"]["stdout"], "b\n") << rb.dump();
  EXPECT_LT(took, milliseconds(1800)) << "the two execs did not overlap";
  EXPECT_GE(took, milliseconds(1000));
}

TEST(Serve, ManyExecsInFlightInOneSessionNeverHoldIt) {  // SRV-4, SES-2
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  // Each command's leftover record comes and goes while the others sweep the folder.
  std::vector<json> ids;
  int done = 0, failed = 0;
  std::string first_failure;
  for (int i = 0; i < 300; ++i) {
    ids.push_back(s.client.start("exec", {{"argv", {"true"}}}));
    if (ids.size() - done >= 3) {
      json r = s.client.wait(ids[done++]);
      if (!r.contains("result") && failed++ == 0) first_failure = r.dump();
    }
  }
  while (done < static_cast<int>(ids.size())) {
    json r = s.client.wait(ids[done++]);
    if (!r.contains("result") && failed++ == 0) first_failure = r.dump();
  }
  EXPECT_EQ(failed, 0) << first_failure;
}

TEST(Serve, AnotherCommandsProcessesAreNotNamedAsLeftRunning) {  // NET-4, SRV-4
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  s.client.on_request([](const json&) { return RpcClient::Answer{{{"decision", "allow"}}}; });
  // While the unconfined command runs, sandboxed ones start and end beside it: their bwrap is
  // a child of the same cordon, and must not be taken for a process the unconfined one left.
  json outside = s.client.start("exec", {{"command", "sleep 1.5"}, {"outside_sandbox", true}});
  std::vector<json> inside;
  for (int i = 0; i < 6; ++i) {
    inside.push_back(s.client.start("exec", {{"command", "sleep 2"}}));
    std::this_thread::sleep_for(milliseconds(100));
  }
  json r = s.client.wait(outside);
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_FALSE(r["result"].contains("processes_left")) << r.dump();
  EXPECT_FALSE(has(r["result"]["notes"].dump(), "still running")) << r.dump();
  for (const auto& id : inside) EXPECT_EQ(s.client.wait(id)["result"]["exit_code"], 0);
  // A process the unconfined command really leaves behind is still named.
  r = s.exec(
      {{"command", "setsid sleep 3133 >/dev/null 2>&1 < /dev/null & sleep 0.5; echo started"},
       {"outside_sandbox", true}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_TRUE(r["result"].contains("processes_left")) << r.dump();
  w.host({"/bin/sh", "-c", "pkill -f 'sleep 313[3]' || true"});
}

// The client goes away while a command runs: the command is ended, its aftercare is done (a
// protected file it planted is moved aside, PROT-6), its leftover record removed, and the
// server exits cleanly.
void ends_cleanly(bool by_signal) {
  World w;
  Served s(w);
  // A sleep no other process on the machine has (other tests may sleep 60 at the same time).
  const std::string mark = unique_sleep();
  json id = s.client.start("exec", {{"command", "echo 'export X=1' > .envrc; sleep " + mark}});
  for (int i = 0; i < 400 && !w.exists(".envrc"); ++i)
    std::this_thread::sleep_for(milliseconds(25));
  ASSERT_TRUE(w.exists(".envrc")) << s.client.stderr_text();
  auto t0 = steady_clock::now();
  if (by_signal)
    s.client.signal(SIGTERM);
  else
    s.client.close_stdin();
  EXPECT_EQ(s.client.wait_exit(std::chrono::seconds(20)), 0) << s.client.stderr_text();
  EXPECT_LT(steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_FALSE(w.exists(".envrc"));  // moved aside
  Proc found = w.host({"/bin/sh", "-c", "ls -a | grep -c cordon-quarantined"});
  EXPECT_EQ(found.out, "1\n");
  EXPECT_EQ(sleeping(mark), 0);
  Proc leftovers =
      w.host({"/bin/sh", "-c",
              "find " + w.home() + "/.local/state/cordon/leftovers -type f 2>/dev/null | wc -l"});
  EXPECT_EQ(leftovers.out, "0\n");
}

TEST(Serve, EndOfInputMidExecEndsTheCommandAndDoesItsAftercare) {  // SRV-3, PROT-6
  REQUIRE_SANDBOX();
  ends_cleanly(false);
}

TEST(Serve, SigtermMidExecEndsTheCommandAndDoesItsAftercare) {
  REQUIRE_SANDBOX();
  ends_cleanly(true);
}

TEST(Serve, CancelEndsOneCommand) {
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  json id = s.client.start("exec", {{"command", "sleep 60"}});
  std::this_thread::sleep_for(milliseconds(300));
  json c = s.client.call("cancel", {{"id", id}});
  EXPECT_EQ(c["result"]["canceled"], true) << c.dump();
  json r = s.client.wait(id, std::chrono::seconds(20));
  EXPECT_EQ(r["result"]["canceled"], true) << r.dump();
  EXPECT_EQ(r["result"]["exit_code"], 130);
}

TEST(Serve, LastingSessionResume) {  // SES-1, SES-3
  REQUIRE_SANDBOX();
  World w;
  {
    Served s(w, {{"session", "00000000000a9e01"}});
    ASSERT_EQ(s.init["result"]["session"], "00000000000a9e01") << s.init.dump();
    s.exec({{"command", "echo kept > /tmp/t"}});
    s.client.call("shutdown");
  }
  Served again(w, {{"session", "00000000000a9e01"}, {"resume", true}});
  ASSERT_TRUE(again.init.contains("result")) << again.init.dump();
  json r = again.exec({{"command", "cat /tmp/t"}});
  EXPECT_EQ(r["result"]["stdout"], "kept\n");  // FS-3: the session's /tmp survived
  json missing =
      RpcClient({"serve"}, w.env, w.project())
          .call("initialize", {{"project", w.project()}, {"session", "nope"}, {"resume", true}});
  EXPECT_EQ(reason(missing), "invalid") << missing.dump();
}

}  // namespace
}  // namespace cordon::it
