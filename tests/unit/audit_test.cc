// AUD-1: the audit log's events, their redaction, and the hash chain with its check.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "audit/audit_chain.h"
#include "audit/audit_event.h"
#include "audit/audit_text.h"
#include "audit/audit_time.h"
#include "core/sha256.h"

namespace cordon {
namespace {

using nlohmann::json;

const AuditCommon kCommon{"0123456789abcdef", "2026-12-06T04:22:24.123Z"};

// A log of n events, as written.
std::string log_of(int n, ChainHead& head) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    std::string line = chain_line(json{{"event", "resume"}, {"i", i}}, head);
    head = chain_next(head, line);
    text += line + "\n";
  }
  return text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

TEST(AuditChain, LinesCarryTheirNumberAndThePreviousHash) {  // AUD-1
  ChainHead h;
  std::string first = chain_line(json{{"event", "x"}}, h);
  json j = json::parse(first);
  EXPECT_EQ(j["seq"], 1);
  EXPECT_EQ(j["prev"], std::string(kAuditGenesis));
  ChainHead h1 = chain_next(h, first);
  EXPECT_EQ(h1.seq, 1u);
  EXPECT_EQ(h1.hash, sha256_hex(first));
  json k = json::parse(chain_line(json{{"event", "y"}}, h1));
  EXPECT_EQ(k["seq"], 2);
  EXPECT_EQ(k["prev"], sha256_hex(first));
}

TEST(AuditChain, AnUntouchedLogVerifies) {  // AUD-1
  ChainHead h;
  std::string text = log_of(5, h);
  VerifyReport r = verify_chain({{"s.jsonl", text}}, h);
  EXPECT_TRUE(r.ok()) << r.problem;
  EXPECT_EQ(r.lines, 5u);
  EXPECT_TRUE(verify_chain({}, std::nullopt).ok());
}

TEST(AuditChain, AnEditedLineIsNamed) {  // AUD-1
  ChainHead h;
  auto lines = lines_of(log_of(5, h));
  lines[2].replace(lines[2].find("\"i\":2"), 5, "\"i\":7");
  VerifyReport r = verify_chain({{"s.jsonl", joined(lines)}}, h);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.problem.find("s.jsonl line 3 was edited"), std::string::npos) << r.problem;
}

TEST(AuditChain, AnEditedLastLineIsFoundAgainstTheRecordedEnd) {  // AUD-1
  ChainHead h;
  auto lines = lines_of(log_of(3, h));
  lines[2].replace(lines[2].find("\"i\":2"), 5, "\"i\":9");
  VerifyReport r = verify_chain({{"s.jsonl", joined(lines)}}, h);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.problem.find("s.jsonl line 3 was edited"), std::string::npos) << r.problem;
}

TEST(AuditChain, ADeletedLineIsNamed) {  // AUD-1
  ChainHead h;
  auto lines = lines_of(log_of(5, h));
  lines.erase(lines.begin() + 1);
  VerifyReport r = verify_chain({{"s.jsonl", joined(lines)}}, h);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.problem.find("missing before s.jsonl line 2"), std::string::npos) << r.problem;
  EXPECT_NE(r.problem.find("events 2 to 2"), std::string::npos) << r.problem;
}

TEST(AuditChain, ATruncatedTailIsFound) {  // AUD-1
  ChainHead h;
  auto lines = lines_of(log_of(5, h));
  lines.resize(3);
  VerifyReport r = verify_chain({{"s.jsonl", joined(lines)}}, h);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.problem.find("ends at event 3"), std::string::npos) << r.problem;
  // Cut inside a line.
  std::string text = joined(lines_of(log_of(2, h = ChainHead{})));
  r = verify_chain({{"s.jsonl", text.substr(0, text.size() - 10)}}, h);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.problem.find("s.jsonl line 2 is cut off"), std::string::npos) << r.problem;
}

TEST(AuditChain, TheChainGoesOnAcrossRotatedFiles) {  // AUD-1
  ChainHead h;
  std::string a = log_of(2, h);
  std::string b = log_of(2, h);
  EXPECT_TRUE(verify_chain({{"s.1.jsonl", a}, {"s.jsonl", b}}, h).ok());
  // A rotated file removed whole.
  VerifyReport r = verify_chain({{"s.jsonl", b}}, h);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.problem.find("events 1 to 2 were deleted"), std::string::npos) << r.problem;
}

TEST(AuditChain, TheHeadIsReadFromTheTail) {  // AUD-1
  ChainHead h;
  std::string text = log_of(3, h);
  EXPECT_EQ(head_of_tail(text), h);
  EXPECT_EQ(head_of_tail(text.substr(text.find('\n') + 1)), h);
  EXPECT_FALSE(head_of_tail(text.substr(0, text.size() - 1)));
  EXPECT_FALSE(head_of_tail(""));
  EXPECT_EQ(parse_head(head_text(h)), h);
  EXPECT_FALSE(parse_head("nonsense"));
}

TEST(AuditEvent, AStrippedValueNeverAppears) {  // AUD-1
  const std::string token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
  AuditSecrets s{{{"GITHUB_TOKEN", token}, {"SHORT", "abc"}}};
  CommandStart st;
  st.command = "1-1";
  st.script = "curl -H 'Authorization: " + token + "' x; echo abc";
  st.cwd = "/p/" + token;
  st.decision.reason = "refused: " + token;
  std::string text = command_start_event(kCommon, st, s).dump();
  EXPECT_EQ(text.find(token), std::string::npos) << text;
  EXPECT_NE(text.find("[value of $GITHUB_TOKEN]"), std::string::npos) << text;
  EXPECT_NE(text.find("echo abc"), std::string::npos) << "short values are left alone";
  st.script.reset();
  st.argv = {"echo", token, "x" + token + token};
  text = command_start_event(kCommon, st, s).dump();
  EXPECT_EQ(text.find(token), std::string::npos) << text;
  CommandEnd e;
  e.refusal = token;
  EXPECT_EQ(command_end_event(kCommon, e, s).dump().find(token), std::string::npos);
  EXPECT_EQ(resume_event(kCommon, "found " + token, s).dump().find(token), std::string::npos);
}

TEST(AuditEvent, ALongScriptIsStoredByHashAndItsStart) {  // AUD-1
  CommandStart st;
  st.script = std::string(10000, 'a');
  json e = command_start_event(kCommon, st, {});
  ASSERT_TRUE(e["script"].is_object());
  EXPECT_EQ(e["script"]["sha256"], sha256_hex(*st.script));
  EXPECT_EQ(e["script"]["bytes"], 10000);
  EXPECT_EQ(e["script"]["start"].get<std::string>().size(), kAuditTextLimit);
  st.script.reset();
  st.argv = {"echo", std::string(5000, 'b')};
  e = command_start_event(kCommon, st, {});
  EXPECT_TRUE(e["argv"].is_object());
  st.argv = {"echo", "hi"};
  e = command_start_event(kCommon, st, {});
  EXPECT_EQ(e["argv"], json({"echo", "hi"}));
}

TEST(AuditEvent, TheDecisionSaysWhoMadeIt) {  // AUD-1
  CommandStart st;
  st.command = "7-2";
  st.argv = {"npm", "install"};
  st.network = true;
  st.decision =
      AuditDecision{true, "judge", "", {AuditAnswer{"network", true, "judge", 0.1, false}}};
  json e = command_start_event(kCommon, st, {});
  EXPECT_EQ(e["event"], "command_start");
  EXPECT_EQ(e["session"], kCommon.session);
  EXPECT_EQ(e["decision"]["by"], "judge");
  EXPECT_EQ(e["decision"]["answers"][0]["risk"], 0.1);
  EXPECT_EQ(e["network"], true);
  EXPECT_NE(readable_event(e).find("allowed by judge (risk 0.1)"), std::string::npos)
      << readable_event(e);
  json w = way_out_event(kCommon, "7-2", "network", "judge");
  EXPECT_EQ(w["way"], "network");
  json q = quarantine_event(kCommon, "7-2", "/p/.envrc", "/p/.envrc.cordon-quarantined-1", {});
  EXPECT_EQ(q["from"], "/p/.envrc");
  CommandEnd end;
  end.command = "7-2";
  end.exit_code = 3;
  end.ran = true;
  end.connections = {{"registry.npmjs.org:443", true}};
  json ce = command_end_event(kCommon, end, {});
  EXPECT_EQ(ce["exit"], 3);
  EXPECT_EQ(ce["connections"][0]["host"], "registry.npmjs.org:443");
}

TEST(AuditEvent, AFileToolsQuestionIsNamedByWhatItAsked) {  // AUD-1
  json e = file_tool_event(kCommon, "/p/.env",
                           AuditAnswer{"credential_read", false, "away", {}, false}, {});
  EXPECT_EQ(e["event"], "file_read_credential");
  EXPECT_EQ(e["path"], "/p/.env");
  EXPECT_EQ(e["allowed"], false);
  EXPECT_EQ(e["by"], "away");
  EXPECT_NE(readable_event(e).find("/p/.env refused by away"), std::string::npos);
  e = file_tool_event(kCommon, "/p/.envrc", AuditAnswer{"protected_write", true, "user", {}, false},
                      {});
  EXPECT_EQ(e["event"], "file_write_protected");
}

TEST(AuditEvent, AHostAskedAboutWhileTheCommandRanIsNamed) {  // AUD-1, NET-10
  json e = host_event(kCommon, "9-1", "example.com:443",
                      AuditAnswer{"network_host", true, "judge", 0.05, false});
  EXPECT_EQ(e["event"], "network_host");
  EXPECT_EQ(e["host"], "example.com:443");
  EXPECT_EQ(e["risk"], 0.05);
  EXPECT_NE(readable_event(e).find("#9-1 example.com:443 allowed by judge"), std::string::npos)
      << readable_event(e);
}

TEST(AuditEvent, ABackgroundJobIsMarkedAndItsInputIsNeverKept) {  // AUD-1
  CommandStart st;
  st.command = "9-2";
  st.job = "3";
  st.argv = {"cat"};
  json s = command_start_event(kCommon, st, {});
  EXPECT_EQ(s["job"], "3");
  EXPECT_NE(readable_event(s).find("#9-2 (job 3) cat"), std::string::npos) << readable_event(s);
  CommandEnd en;
  en.command = "9-2";
  en.job = "3";
  EXPECT_EQ(command_end_event(kCommon, en, {})["job"], "3");
  st.job.clear();  // an exec: no job field at all
  EXPECT_FALSE(command_start_event(kCommon, st, {}).contains("job"));
  json in = job_input_event(kCommon, "3", 6, true);
  EXPECT_EQ(in["event"], "job_input");
  EXPECT_EQ(in["job"], "3");
  EXPECT_EQ(in["bytes"], 6);
  EXPECT_EQ(in["eof"], true);
  EXPECT_EQ(in.size(), 6u) << in.dump();  // event, time, session, job, bytes, eof: nothing else
  EXPECT_NE(readable_event(in).find("job 3: 6 bytes written to its input, then closed"),
            std::string::npos)
      << readable_event(in);
  json sig = job_signal_event(kCommon, "3", 9);
  EXPECT_EQ(sig["event"], "job_signal");
  EXPECT_EQ(sig["signal"], 9);
  EXPECT_NE(readable_event(sig).find("job 3: signal 9 sent"), std::string::npos);
}

TEST(AuditEvent, TimesAreUtcIso8601) {  // AUD-1
  EXPECT_EQ(iso_time(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(iso_time(1796530944123), "2026-12-06T04:22:24.123Z");
  EXPECT_EQ(parse_iso_time("2026-12-06T04:22:24.123Z"), 1796530944123);
  EXPECT_EQ(parse_iso_time("2026-12-06"), 1796515200000);
  EXPECT_EQ(parse_iso_time("2026-12-06 04:22"), 1796530920000);
  EXPECT_FALSE(parse_iso_time("yesterday"));
  EXPECT_FALSE(parse_iso_time("2026-13-01"));
}

}  // namespace
}  // namespace cordon
