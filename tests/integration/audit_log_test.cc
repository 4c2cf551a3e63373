// The audit log (AUD-1): every command of a session in `<data>/audit/<session>.jsonl`, with who
// let it run and how it ended, never a stripped variable's value, a hash chain that
// `cordon log verify` checks, and hidden from the session's own commands.
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

using nlohmann::json;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A token-shaped value, assembled so that this file does not itself hold one.
std::string fake_token() { return "ghp_" + std::string("Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa12"); }

std::string audit_dir(const World& w) { return w.home() + "/.local/share/cordon/audit"; }
std::string log_path(const World& w, const std::string& s) {
  return audit_dir(w) + "/" + s + ".jsonl";
}

std::string start_session(World& w) {
  Proc r = w.cordon({"session", "start"});
  EXPECT_EQ(r.status, 0) << r.err;
  std::string id = r.out.substr(0, r.out.find_first_of(" \n"));
  EXPECT_EQ(id.size(), 16u) << r.out;
  return id;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

void write_lines(const std::string& path, const std::vector<std::string>& ls) {
  std::ofstream f(path, std::ios::trunc);
  for (const auto& l : ls) f << l << "\n";
}

// A session that ran two commands: its id.
std::string session_with_commands(World& w) {
  std::string s = start_session(w);
  EXPECT_EQ(w.cordon({"run", "--session", s, "--", "echo", "one"}).status, 0);
  EXPECT_EQ(w.cordon({"run", "--session", s, "--", "sh", "-c", "exit 3"}).status, 3);
  return s;
}

TEST(AuditLog, ACommandAppearsWithItsArgvDecisionAndExit) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  std::string s = start_session(w);
  Proc r = w.cordon({"run", "--session", s, "--", "sh", "-c", "echo hello; exit 4"});
  ASSERT_EQ(r.status, 4) << r.err;
  auto ls = lines(w.read(log_path(w, s)));
  ASSERT_EQ(ls.size(), 2u) << w.read(log_path(w, s));
  json start = json::parse(ls[0]), end = json::parse(ls[1]);
  EXPECT_EQ(start["event"], "command_start");
  EXPECT_EQ(start["argv"], json({"sh", "-c", "echo hello; exit 4"}));
  EXPECT_EQ(start["mode"], "on");
  EXPECT_EQ(start["runner"], "sandbox");
  EXPECT_EQ(start["decision"]["allowed"], true);
  EXPECT_EQ(start["decision"]["by"], "sandbox");
  EXPECT_EQ(start["session"], s);
  EXPECT_EQ(end["event"], "command_end");
  EXPECT_EQ(end["command"], start["command"]);
  EXPECT_EQ(end["exit"], 4);
  EXPECT_EQ(end["ran"], true);
  // Readable, and as stored.
  Proc shown = w.cordon({"log", "--session", s});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_TRUE(has(shown.out, "command_start")) << shown.out;
  EXPECT_TRUE(has(shown.out, "allowed by sandbox")) << shown.out;
  EXPECT_TRUE(has(shown.out, "exit 4")) << shown.out;
  Proc js = w.cordon({"log", "--session", s, "--json"});
  EXPECT_EQ(lines(js.out).size(), 2u) << js.out;
  Proc later = w.cordon({"log", "--session", s, "--since", "2999-01-01"});
  EXPECT_EQ(later.status, 0) << later.err;
  EXPECT_EQ(later.out, "");
}

TEST(AuditLog, ARefusedCommandAppearsWithWhoRefusedIt) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  std::string s = start_session(w);
  // A denied command (CMD-4): refused before anything starts.
  Proc r = w.cordon({"run", "--session", s, "--", "shutdown", "-h", "now"});
  EXPECT_EQ(r.status, 125) << r.err;
  std::string text = w.read(log_path(w, s));
  auto ls = lines(text);
  ASSERT_EQ(ls.size(), 2u) << text;
  json start = json::parse(ls[0]), end = json::parse(ls[1]);
  EXPECT_EQ(start["decision"]["allowed"], false) << ls[0];
  EXPECT_FALSE(start["decision"]["by"].get<std::string>().empty()) << ls[0];
  EXPECT_TRUE(start["decision"].contains("reason")) << ls[0];
  EXPECT_EQ(end["ran"], false);
  EXPECT_EQ(end["exit"], 125);
}

TEST(AuditLog, AWayOutTypedByThePersonIsLogged) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  std::string s = start_session(w);
  Proc r = w.cordon({"run", "--session", s, "--network", "--", "true"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto ls = lines(w.read(log_path(w, s)));
  ASSERT_EQ(ls.size(), 3u) << w.read(log_path(w, s));
  json start = json::parse(ls[0]), way = json::parse(ls[1]);
  EXPECT_EQ(start["network"], true);
  EXPECT_EQ(start["decision"]["by"], "command-line");
  EXPECT_EQ(way["event"], "way_out");
  EXPECT_EQ(way["way"], "network");
  EXPECT_EQ(way["by"], "command-line");
  EXPECT_EQ(way["command"], start["command"]);
}

TEST(AuditLog, AStrippedVariablesValueNeverAppears) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  const std::string token = fake_token();
  w.env["GITHUB_TOKEN"] = token;
  std::string s = start_session(w);
  w.cordon({"run", "--session", s, "--", "sh", "-c", "echo $GITHUB_TOKEN " + token});
  w.cordon({"run", "--session", s, "-c", "echo " + token + " >/dev/null; echo $GITHUB_TOKEN"});
  w.cordon({"run", "--session", s, "--", "echo", token, "x" + token});
  std::string text = w.read(log_path(w, s));
  EXPECT_EQ(lines(text).size(), 6u) << text;
  EXPECT_FALSE(has(text, token)) << text;
  EXPECT_FALSE(has(text, token.substr(4))) << text;
  EXPECT_TRUE(has(text, "[value of $GITHUB_TOKEN]")) << text;
  Proc shown = w.cordon({"log", "--session", s});
  EXPECT_FALSE(has(shown.out, token)) << shown.out;
}

TEST(AuditLog, AnUntouchedLogVerifies) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  std::string s = session_with_commands(w);
  Proc v = w.cordon({"log", "verify", "--session", s});
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_TRUE(has(v.out, "intact: 4 events")) << v.out;
}

TEST(AuditLog, AnEditedLineIsFoundAndNamed) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  std::string s = session_with_commands(w);
  auto ls = lines(w.read(log_path(w, s)));
  ASSERT_EQ(ls.size(), 4u);
  size_t at = ls[1].find("\"exit\":0");
  ASSERT_NE(at, std::string::npos) << ls[1];
  ls[1].replace(at, 8, "\"exit\":1");
  write_lines(log_path(w, s), ls);
  Proc v = w.cordon({"log", "verify", "--session", s});
  EXPECT_EQ(v.status, 1) << v.out;
  EXPECT_TRUE(has(v.err, s + ".jsonl line 2 was edited")) << v.err;
}

TEST(AuditLog, ADeletedLineIsFoundAndNamed) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  std::string s = session_with_commands(w);
  auto ls = lines(w.read(log_path(w, s)));
  ASSERT_EQ(ls.size(), 4u);
  ls.erase(ls.begin() + 1);
  write_lines(log_path(w, s), ls);
  Proc v = w.cordon({"log", "verify", "--session", s});
  EXPECT_EQ(v.status, 1) << v.out;
  EXPECT_TRUE(has(v.err, "missing before")) << v.err;
  EXPECT_TRUE(has(v.err, s + ".jsonl line 2")) << v.err;
}

TEST(AuditLog, ATruncatedTailIsFound) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  std::string s = session_with_commands(w);
  auto ls = lines(w.read(log_path(w, s)));
  ASSERT_EQ(ls.size(), 4u);
  ls.resize(2);
  write_lines(log_path(w, s), ls);
  Proc v = w.cordon({"log", "verify", "--session", s});
  EXPECT_EQ(v.status, 1) << v.out;
  EXPECT_TRUE(has(v.err, "truncated")) << v.err;
  // Cut inside the last line.
  std::string text = w.read(log_path(w, s));
  std::ofstream(log_path(w, s), std::ios::trunc) << text.substr(0, text.size() - 20);
  v = w.cordon({"log", "verify", "--session", s});
  EXPECT_EQ(v.status, 1) << v.out;
  EXPECT_TRUE(has(v.err, s + ".jsonl line 2 is cut off")) << v.err;
}

TEST(AuditLog, TheChainGoesOnAcrossRotatedFiles) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  w.env["CORDON_AUDIT_ROTATE"] = "1K";
  std::string s = start_session(w);
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(w.cordon({"run", "--session", s, "--", "echo", std::to_string(i)}).status, 0);
  ASSERT_TRUE(w.exists(audit_dir(w) + "/" + s + ".1.jsonl"));
  ASSERT_TRUE(w.exists(audit_dir(w) + "/" + s + ".2.jsonl"));
  Proc v = w.cordon({"log", "verify"});  // the session that wrote last
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_TRUE(has(v.out, "intact: 8 events")) << v.out;
  Proc shown = w.cordon({"log"});
  EXPECT_EQ(lines(shown.out).size(), 8u) << shown.out;
  // A rotated file removed whole breaks the chain where the next one starts.
  ASSERT_EQ(unlink((audit_dir(w) + "/" + s + ".1.jsonl").c_str()), 0);
  v = w.cordon({"log", "verify", "--session", s});
  EXPECT_EQ(v.status, 1) << v.out;
  EXPECT_TRUE(has(v.err, "were deleted")) << v.err;
  EXPECT_TRUE(has(v.err, s + ".2.jsonl line 1")) << v.err;
}

// Every event of a session in the log, in order, as JSON.
std::vector<json> events(const World& w, const std::string& s) {
  std::vector<json> out;
  for (const auto& l : lines(w.read(log_path(w, s)))) out.push_back(json::parse(l));
  return out;
}

std::vector<json> of_kind(const std::vector<json>& es, const std::string& kind) {
  std::vector<json> out;
  for (const auto& e : es)
    if (e["event"] == kind) out.push_back(e);
  return out;
}

TEST(AuditLog, APersonsAnswersQuarantinesAndFileToolQuestionsAreLogged) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  w.write(".env", "TOKEN=1\n");
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  const std::string s = init["result"]["session"];
  std::string decision = "allow";
  client.on_request([&](const json&) { return RpcClient::Answer{{{"decision", decision}}}; });
  json r = client.call("exec", {{"command", "true"}, {"network", true}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  r = client.call("exec", {{"command", "echo 'export X=1' > .envrc"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  decision = "deny";
  r = client.call("read_file", {{"path", ".env"}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  std::vector<json> es = events(w, s);
  auto starts = of_kind(es, "command_start");
  ASSERT_EQ(starts.size(), 2u) << w.read(log_path(w, s));
  EXPECT_EQ(starts[0]["decision"]["by"], "user") << starts[0].dump();
  EXPECT_EQ(starts[0]["decision"]["answers"][0]["asked"], "network") << starts[0].dump();
  auto ways = of_kind(es, "way_out");
  ASSERT_EQ(ways.size(), 1u);
  EXPECT_EQ(ways[0]["by"], "user");
  auto moved = of_kind(es, "quarantine");
  ASSERT_EQ(moved.size(), 1u) << w.read(log_path(w, s));
  EXPECT_EQ(moved[0]["from"], w.project() + "/.envrc");
  EXPECT_EQ(moved[0]["command"], starts[1]["command"]);
  auto reads = of_kind(es, "file_read_credential");
  ASSERT_EQ(reads.size(), 1u) << w.read(log_path(w, s));
  EXPECT_EQ(reads[0]["path"], w.project() + "/.env");
  EXPECT_EQ(reads[0]["allowed"], false);
  EXPECT_EQ(reads[0]["by"], "user");
  EXPECT_EQ(w.cordon({"log", "verify", "--session", s}).status, 0);
}

TEST(AuditLog, AHostAskedAboutWhileACommandRanIsLogged) {  // AUD-1, NET-10
  REQUIRE_SANDBOX();
  World w;
  w.config("[network]\nallow = []\nunknown = \"ask\"\n");
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  const std::string s = init["result"]["session"];
  client.on_request([&](const json&) { return RpcClient::Answer{{{"decision", "deny"}}}; });
  json r =
      client.call("exec", {{"argv",
                            {"/usr/bin/python3", "-c",
                             "import urllib.request\ntry:\n urllib.request.urlopen("
                             "'https://blocked.invalid/', timeout=20)\nexcept Exception as e:\n "
                             "print(e)\n"}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  std::vector<json> es = events(w, s);
  auto hosts = of_kind(es, "network_host");
  ASSERT_EQ(hosts.size(), 1u) << w.read(log_path(w, s)) << r.dump();
  EXPECT_EQ(hosts[0]["host"], "blocked.invalid:443");
  EXPECT_EQ(hosts[0]["allowed"], false);
  EXPECT_EQ(hosts[0]["by"], "user");
  auto ends = of_kind(es, "command_end");
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(hosts[0]["command"], ends[0]["command"]);
  ASSERT_TRUE(ends[0].contains("connections")) << ends[0].dump();
  EXPECT_EQ(ends[0]["connections"][0]["host"], "blocked.invalid:443");
  EXPECT_EQ(ends[0]["connections"][0]["allowed"], false);
}

TEST(AuditLog, SeveralProcessesOfOneSessionWriteOneChain) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  w.env["CORDON_AUDIT_ROTATE"] = "2K";
  std::string s = start_session(w);
  std::vector<std::thread> runners;
  for (int t = 0; t < 3; ++t)
    runners.emplace_back([&w, s] {
      for (int i = 0; i < 4; ++i) w.cordon({"run", "--session", s, "--", "true"});
    });
  for (auto& r : runners) r.join();
  Proc v = w.cordon({"log", "verify", "--session", s});
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_TRUE(has(v.out, "intact: 24 events")) << v.out;
}

TEST(AuditLog, TheLogIsHiddenFromCommands) {  // AUD-1
  REQUIRE_SANDBOX();
  World w;
  std::string s = session_with_commands(w);
  const std::string log = log_path(w, s), dir = audit_dir(w);
  ASSERT_TRUE(w.exists(log));
  const std::string before = w.read(log);
  Proc r = w.cordon({"run", "--session", s, "--", "sh", "-c",
                     "cat '" + log + "'; ls '" + dir + "'; echo forged >> '" + log +
                         "'; echo x > '" + dir + "/new.jsonl'; echo done"});
  EXPECT_TRUE(has(r.out, "done")) << r.out << r.err;
  EXPECT_FALSE(has(r.out, "command_start")) << r.out;
  EXPECT_FALSE(has(r.out, s + ".jsonl")) << r.out;
  EXPECT_FALSE(w.exists(dir + "/new.jsonl"));
  const std::string after = w.read(log);
  EXPECT_EQ(after.substr(0, before.size()), before);
  for (const auto& l : lines(after)) EXPECT_NE(l, "forged");  // (the script itself is logged)
  EXPECT_EQ(w.cordon({"log", "verify", "--session", s}).status, 0);
  // The folder and its files are the user's alone.
  EXPECT_EQ(w.host({"stat", "-c", "%a", dir}).out, "700\n");
  EXPECT_EQ(w.host({"stat", "-c", "%a", log}).out, "600\n");
}

TEST(AuditLog, ABackgroundJobIsMarkedAndItsInputAndKillAreLogged) {  // AUD-1, JOB-1
  REQUIRE_SANDBOX();
  World w;
  w.env["CORDON_KEEPER_IDLE"] = "30s";  // a test that fails early leaves no keeper for long
  std::string s = start_session(w);
  Proc r = w.cordon({"run", "--session", s, "--background", "-c", "cat"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string job = r.out.substr(0, r.out.find('\n'));
  ASSERT_FALSE(job.empty()) << r.out;
  const std::string typed = "a secret answer";  // `cordon job write` adds the newline
  EXPECT_EQ(w.cordon({"job", "write", "--session", s, job, typed}).status, 0);
  EXPECT_EQ(w.cordon({"job", "kill", "--session", s, job}).status, 0);
  w.cordon({"job", "wait", "--session", s, job, "--timeout", "20s"});
  Proc js = w.cordon({"log", "--session", s, "--json"});
  ASSERT_EQ(js.status, 0) << js.err;
  w.cordon({"session", "end", s});
  EXPECT_FALSE(has(js.out, "a secret answer")) << js.out;  // never the bytes written
  std::map<std::string, json> seen;
  for (const auto& l : lines(js.out)) {
    json e = json::parse(l);
    seen[e["event"]] = e;
  }
  ASSERT_TRUE(seen.count("command_start")) << js.out;
  EXPECT_EQ(seen["command_start"]["job"], job) << js.out;
  ASSERT_TRUE(seen.count("command_end")) << js.out;
  EXPECT_EQ(seen["command_end"]["job"], job) << js.out;
  EXPECT_EQ(seen["command_end"]["command"], seen["command_start"]["command"]);
  ASSERT_TRUE(seen.count("job_input")) << js.out;
  EXPECT_EQ(seen["job_input"]["job"], job);
  EXPECT_EQ(seen["job_input"]["bytes"], typed.size() + 1);
  ASSERT_TRUE(seen.count("job_signal")) << js.out;
  EXPECT_EQ(seen["job_signal"]["job"], job);
  EXPECT_EQ(seen["job_signal"]["signal"], 9);
  // Readable too, and the chain holds.
  Proc shown = w.cordon({"log", "--session", s});
  EXPECT_TRUE(has(shown.out, "(job " + job + ")")) << shown.out;
  EXPECT_TRUE(has(shown.out, "signal 9 sent")) << shown.out;
  Proc v = w.cordon({"log", "verify", "--session", s});
  EXPECT_EQ(v.status, 0) << v.out << v.err;
}

}  // namespace
}  // namespace cordon::it
