// The approval machine (APR-1..7), its judge parsing and its wire names (SRV-1). Time, the
// person and the judge are fakes: nothing here waits.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "approval/approver.h"
#include "approval/judge.h"
#include "approval/request.h"

namespace cordon {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class FakeClock : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return t_;
  }
  void advance(milliseconds d) {
    std::lock_guard<std::mutex> lock(mu_);
    t_ += d;
  }

 private:
  mutable std::mutex mu_;
  std::chrono::steady_clock::time_point t_{std::chrono::hours(1000)};
};

// One scripted answer: optionally let time pass first (the person takes that long).
struct Scripted {
  PersonAnswer answer;
  milliseconds elapse{0};
};
Scripted allow_once() { return {{Reply::kAllowOnce, ""}}; }
Scripted allow_session() { return {{Reply::kAllowForSession, ""}}; }
Scripted deny() { return {{Reply::kDeny, ""}}; }
// What a real asker does at the deadline: the clock has reached it, and it reports kTimeout.
Scripted no_answer(milliseconds waited = minutes(15)) { return {{Reply::kTimeout, ""}, waited}; }

// Answers from a script and records every question; a question nobody scripted fails the test.
class ScriptedAsker : public Asker {
 public:
  explicit ScriptedAsker(FakeClock& clock) : clock_(clock) {}
  PersonAnswer ask(const Question& q) override {
    questions.push_back(q);
    if (script.empty()) {
      ADD_FAILURE() << "unexpected question: " << describe(q.request);
      return {Reply::kDeny, ""};
    }
    Scripted s = script.front();
    script.pop_front();
    clock_.advance(s.elapse);
    return s.answer;
  }
  std::deque<Scripted> script;
  std::vector<Question> questions;

 private:
  FakeClock& clock_;
};

JudgeVerdict says(JudgeDecision d, double risk) { return JudgeVerdict{d, risk, ""}; }

class ScriptedJudge : public Judge {
 public:
  JudgeVerdict judge(const ApprovalRequest& r) override {
    calls.push_back(r);
    if (script.empty()) {
      ADD_FAILURE() << "unexpected judge call: " << describe(r);
      return JudgeVerdict::failed("unscripted");
    }
    JudgeVerdict v = script.front();
    script.pop_front();
    return v;
  }
  std::deque<JudgeVerdict> script;
  std::vector<ApprovalRequest> calls;
};

ApprovalRequest net(std::string c = "npm install") {
  return make_request(AskKind::kNetwork, std::move(c), std::nullopt, "fetch dependencies");
}
ApprovalRequest outside(std::string c = "docker build .") {
  return make_request(AskKind::kOutsideSandbox, std::move(c), std::nullopt,
                      "needs the docker socket");
}
ApprovalRequest command(std::string c = "make deploy") {
  return make_request(AskKind::kCommand, std::move(c), std::nullopt, "deploy");
}
ApprovalRequest host(std::string hp = "example.org:443", std::string c = "curl example.org") {
  ApprovalRequest r =
      make_request(AskKind::kNetworkHost, std::move(c), std::nullopt, "not in [network] allow");
  r.host = std::move(hp);
  return r;
}
ApprovalRequest cred(std::string p = ".env") {
  return make_request(AskKind::kCredentialRead, std::nullopt, std::move(p),
                      "read the database url");
}
ApprovalRequest write_outside(std::string p = "/etc/hosts") {
  return make_request(AskKind::kWriteOutside, std::nullopt, std::move(p), "add a host");
}
ApprovalRequest protected_write(std::string p = ".git/hooks/pre-commit") {
  return make_request(AskKind::kProtectedWrite, std::nullopt, std::move(p), "install a hook");
}
ApprovalRequest of_kind(AskKind k) {
  switch (k) {
    case AskKind::kNetwork:
      return net();
    case AskKind::kOutsideSandbox:
      return outside();
    case AskKind::kCredentialRead:
      return cred();
    case AskKind::kWriteOutside:
      return write_outside();
    case AskKind::kProtectedWrite:
      return protected_write();
    case AskKind::kCommand:
      return command();
    case AskKind::kNetworkHost:
      return host();
  }
  return command();
}
constexpr AskKind kAllKinds[] = {AskKind::kNetwork,        AskKind::kOutsideSandbox,
                                 AskKind::kCredentialRead, AskKind::kWriteOutside,
                                 AskKind::kProtectedWrite, AskKind::kCommand,
                                 AskKind::kNetworkHost};

ApproverConfig config(ApprovalMode mode, double cutoff = 0.2, double away_cutoff = 0.2) {
  ApproverConfig c;
  c.mode = mode;
  c.cutoff = cutoff;
  c.away_cutoff = away_cutoff;
  c.timeout = minutes(15);
  return c;
}

// A machine with a fake clock, judge and person. Unused scripted answers fail the test.
struct Rig {
  explicit Rig(ApproverConfig c) : approver(std::move(c), clock, &judge, &asker) {}
  ~Rig() {
    EXPECT_TRUE(asker.script.empty()) << asker.script.size() << " scripted answers unused";
    EXPECT_TRUE(judge.script.empty()) << judge.script.size() << " scripted verdicts unused";
  }
  Decision ask(const ApprovalRequest& r) { return approver.ask(r); }
  FakeClock clock;
  ScriptedJudge judge;
  ScriptedAsker asker{clock};
  Approver approver;
};

// ---------------------------------------------------------------------------------------------
// Wire names and the judge's input and output.

TEST(ApprovalRequest, KindNamesAreSrv1) {
  // SRV-1: approval/ask kinds.
  const std::pair<AskKind, const char*> names[] = {
      {AskKind::kNetwork, "network"},
      {AskKind::kOutsideSandbox, "outside_sandbox"},
      {AskKind::kCredentialRead, "credential_read"},
      {AskKind::kWriteOutside, "write_outside"},
      {AskKind::kProtectedWrite, "protected_write"},
      {AskKind::kCommand, "command"},
      {AskKind::kNetworkHost, "network_host"},  // NET-10
  };
  for (const auto& [kind, name] : names) {
    EXPECT_STREQ(to_string(kind), name);
    EXPECT_EQ(parse_ask_kind(name), kind);
  }
  EXPECT_EQ(parse_ask_kind("Network"), std::nullopt);
  EXPECT_EQ(parse_ask_kind("outside-sandbox"), std::nullopt);
  EXPECT_EQ(parse_ask_kind(""), std::nullopt);
}

TEST(ApprovalRequest, AskParamsCarryTheReasonAndOmitAbsentFields) {
  // SRV-1: {kind, command?, path?, reason}
  auto j = to_ask_params(net());
  EXPECT_EQ(j, nlohmann::json::parse(
                   R"({"kind":"network","command":"npm install","reason":"fetch dependencies"})"));
  auto p = to_ask_params(cred());
  EXPECT_EQ(p, nlohmann::json::parse(
                   R"({"kind":"credential_read","path":".env","reason":"read the database url"})"));
}

TEST(ApprovalRequest, NetworkHostNamesTheHostAndTheCommand) {
  // NET-10: the question names host:port and the command.
  auto j = to_ask_params(host("files.example.org:8443", "npm ci"));
  EXPECT_EQ(j, nlohmann::json::parse(R"({"kind":"network_host","command":"npm ci",
      "host":"files.example.org:8443","reason":"not in [network] allow"})"));
  EXPECT_EQ(describe(host("files.example.org:8443", "npm ci")),
            "reaching files.example.org:8443 from `npm ci`");
}

TEST(JudgeInput, IsTheRequestWithoutTheCallersReason) {
  // APR-2: the request as JSON on stdin. The reason is the agent's own plea: withheld.
  std::string in = judge_input(net());
  ASSERT_FALSE(in.empty());
  EXPECT_EQ(in.back(), '\n');
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j, nlohmann::json::parse(R"({"kind":"network","command":"npm install"})"));
  auto w = nlohmann::json::parse(judge_input(write_outside("/etc/hosts")));
  EXPECT_EQ(w, nlohmann::json::parse(R"({"kind":"write_outside","path":"/etc/hosts"})"));
  EXPECT_FALSE(has(judge_input(cred()), "database"));
}

TEST(JudgeInput, InvalidUtf8IsReplacedNotThrown) {
  // APR-2: a command may hold any bytes; the judge still gets valid JSON.
  std::string in;
  ASSERT_NO_THROW(in = judge_input(command("echo \xff\xfe")));
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["kind"], "command");
  EXPECT_TRUE(has(j["command"].get<std::string>(), "echo "));
}

TEST(JudgeOutput, Parsing) {
  // APR-2: {"decision": "allow"|"ask"|"deny", "risk": 0..1}; anything wrong counts as ask.
  struct Case {
    std::string out;
    JudgeDecision decision;
    std::optional<double> risk;  // nullopt: a failed verdict (ask, with a problem)
    std::string problem_part;
  };
  const Case cases[] = {
      {R"({"decision":"allow","risk":0.05})", JudgeDecision::kAllow, 0.05, ""},
      {R"({"decision":"ask","risk":0.5})", JudgeDecision::kAsk, 0.5, ""},
      {R"({"decision":"deny","risk":1})", JudgeDecision::kDeny, 1.0, ""},
      {R"({"decision":"allow","risk":0})", JudgeDecision::kAllow, 0.0, ""},
      {"  \n{\"risk\": 0.1, \"decision\": \"allow\", \"why\": \"reads only\"}\n\n",
       JudgeDecision::kAllow, 0.1, ""},
      {"", JudgeDecision::kAsk, std::nullopt, "nothing"},
      {" \n ", JudgeDecision::kAsk, std::nullopt, "nothing"},
      {"allow", JudgeDecision::kAsk, std::nullopt, "not one JSON object"},
      {"Segmentation fault", JudgeDecision::kAsk, std::nullopt, "not one JSON object"},
      {R"({"decision":"allow","risk":0.1} trailing)", JudgeDecision::kAsk, std::nullopt,
       "not one JSON object"},
      {R"({"decision":"allow","risk":0.1}{"decision":"deny","risk":1})", JudgeDecision::kAsk,
       std::nullopt, "not one JSON object"},
      {R"(thinking... {"decision":"allow","risk":0.1})", JudgeDecision::kAsk, std::nullopt,
       "not one JSON object"},
      {R"([{"decision":"allow","risk":0.1}])", JudgeDecision::kAsk, std::nullopt,
       "not a JSON object"},
      {R"("allow")", JudgeDecision::kAsk, std::nullopt, "not a JSON object"},
      {R"({"risk":0.1})", JudgeDecision::kAsk, std::nullopt, "decision"},
      {R"({"decision":true,"risk":0.1})", JudgeDecision::kAsk, std::nullopt, "decision"},
      {R"({"decision":"ALLOW","risk":0.1})", JudgeDecision::kAsk, std::nullopt, "ALLOW"},
      {R"({"decision":"yes","risk":0.1})", JudgeDecision::kAsk, std::nullopt, "yes"},
      {R"({"decision":"allow"})", JudgeDecision::kAsk, std::nullopt, "risk"},
      {R"({"decision":"allow","risk":"0.1"})", JudgeDecision::kAsk, std::nullopt, "risk"},
      {R"({"decision":"allow","risk":null})", JudgeDecision::kAsk, std::nullopt, "risk"},
      {R"({"decision":"allow","risk":true})", JudgeDecision::kAsk, std::nullopt, "risk"},
      {R"({"decision":"allow","risk":-0.01})", JudgeDecision::kAsk, std::nullopt, "from 0 to 1"},
      {R"({"decision":"allow","risk":1.01})", JudgeDecision::kAsk, std::nullopt, "from 0 to 1"},
      {R"({"decision":"allow","risk":1e400})", JudgeDecision::kAsk, std::nullopt, ""},
      {R"({"decision":"deny"})", JudgeDecision::kAsk, std::nullopt, "risk"},
      {"{\"decision\":\"allow\",\"risk\":0.1,\"note\":\"\xff\"}", JudgeDecision::kAsk, std::nullopt,
       "not one JSON object"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.out);
    JudgeVerdict v = parse_judge_output(c.out);
    EXPECT_EQ(v.decision, c.decision);
    if (c.risk) {
      ASSERT_TRUE(v.risk.has_value());
      EXPECT_DOUBLE_EQ(*v.risk, *c.risk);
      EXPECT_EQ(v.problem, "");
    } else {
      EXPECT_EQ(v.risk, std::nullopt);
      EXPECT_FALSE(v.problem.empty());
      EXPECT_TRUE(has(v.problem, c.problem_part)) << v.problem;
    }
  }
}

TEST(JudgeOutput, HowARunEnded) {
  // APR-2: a judge that cannot start, crashes, times out or prints garbage counts as ask.
  const std::string good = R"({"decision":"allow","risk":0.0})";
  struct Case {
    const char* name;
    JudgeRun run;
    bool answered;
    std::string problem_part;
  };
  auto run = [&](int exit_code, int sig, bool timed_out, std::string out, std::string err = "") {
    JudgeRun r;
    r.exit_code = exit_code;
    r.signal = sig;
    r.timed_out = timed_out;
    r.timeout = milliseconds(30'000);
    r.out = std::move(out);
    r.err = std::move(err);
    return r;
  };
  JudgeRun not_started;
  not_started.start_error = "/opt/judge was not found";
  JudgeRun flooded = run(0, 0, false, good);
  flooded.out_truncated = true;
  const Case cases[] = {
      {"clean", run(0, 0, false, good), true, ""},
      {"not started", not_started, false, "could not start: /opt/judge was not found"},
      {"exit 1 with a good answer", run(1, 0, false, good, "oops\nmodel unreachable\n"), false,
       "exited with status 1 (it said: model unreachable)"},
      {"exit 2 silent", run(2, 0, false, ""), false, "exited with status 2"},
      {"killed", run(-1, 9, false, good), false, "signal 9"},
      {"segfault", run(-1, 11, false, ""), false, "signal 11"},
      {"timed out", run(-1, 9, true, ""), false, "did not answer within 30s"},
      {"garbage", run(0, 0, false, "I think it's fine"), false, "not one JSON object"},
      {"too much", flooded, false, "too much"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    JudgeVerdict v = verdict_from_run(c.run);
    if (c.answered) {
      EXPECT_EQ(v.decision, JudgeDecision::kAllow);
      EXPECT_EQ(v.problem, "");
    } else {
      EXPECT_EQ(v.decision, JudgeDecision::kAsk);
      EXPECT_EQ(v.risk, std::nullopt);
      EXPECT_TRUE(has(v.problem, c.problem_part)) << v.problem;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Modes (APR-1, APR-2, APR-3).

TEST(Approver, ModesTable) {
  // APR-2: manual asks the person; approve-all approves all but outside_sandbox; auto asks the
  // judge. APR-3: outside_sandbox goes to a person in manual and auto (no judge), and
  // approve-all, which assumes nobody is there, refuses it.
  struct Case {
    ApprovalMode mode;
    AskKind kind;
    bool allowed;
    Basis basis;
    bool asks_person;
    bool asks_judge;
  };
  using M = ApprovalMode;
  using K = AskKind;
  const Case cases[] = {
      {M::kManual, K::kNetwork, true, Basis::kUser, true, false},
      {M::kManual, K::kOutsideSandbox, true, Basis::kUser, true, false},
      {M::kManual, K::kCredentialRead, true, Basis::kUser, true, false},
      {M::kManual, K::kWriteOutside, true, Basis::kUser, true, false},
      {M::kManual, K::kProtectedWrite, true, Basis::kUser, true, false},
      {M::kManual, K::kCommand, true, Basis::kUser, true, false},
      {M::kApproveAll, K::kNetwork, true, Basis::kApproveAll, false, false},
      {M::kApproveAll, K::kOutsideSandbox, false, Basis::kApproveAll, false, false},
      {M::kApproveAll, K::kCredentialRead, true, Basis::kApproveAll, false, false},
      {M::kApproveAll, K::kWriteOutside, true, Basis::kApproveAll, false, false},
      {M::kApproveAll, K::kProtectedWrite, true, Basis::kApproveAll, false, false},
      {M::kApproveAll, K::kCommand, true, Basis::kApproveAll, false, false},
      // NET-10: a host beyond the allowlist asks as the network way out does.
      {M::kManual, K::kNetworkHost, true, Basis::kUser, true, false},
      {M::kApproveAll, K::kNetworkHost, true, Basis::kApproveAll, false, false},
      {M::kAuto, K::kNetworkHost, true, Basis::kJudge, false, true},
      {M::kAuto, K::kNetwork, true, Basis::kJudge, false, true},
      {M::kAuto, K::kOutsideSandbox, true, Basis::kUser, true, false},
      {M::kAuto, K::kCredentialRead, true, Basis::kJudge, false, true},
      {M::kAuto, K::kWriteOutside, true, Basis::kJudge, false, true},
      {M::kAuto, K::kProtectedWrite, true, Basis::kJudge, false, true},
      {M::kAuto, K::kCommand, true, Basis::kJudge, false, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(to_string(c.mode)) + " " + to_string(c.kind));
    Rig rig(config(c.mode));
    if (c.asks_person) rig.asker.script.push_back(allow_once());
    if (c.asks_judge) rig.judge.script.push_back(says(JudgeDecision::kAllow, 0.0));
    Decision d = rig.ask(of_kind(c.kind));
    EXPECT_EQ(d.allowed, c.allowed) << d.message;
    EXPECT_EQ(d.basis, c.basis) << to_string(d.basis);
    EXPECT_EQ(rig.asker.questions.size(), c.asks_person ? 1u : 0u);
    EXPECT_EQ(rig.judge.calls.size(), c.asks_judge ? 1u : 0u);
    EXPECT_FALSE(d.end_task);
  }
}

TEST(Approver, ApproveAllApprovesNetworkAndRefusesOutsideSandboxWithCarryOn) {
  // APR-2
  Rig rig(config(ApprovalMode::kApproveAll));
  Decision n = rig.ask(net("curl https://example.com"));
  EXPECT_TRUE(n.allowed);
  EXPECT_EQ(n.basis, Basis::kApproveAll);
  Decision o = rig.ask(outside("sudo apt-get install jq"));
  EXPECT_FALSE(o.allowed);
  EXPECT_EQ(o.basis, Basis::kApproveAll);
  EXPECT_TRUE(has(o.message, "sudo apt-get install jq")) << o.message;
  EXPECT_TRUE(has(o.message, "approve-all")) << o.message;
  EXPECT_TRUE(has(o.message, "Carry on")) << o.message;
  EXPECT_TRUE(has(o.message, "name the skipped step in your final report")) << o.message;
  EXPECT_TRUE(rig.asker.questions.empty());
}

TEST(Approver, OutsideSandboxAsksAPersonForOneCallOnly) {
  // APR-3: in manual and auto, a person decides (never the judge) and a "for this session"
  // answer covers that one call only.
  for (ApprovalMode mode : {ApprovalMode::kManual, ApprovalMode::kAuto}) {
    SCOPED_TRACE(to_string(mode));
    Rig rig(config(mode));
    rig.asker.script = {allow_session(), deny()};
    Decision first = rig.ask(outside());
    EXPECT_TRUE(first.allowed);
    EXPECT_EQ(first.basis, Basis::kUser);
    ASSERT_EQ(rig.asker.questions.size(), 1u);
    EXPECT_FALSE(rig.asker.questions[0].session_grant_offered);
    EXPECT_EQ(rig.approver.state().grants, 0u);
    Decision second = rig.ask(outside());
    EXPECT_EQ(rig.asker.questions.size(), 2u);  // asked again
    EXPECT_FALSE(second.allowed);
    EXPECT_TRUE(rig.judge.calls.empty());
  }
}

TEST(Approver, SessionGrantsCoverTheSameRequestOnly) {
  // APR-3 (grants for the other kinds): a grant covers the same kind, command and path.
  struct Case {
    const char* name;
    ApprovalRequest granted;
    ApprovalRequest later;
    bool covered;
  };
  const Case cases[] = {
      {"same command", command("make deploy"), command("make deploy"), true},
      {"other command", command("make deploy"), command("make clean"), false},
      {"plain grant, networked call", command("npm install"), net("npm install"), false},
      {"network grant, same command", net("npm install"), net("npm install"), true},
      {"network grant, other command", net("npm install"), net("npm publish"), false},
      {"same credential file", cred(".env"), cred(".env"), true},
      {"other credential file", cred(".env"), cred(".env.local"), false},
      {"same outside write", write_outside("/etc/hosts"), write_outside("/etc/hosts"), true},
      {"write grant, protected write", write_outside(".git/config"), protected_write(".git/config"),
       false},
      {"same protected write", protected_write(".envrc"), protected_write(".envrc"), true},
      // NET-10: "for this session" covers the host for every command, and only that host.
      {"same host, other command", host("a.example.org:443", "npm ci"),
       host("a.example.org:443", "curl a.example.org"), true},
      {"other host", host("a.example.org:443"), host("b.example.org:443"), false},
      {"same host, other port", host("a.example.org:443"), host("a.example.org:80"), false},
      {"host grant, network way out", host("a.example.org:443", "npm ci"), net("npm ci"), false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Rig rig(config(ApprovalMode::kManual));
    rig.asker.script.push_back(allow_session());
    EXPECT_TRUE(rig.ask(c.granted).allowed);
    EXPECT_TRUE(rig.asker.questions.at(0).session_grant_offered);
    EXPECT_EQ(rig.approver.state().grants, 1u);
    if (!c.covered) rig.asker.script.push_back(deny());
    Decision d = rig.ask(c.later);
    EXPECT_EQ(d.allowed, c.covered);
    EXPECT_EQ(d.basis, c.covered ? Basis::kGrant : Basis::kUser);
    EXPECT_EQ(rig.asker.questions.size(), c.covered ? 1u : 2u);
  }
}

TEST(Approver, AllowOnceMakesNoGrant) {
  // APR-3
  Rig rig(config(ApprovalMode::kManual));
  rig.asker.script = {allow_once(), deny()};
  EXPECT_TRUE(rig.ask(command()).allowed);
  EXPECT_FALSE(rig.ask(command()).allowed);
  EXPECT_EQ(rig.asker.questions.size(), 2u);
}

TEST(Approver, GrantSkipsTheJudgeInAuto) {
  // APR-2, APR-3: the judge passed it on, the person granted it; next time it needs neither.
  Rig rig(config(ApprovalMode::kAuto));
  rig.judge.script.push_back(says(JudgeDecision::kAsk, 0.5));
  rig.asker.script.push_back(allow_session());
  EXPECT_TRUE(rig.ask(command("terraform apply")).allowed);
  Decision d = rig.ask(command("terraform apply"));
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kGrant);
  EXPECT_EQ(rig.judge.calls.size(), 1u);
}

TEST(Approver, UserDenialTellsTheCaller) {
  // SRV-1: a refused exec says why: denied by the user.
  Rig rig(config(ApprovalMode::kManual));
  rig.asker.script.push_back(deny());
  Decision d = rig.ask(net("pip install requests"));
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kUser);
  EXPECT_TRUE(has(d.message, "denied by the user")) << d.message;
  EXPECT_TRUE(has(d.message, "pip install requests")) << d.message;
  EXPECT_FALSE(rig.approver.away());
  // AUD-2: its rule and fix apart, as the message has them.
  EXPECT_EQ(d.rule, "the user denied it");
  EXPECT_TRUE(has(d.message, d.fix)) << d.fix;
  EXPECT_TRUE(has(d.fix, "Do not retry it")) << d.fix;
}

TEST(Approver, EveryRefusalHasItsRuleAndFixInItsMessage) {  // AUD-2
  // Under approve-all, outside_sandbox is refused; away refuses the rest; a timeout too.
  ApproverConfig c = config(ApprovalMode::kApproveAll);
  Rig all(c);
  ApprovalRequest out;
  out.kind = AskKind::kOutsideSandbox;
  out.command = "rm -rf build";
  Decision d = all.ask(out);
  ASSERT_FALSE(d.allowed);
  EXPECT_TRUE(has(d.message, d.rule + ". " + d.fix)) << d.message;
  Rig manual(config(ApprovalMode::kManual));
  ASSERT_TRUE(manual.approver.set_away(true).ok());
  d = manual.ask(net("npm install"));
  ASSERT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kAway);
  EXPECT_TRUE(has(d.rule, "the user is away")) << d.rule;
  EXPECT_TRUE(has(d.message, d.rule + ". " + d.fix)) << d.message;
}

TEST(Approver, QuestionCarriesTheRequestAndDeadline) {
  // APR-5: the question waits [away] timeout from when it is put.
  Rig rig(config(ApprovalMode::kManual));
  auto asked_at = rig.clock.now();
  rig.asker.script.push_back(allow_once());
  ASSERT_TRUE(rig.ask(net()).allowed);
  const Question& q = rig.asker.questions.at(0);
  EXPECT_EQ(q.request.kind, AskKind::kNetwork);
  EXPECT_EQ(q.request.reason, "fetch dependencies");  // the person sees the reason
  ASSERT_TRUE(q.deadline.has_value());
  EXPECT_EQ(*q.deadline, asked_at + minutes(15));
  EXPECT_TRUE(q.judge_note.empty());
}

TEST(Approver, AWithdrawnQuestionIsNeitherYesNorNo) {
  // APR-5, SRV-4 (issue 27): the request was canceled while its question was open. It is
  // refused as canceled, does not send the task away, counts toward no breaker, and the
  // question carried the cancel descriptor for the asker.
  Rig rig(config(ApprovalMode::kManual));
  rig.approver.begin_task();
  rig.asker.script.push_back({{Reply::kCanceled, ""}});
  Decision d = rig.approver.ask(net(), 42);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kCanceled);
  EXPECT_TRUE(has(d.message, "canceled before it ran")) << d.message;
  EXPECT_EQ(rig.asker.questions.at(0).cancel_fd, 42);
  EXPECT_FALSE(d.away_started);
  EXPECT_FALSE(rig.approver.away());
  rig.asker.script.push_back(allow_once());
  EXPECT_TRUE(rig.ask(net()).allowed);  // the next question is put as usual
}

// ---------------------------------------------------------------------------------------------
// The judge's risk and the cutoffs (APR-2, APR-4, APR-6).

TEST(Approver, JudgeRiskAgainstCutoffAndAwayCutoff) {
  // APR-2: risk above [approvals] cutoff becomes ask. APR-4: while away the cutoff is
  // away_cutoff, and anything that would ask is refused.
  enum class Want { kAllowed, kPerson, kRefusedAway, kJudgeDenied };
  struct Case {
    double cutoff, away_cutoff;
    bool away;
    JudgeDecision decision;
    double risk;
    Want want;
  };
  using D = JudgeDecision;
  const Case cases[] = {
      {0.2, 0.2, false, D::kAllow, 0.0, Want::kAllowed},
      {0.2, 0.2, false, D::kAllow, 0.2, Want::kAllowed},  // at the cutoff: not above it
      {0.2, 0.2, false, D::kAllow, 0.21, Want::kPerson},
      {0.2, 0.2, false, D::kAllow, 1.0, Want::kPerson},
      {0.5, 0.2, false, D::kAllow, 0.4, Want::kAllowed},
      {0.1, 0.5, false, D::kAllow, 0.4, Want::kPerson},  // present: the ordinary cutoff
      {1.0, 1.0, false, D::kAsk, 0.0, Want::kPerson},    // "ask" asks whatever the risk
      {1.0, 1.0, false, D::kDeny, 0.0, Want::kJudgeDenied},
      {0.2, 0.2, false, D::kDeny, 0.9, Want::kJudgeDenied},
      {0.5, 0.1, true, D::kAllow, 0.1, Want::kAllowed},
      {0.5, 0.1, true, D::kAllow, 0.15, Want::kRefusedAway},
      {0.5, 0.1, true, D::kAllow, 0.4, Want::kRefusedAway},  // the ordinary cutoff would allow
      {0.1, 0.5, true, D::kAllow, 0.4, Want::kAllowed},      // away: the away cutoff
      {0.1, 0.5, true, D::kAllow, 0.51, Want::kRefusedAway},
      {1.0, 1.0, true, D::kAsk, 0.0, Want::kRefusedAway},
      {1.0, 1.0, true, D::kDeny, 0.0, Want::kJudgeDenied},
      {0.0, 0.0, false, D::kAllow, 0.0, Want::kAllowed},
      {0.0, 0.0, true, D::kAllow, 0.01, Want::kRefusedAway},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "cutoff " << c.cutoff << " away_cutoff " << c.away_cutoff << " away " << c.away
                 << " " << to_string(c.decision) << " risk " << c.risk);
    Rig rig(config(ApprovalMode::kAuto, c.cutoff, c.away_cutoff));
    if (c.away) {
      ASSERT_TRUE(rig.approver.set_away(true).ok());
    }
    rig.judge.script.push_back(says(c.decision, c.risk));
    if (c.want == Want::kPerson) rig.asker.script.push_back(allow_once());
    Decision d = rig.ask(net());
    EXPECT_EQ(rig.judge.calls.size(), 1u);
    switch (c.want) {
      case Want::kAllowed:
        EXPECT_TRUE(d.allowed) << d.message;
        EXPECT_EQ(d.basis, Basis::kJudge);
        break;
      case Want::kPerson:
        EXPECT_TRUE(d.allowed) << d.message;
        EXPECT_EQ(d.basis, Basis::kUser);
        ASSERT_EQ(rig.asker.questions.size(), 1u);
        EXPECT_FALSE(rig.asker.questions[0].judge_note.empty());
        break;
      case Want::kRefusedAway:
        EXPECT_FALSE(d.allowed);
        EXPECT_EQ(d.basis, Basis::kAway) << d.message;
        EXPECT_TRUE(has(d.message, "away")) << d.message;
        break;
      case Want::kJudgeDenied:
        EXPECT_FALSE(d.allowed);
        EXPECT_EQ(d.basis, Basis::kJudge) << d.message;
        EXPECT_TRUE(has(d.message, "judge")) << d.message;
        break;
    }
    if (c.want != Want::kPerson) {
      EXPECT_TRUE(rig.asker.questions.empty());
    }
  }
}

TEST(Approver, FailedJudgeCountsAsAsk) {
  // APR-2: a judge that crashes, times out or prints garbage counts as ask. APR-6: while away
  // that is a refusal like any other (an unreachable judge included).
  const JudgeVerdict failures[] = {
      JudgeVerdict::failed("the judge was ended by signal 11"),
      JudgeVerdict::failed("the judge did not answer within 30s and was stopped"),
      JudgeVerdict::failed("the judge printed \"ok\", which is not one JSON object"),
      JudgeVerdict{JudgeDecision::kAllow, std::nullopt, ""},  // a Judge that forgot the risk
      JudgeVerdict{JudgeDecision::kDeny, std::nullopt, ""},
  };
  for (const auto& v : failures) {
    SCOPED_TRACE(v.problem);
    {
      Rig rig(config(ApprovalMode::kAuto, 1.0, 1.0));  // even the loosest cutoff
      rig.judge.script.push_back(v);
      rig.asker.script.push_back(deny());
      Decision d = rig.ask(command());
      EXPECT_EQ(d.basis, Basis::kUser);
      ASSERT_EQ(rig.asker.questions.size(), 1u);
      const std::string& note = rig.asker.questions[0].judge_note;
      EXPECT_TRUE(v.problem.empty() ? has(note, "no risk") : note == v.problem) << note;
    }
    {
      Rig rig(config(ApprovalMode::kAuto, 1.0, 1.0));
      ASSERT_TRUE(rig.approver.set_away(true).ok());
      rig.judge.script.push_back(v);
      Decision d = rig.ask(command());
      EXPECT_FALSE(d.allowed);
      EXPECT_EQ(d.basis, Basis::kAway);
      EXPECT_EQ(rig.approver.state().refusals_in_a_row, 1);
    }
  }
}

TEST(Approver, AutoWithoutAJudgeAsksThePerson) {
  // APR-2: no judge to run is a failed judge, never an approval.
  FakeClock clock;
  ScriptedAsker asker(clock);
  Approver approver(config(ApprovalMode::kAuto, 1.0, 1.0), clock, nullptr, &asker);
  asker.script.push_back(deny());
  Decision d = approver.ask(command());
  EXPECT_FALSE(d.allowed);
  ASSERT_EQ(asker.questions.size(), 1u);
  EXPECT_TRUE(has(asker.questions[0].judge_note, "no judge")) << asker.questions[0].judge_note;
}

// ---------------------------------------------------------------------------------------------
// Away (APR-4).

TEST(Approver, AwayIsRefusedUnderApproveAll) {
  // APR-4
  Rig all(config(ApprovalMode::kApproveAll));
  Status s = all.approver.set_away(true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorKind::kRefused);
  EXPECT_TRUE(has(s.error().message, "approve-all")) << s.error().message;
  EXPECT_FALSE(all.approver.away());
  EXPECT_TRUE(all.approver.set_away(false).ok());
  for (ApprovalMode mode : {ApprovalMode::kManual, ApprovalMode::kAuto}) {
    Rig rig(config(mode));
    EXPECT_TRUE(rig.approver.set_away(true).ok());
    EXPECT_TRUE(rig.approver.away());
    EXPECT_TRUE(rig.approver.set_away(false).ok());
    EXPECT_FALSE(rig.approver.away());
  }
}

TEST(Approver, AwayRefusesWhatWouldAskAndSaysKeepGoing) {
  // APR-4: every kind that would ask, outside_sandbox included, is refused without a question.
  for (AskKind kind : kAllKinds) {
    SCOPED_TRACE(to_string(kind));
    Rig rig(config(ApprovalMode::kManual));
    ASSERT_TRUE(rig.approver.set_away(true).ok());
    ApprovalRequest r = of_kind(kind);
    Decision d = rig.ask(r);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.basis, Basis::kAway);
    EXPECT_TRUE(has(d.message, "away")) << d.message;
    EXPECT_TRUE(has(d.message, "Keep going")) << d.message;
    EXPECT_TRUE(has(d.message, describe(r).substr(1))) << d.message;
    EXPECT_TRUE(rig.asker.questions.empty());
  }
}

TEST(Approver, GrantsMadeBeforeLeavingDoNotApplyWhileAway) {
  // APR-4
  Rig rig(config(ApprovalMode::kManual));
  rig.asker.script.push_back(allow_session());
  ASSERT_TRUE(rig.ask(net()).allowed);
  ASSERT_TRUE(rig.ask(net()).allowed);  // the grant works while present
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  Decision d = rig.ask(net());
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kAway);
  EXPECT_EQ(rig.asker.questions.size(), 1u);
  // Back: the session's grant applies again.
  ASSERT_TRUE(rig.approver.set_away(false).ok());
  Decision back = rig.ask(net());
  EXPECT_TRUE(back.allowed);
  EXPECT_EQ(back.basis, Basis::kGrant);
}

TEST(Approver, GrantsDoNotApplyWhileAwayInAutoEither) {
  // APR-4: the judge decides at the away cutoff; the old grant is ignored.
  Rig rig(config(ApprovalMode::kAuto, 0.5, 0.1));
  rig.judge.script.push_back(says(JudgeDecision::kAsk, 0.3));
  rig.asker.script.push_back(allow_session());
  ASSERT_TRUE(rig.ask(command()).allowed);
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  rig.judge.script.push_back(says(JudgeDecision::kAllow, 0.3));
  Decision d = rig.ask(command());
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kAway);
  EXPECT_EQ(rig.judge.calls.size(), 2u);
}

// ---------------------------------------------------------------------------------------------
// The timeout (APR-5).

TEST(Approver, TimeoutRefusesAndTheRestOfTheTaskRunsAway) {
  // APR-5
  Rig rig(config(ApprovalMode::kManual));
  rig.approver.begin_task();
  rig.asker.script.push_back(no_answer());
  Decision d = rig.ask(net());
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kTimeout);
  EXPECT_TRUE(d.away_started);
  EXPECT_FALSE(d.end_task);
  EXPECT_TRUE(has(d.message, "15m")) << d.message;
  EXPECT_TRUE(has(d.message, "away")) << d.message;
  EXPECT_TRUE(has(d.message, "Keep going")) << d.message;
  ApproverState s = rig.approver.state();
  EXPECT_TRUE(s.away);
  EXPECT_TRUE(s.timeout_away);
  EXPECT_FALSE(s.user_away);
  // The rest of the task: refused at once, no question.
  Decision next = rig.ask(cred());
  EXPECT_FALSE(next.allowed);
  EXPECT_EQ(next.basis, Basis::kAway);
  EXPECT_EQ(rig.asker.questions.size(), 1u);
  // A new task asks again.
  rig.approver.end_task();
  EXPECT_FALSE(rig.approver.away());
  rig.approver.begin_task();
  rig.asker.script.push_back(allow_once());
  EXPECT_TRUE(rig.ask(cred()).allowed);
}

TEST(Approver, ComingBackEndsATimeoutsAway) {
  // APR-4, APR-5: `away` off means the user is here, whatever sent the task away.
  Rig rig(config(ApprovalMode::kManual));
  rig.asker.script.push_back(no_answer());
  ASSERT_TRUE(rig.ask(command()).away_started);
  ASSERT_TRUE(rig.approver.away());
  ASSERT_TRUE(rig.approver.set_away(false).ok());
  EXPECT_FALSE(rig.approver.away());
  EXPECT_EQ(rig.approver.state().refusals_in_stretch, 0);
  rig.asker.script.push_back(allow_once());
  EXPECT_TRUE(rig.ask(command()).allowed);
}

TEST(Approver, TimeoutAwayDoesNotOutliveTheTaskButUserAwayDoes) {
  // APR-4, APR-5: a timeout's away is for the task; the user's own away stays until turned off.
  Rig rig(config(ApprovalMode::kManual));
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  rig.approver.end_task();
  rig.approver.begin_task();
  EXPECT_TRUE(rig.approver.away());
  EXPECT_EQ(rig.ask(command()).basis, Basis::kAway);
}

TEST(Approver, AnAnswerAtOrAfterTheDeadlineIsATimeout) {
  // APR-5: the clock decides, even when an asker reports a late answer.
  struct Case {
    std::optional<milliseconds> timeout;
    milliseconds elapse;
    bool allowed;
  };
  const Case cases[] = {
      {minutes(15), minutes(15) - milliseconds(1), true},
      {minutes(15), minutes(15), false},
      {minutes(15), minutes(16), false},
      {milliseconds(30'000), milliseconds(29'999), true},
      {milliseconds(30'000), milliseconds(30'000), false},
      {std::nullopt, std::chrono::hours(100), true},  // "off": questions wait with no limit
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.elapse.count());
    ApproverConfig cfg = config(ApprovalMode::kManual);
    cfg.timeout = c.timeout;
    Rig rig(cfg);
    rig.asker.script.push_back({{Reply::kAllowOnce, ""}, c.elapse});
    Decision d = rig.ask(command());
    EXPECT_EQ(d.allowed, c.allowed) << d.message;
    EXPECT_EQ(rig.asker.questions.at(0).deadline.has_value(), c.timeout.has_value());
    if (!c.allowed) {
      EXPECT_EQ(d.basis, Basis::kTimeout);
      EXPECT_TRUE(rig.approver.away());
    }
  }
}

TEST(Approver, TimeoutOffNeverSendsTheTaskAway) {
  // APR-5: with timeout "off" a question has no deadline; an asker reporting kTimeout anyway
  // is still a refusal, and the rest of the task runs away.
  ApproverConfig cfg = config(ApprovalMode::kManual);
  cfg.timeout.reset();
  Rig rig(cfg);
  rig.asker.script.push_back(no_answer(milliseconds(0)));
  Decision d = rig.ask(command());
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kTimeout);
  EXPECT_TRUE(has(d.message, "the time allowed")) << d.message;
}

TEST(Approver, TimeoutIsTheFirstRefusalOfItsAwayStretch) {
  // APR-5 "refused as if the user were away", APR-6: so two more refusals trip the breaker.
  Rig rig(config(ApprovalMode::kManual));
  rig.asker.script.push_back(no_answer());
  EXPECT_EQ(rig.ask(command()).basis, Basis::kTimeout);
  EXPECT_EQ(rig.approver.state().refusals_in_a_row, 1);
  EXPECT_FALSE(rig.ask(command()).breaker_tripped);
  Decision third = rig.ask(command());
  EXPECT_TRUE(third.breaker_tripped);
  EXPECT_FALSE(rig.approver.away());
}

// ---------------------------------------------------------------------------------------------
// The breaker (APR-6).

// The ways a request is refused while away, each of which counts toward the breaker.
enum class Refusal { kWouldAsk, kOutsideSandbox, kJudgeAsk, kJudgeDeny, kJudgeCrash, kJudgeRisk };

void refuse_once(Rig& rig, Refusal how, Decision* out) {
  switch (how) {
    case Refusal::kWouldAsk:
      break;
    case Refusal::kOutsideSandbox:
      *out = rig.ask(outside());
      return;
    case Refusal::kJudgeAsk:
      rig.judge.script.push_back(says(JudgeDecision::kAsk, 0.0));
      break;
    case Refusal::kJudgeDeny:
      rig.judge.script.push_back(says(JudgeDecision::kDeny, 0.9));
      break;
    case Refusal::kJudgeCrash:
      rig.judge.script.push_back(JudgeVerdict::failed("the judge was ended by signal 11"));
      break;
    case Refusal::kJudgeRisk:
      rig.judge.script.push_back(says(JudgeDecision::kAllow, 0.9));
      break;
  }
  *out = rig.ask(command());
}

TEST(Approver, BreakerTripsAtExactlyThreeRefusalsInARow) {
  // APR-6: every kind of refusal while away counts, an unreachable judge's included.
  const std::vector<std::vector<Refusal>> runs = {
      {Refusal::kWouldAsk, Refusal::kWouldAsk, Refusal::kWouldAsk},
      {Refusal::kOutsideSandbox, Refusal::kOutsideSandbox, Refusal::kOutsideSandbox},
      {Refusal::kJudgeAsk, Refusal::kJudgeDeny, Refusal::kJudgeCrash},
      {Refusal::kJudgeRisk, Refusal::kJudgeRisk, Refusal::kJudgeRisk},
      {Refusal::kJudgeCrash, Refusal::kOutsideSandbox, Refusal::kJudgeDeny},
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    SCOPED_TRACE(i);
    bool uses_judge = false;
    for (Refusal r : runs[i])
      uses_judge |= r != Refusal::kWouldAsk && r != Refusal::kOutsideSandbox;
    Rig target(config(uses_judge ? ApprovalMode::kAuto : ApprovalMode::kManual));
    ASSERT_TRUE(target.approver.set_away(true).ok());
    for (size_t n = 1; n <= 3; ++n) {
      Decision d;
      refuse_once(target, runs[i][n - 1], &d);
      EXPECT_FALSE(d.allowed);
      EXPECT_EQ(d.breaker_tripped, n == 3) << n << ": " << d.message;
      EXPECT_EQ(target.approver.away(), n < 3);
      if (n == 3) {
        EXPECT_TRUE(has(d.message, "3 refusals in a row")) << d.message;
        EXPECT_TRUE(has(d.message, "breaker")) << d.message;
      }
    }
    ApproverState s = target.approver.state();
    EXPECT_TRUE(s.tripped);
    EXPECT_FALSE(s.user_away);
    // The next ask waits for the user as an ordinary question, with the usual deadline.
    if (uses_judge) target.judge.script.push_back(says(JudgeDecision::kAsk, 0.0));
    target.asker.script.push_back(allow_once());
    auto asked_at = target.clock.now();
    Decision next = target.ask(command());
    EXPECT_TRUE(next.allowed);
    EXPECT_EQ(next.basis, Basis::kUser);
    ASSERT_EQ(target.asker.questions.size(), 1u);
    EXPECT_EQ(target.asker.questions[0].deadline, asked_at + minutes(15));
  }
}

TEST(Approver, BreakerTripsAtExactlyTwentyAcrossTheStretch) {
  // APR-6: approvals break the runs of refusals, so only the stretch's total can trip it.
  Rig rig(config(ApprovalMode::kAuto));
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  int refusals = 0;
  while (refusals < 19) {
    for (int k = 0; k < 2 && refusals < 19; ++k) {
      rig.judge.script.push_back(says(JudgeDecision::kAsk, 0.0));
      Decision d = rig.ask(command());
      ++refusals;
      ASSERT_FALSE(d.allowed);
      ASSERT_FALSE(d.breaker_tripped) << "tripped at refusal " << refusals;
    }
    rig.judge.script.push_back(says(JudgeDecision::kAllow, 0.0));
    ASSERT_TRUE(rig.ask(command()).allowed);
  }
  ApproverState s = rig.approver.state();
  EXPECT_EQ(s.refusals_in_stretch, 19);
  EXPECT_EQ(s.refusals_in_a_row, 0);
  EXPECT_TRUE(s.away);
  rig.judge.script.push_back(says(JudgeDecision::kDeny, 0.9));
  Decision twentieth = rig.ask(command());
  EXPECT_FALSE(twentieth.allowed);
  EXPECT_TRUE(twentieth.breaker_tripped);
  EXPECT_TRUE(has(twentieth.message, "20 refusals")) << twentieth.message;
  EXPECT_FALSE(rig.approver.away());
  EXPECT_TRUE(rig.approver.state().tripped);
}

TEST(Approver, AnApprovalResetsTheRunButNotTheStretch) {
  // APR-6: refused, refused, approved, refused, refused: no trip; one more: trip.
  Rig rig(config(ApprovalMode::kAuto));
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  const JudgeDecision seq[] = {JudgeDecision::kAsk, JudgeDecision::kAsk, JudgeDecision::kAllow,
                               JudgeDecision::kAsk, JudgeDecision::kAsk};
  for (JudgeDecision d : seq) {
    rig.judge.script.push_back(says(d, 0.0));
    EXPECT_FALSE(rig.ask(command()).breaker_tripped);
  }
  EXPECT_EQ(rig.approver.state().refusals_in_a_row, 2);
  EXPECT_EQ(rig.approver.state().refusals_in_stretch, 4);
  rig.judge.script.push_back(says(JudgeDecision::kAsk, 0.0));
  EXPECT_TRUE(rig.ask(command()).breaker_tripped);
}

TEST(Approver, ANewAwayStretchStartsFromZero) {
  // APR-6: the counts belong to one away stretch; coming back and leaving again starts over.
  Rig rig(config(ApprovalMode::kAuto));
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  for (int i = 0; i < 19; ++i) {
    rig.judge.script.push_back(says(JudgeDecision::kAsk, 0.0));
    rig.judge.script.push_back(says(JudgeDecision::kAllow, 0.0));
    ASSERT_FALSE(rig.ask(command()).breaker_tripped);
    ASSERT_TRUE(rig.ask(command()).allowed);
  }
  EXPECT_EQ(rig.approver.state().refusals_in_stretch, 19);
  ASSERT_TRUE(rig.approver.set_away(false).ok());
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  EXPECT_EQ(rig.approver.state().refusals_in_stretch, 0);
  rig.judge.script.push_back(says(JudgeDecision::kAsk, 0.0));
  rig.judge.script.push_back(says(JudgeDecision::kAsk, 0.0));
  EXPECT_FALSE(rig.ask(command()).breaker_tripped);  // would be the 20th of the old stretch
  EXPECT_FALSE(rig.ask(command()).breaker_tripped);
  // The same for a run in a row.
  ASSERT_TRUE(rig.approver.set_away(false).ok());
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  rig.judge.script.push_back(says(JudgeDecision::kAsk, 0.0));
  EXPECT_FALSE(rig.ask(command()).breaker_tripped);
  EXPECT_EQ(rig.approver.state().refusals_in_a_row, 1);
  // Saying "away" again while away continues the stretch.
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  EXPECT_EQ(rig.approver.state().refusals_in_a_row, 1);
}

TEST(Approver, RefusalsWhilePresentDoNotCount) {
  // APR-6: the breaker counts refusals while away only.
  Rig rig(config(ApprovalMode::kAuto));
  for (int i = 0; i < 5; ++i) {
    rig.judge.script.push_back(says(JudgeDecision::kDeny, 0.9));
    EXPECT_FALSE(rig.ask(command()).breaker_tripped);
  }
  rig.asker.script = {deny(), deny(), deny()};
  rig.judge.script = {says(JudgeDecision::kAsk, 0.0), says(JudgeDecision::kAsk, 0.0)};
  EXPECT_FALSE(rig.ask(command()).breaker_tripped);
  EXPECT_FALSE(rig.ask(command()).breaker_tripped);
  EXPECT_FALSE(rig.ask(outside()).breaker_tripped);
  ApproverState s = rig.approver.state();
  EXPECT_EQ(s.refusals_in_stretch, 0);
  EXPECT_FALSE(s.tripped);
}

TEST(Approver, AfterATripATimeoutEndsTheTask) {
  // APR-6: until the task ends, a timeout ends the task instead of restarting away.
  Rig rig(config(ApprovalMode::kManual));
  rig.approver.begin_task();
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  for (int i = 0; i < 3; ++i) (void)rig.ask(command());
  ASSERT_TRUE(rig.approver.state().tripped);
  rig.asker.script.push_back(no_answer());
  Decision d = rig.ask(net());
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kTimeout);
  EXPECT_TRUE(d.end_task);
  EXPECT_FALSE(d.away_started);
  EXPECT_FALSE(rig.approver.away());
  EXPECT_TRUE(has(d.message, "task has ended")) << d.message;
  EXPECT_TRUE(rig.approver.state().task_ended);
  // Whatever the caller tries next in this task is refused without a question.
  for (AskKind kind : kAllKinds) {
    Decision later = rig.ask(of_kind(kind));
    EXPECT_FALSE(later.allowed);
    EXPECT_EQ(later.basis, Basis::kTaskEnded);
    EXPECT_TRUE(has(later.message, "task has ended")) << later.message;
  }
  EXPECT_EQ(rig.asker.questions.size(), 1u);
  // The next task is ordinary again: a timeout sends it away.
  rig.approver.end_task();
  rig.approver.begin_task();
  ApproverState s = rig.approver.state();
  EXPECT_FALSE(s.tripped);
  EXPECT_FALSE(s.task_ended);
  rig.asker.script.push_back(no_answer());
  Decision again = rig.ask(net());
  EXPECT_TRUE(again.away_started);
  EXPECT_FALSE(again.end_task);
}

TEST(Approver, AfterATripAnAnswerInTimeStillCounts) {
  // APR-6: the trip only changes what a timeout does; an answer is an answer.
  Rig rig(config(ApprovalMode::kManual));
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  for (int i = 0; i < 3; ++i) (void)rig.ask(command());
  rig.asker.script = {allow_once(), deny()};
  EXPECT_TRUE(rig.ask(command()).allowed);
  Decision d = rig.ask(command());
  EXPECT_FALSE(d.allowed);
  EXPECT_FALSE(d.end_task);
  EXPECT_FALSE(rig.approver.state().task_ended);
}

TEST(Approver, AfterATripTheAwayCutoffStaysUntilTheTaskEnds) {
  // APR-6: "the away cutoff stays in force", even though away has ended.
  Rig rig(config(ApprovalMode::kAuto, 0.5, 0.1));
  rig.approver.begin_task();
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  for (int i = 0; i < 3; ++i) {
    rig.judge.script.push_back(says(JudgeDecision::kAsk, 0.0));
    (void)rig.ask(command());
  }
  ASSERT_FALSE(rig.approver.away());
  ASSERT_TRUE(rig.approver.state().tripped);
  rig.judge.script.push_back(says(JudgeDecision::kAllow, 0.3));
  rig.asker.script.push_back(allow_once());
  Decision d = rig.ask(net());
  EXPECT_EQ(d.basis, Basis::kUser);  // 0.3 is above the away cutoff 0.1
  ASSERT_EQ(rig.asker.questions.size(), 1u);
  EXPECT_TRUE(has(rig.asker.questions[0].judge_note, "away cutoff 0.1"))
      << rig.asker.questions[0].judge_note;
  rig.approver.end_task();
  rig.approver.begin_task();
  rig.judge.script.push_back(says(JudgeDecision::kAllow, 0.3));
  Decision fresh = rig.ask(net());
  EXPECT_TRUE(fresh.allowed);
  EXPECT_EQ(fresh.basis, Basis::kJudge);  // within the ordinary cutoff 0.5
}

TEST(Approver, AfterATripGoingAwayAgainIsAllowed) {
  // APR-4, APR-6: the user may leave again; a new stretch starts, the trip stays for the task.
  Rig rig(config(ApprovalMode::kManual));
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  for (int i = 0; i < 3; ++i) (void)rig.ask(command());
  ASSERT_TRUE(rig.approver.set_away(true).ok());
  ApproverState s = rig.approver.state();
  EXPECT_TRUE(s.away);
  EXPECT_TRUE(s.tripped);
  EXPECT_EQ(s.refusals_in_a_row, 0);
  EXPECT_EQ(rig.ask(command()).basis, Basis::kAway);
}

// ---------------------------------------------------------------------------------------------
// Other refusals.

TEST(Approver, EscapeNeverRefusesBothWaysOutInEveryMode) {
  // NET-5 (SRV-1: escape = "never"): not an approval refusal, so no question, no judge, and no
  // count toward the breaker.
  for (ApprovalMode mode :
       {ApprovalMode::kManual, ApprovalMode::kApproveAll, ApprovalMode::kAuto}) {
    for (bool away : {false, true}) {
      SCOPED_TRACE(::testing::Message() << to_string(mode) << " away " << away);
      ApproverConfig cfg = config(mode);
      cfg.escape = EscapeMode::kNever;
      Rig rig(cfg);
      if (away && mode != ApprovalMode::kApproveAll) {
        ASSERT_TRUE(rig.approver.set_away(true).ok());
      }
      for (int i = 0; i < 3; ++i) {
        for (const ApprovalRequest& r : {net(), outside(), host()}) {  // NET-10: a way out
          Decision d = rig.ask(r);
          EXPECT_FALSE(d.allowed);
          EXPECT_EQ(d.basis, Basis::kEscapeNever);
          EXPECT_TRUE(has(d.message, "escape = \"never\"")) << d.message;
          EXPECT_FALSE(d.breaker_tripped);
        }
      }
      EXPECT_EQ(rig.approver.state().refusals_in_stretch, 0);
      EXPECT_TRUE(rig.asker.questions.empty());
      EXPECT_TRUE(rig.judge.calls.empty());
    }
  }
  // The other kinds still go through approval.
  ApproverConfig cfg = config(ApprovalMode::kManual);
  cfg.escape = EscapeMode::kNever;
  Rig rig(cfg);
  rig.asker.script.push_back(allow_once());
  EXPECT_TRUE(rig.ask(cred()).allowed);
}

TEST(Approver, NobodyToAskIsARefusalWithTheFacesNote) {
  // APR-7: the CLI without a terminal refuses, naming what would approve it.
  Rig rig(config(ApprovalMode::kManual));
  rig.asker.script.push_back(
      {{Reply::kUnavailable, "there is no terminal to ask on; run again with --approve network"}});
  Decision d = rig.ask(net());
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kNobodyToAsk);
  EXPECT_TRUE(has(d.message, "--approve network")) << d.message;
  EXPECT_FALSE(rig.approver.away());  // not a timeout
  EXPECT_EQ(rig.approver.state().refusals_in_stretch, 0);

  FakeClock clock;
  Approver no_asker(config(ApprovalMode::kManual), clock, nullptr, nullptr);
  Decision none = no_asker.ask(command());
  EXPECT_FALSE(none.allowed);
  EXPECT_EQ(none.basis, Basis::kNobodyToAsk);
  EXPECT_TRUE(has(none.message, "nobody can be asked")) << none.message;
}

TEST(Approver, FromPolicy) {
  Policy p;
  p.approvals.mode = ApprovalMode::kAuto;
  p.approvals.cutoff = 0.4;
  p.approvals.away_cutoff = 0.05;
  p.away_timeout = std::nullopt;
  p.escape = EscapeMode::kNever;
  ApproverConfig c = ApproverConfig::from_policy(p);
  EXPECT_EQ(c.mode, ApprovalMode::kAuto);
  EXPECT_DOUBLE_EQ(c.cutoff, 0.4);
  EXPECT_DOUBLE_EQ(c.away_cutoff, 0.05);
  EXPECT_EQ(c.timeout, std::nullopt);
  EXPECT_EQ(c.escape, EscapeMode::kNever);
  EXPECT_EQ(ApproverConfig::from_policy(Policy{}).timeout,
            std::optional<milliseconds>(minutes(15)));
}

// ---------------------------------------------------------------------------------------------
// Several asks in flight (SRV-4), through the step API.

TEST(ApproverSteps, ConcurrentQuestionsAndATimeout) {
  // APR-5 with two questions in flight: one times out and the task goes away; the other's
  // answer, given in time by a person who is there, still counts; the next ask is refused.
  FakeClock clock;
  Approver a(config(ApprovalMode::kManual), clock, nullptr, nullptr);
  Approver::Step s1 = a.start(command("make one"));
  Approver::Step s2 = a.start(command("make two"));
  ASSERT_EQ(s1.next, Approver::Step::Next::kPerson);
  ASSERT_EQ(s2.next, Approver::Step::Next::kPerson);
  clock.advance(minutes(15));
  Decision d1 = a.on_answer(s1, {Reply::kTimeout, ""});
  EXPECT_TRUE(d1.away_started);
  EXPECT_TRUE(a.away());
  // s2 was put at the same time, so an answer now is also too late.
  Decision late = a.on_answer(s2, {Reply::kAllowOnce, ""});
  EXPECT_FALSE(late.allowed);
  EXPECT_EQ(late.basis, Basis::kTimeout);
  EXPECT_FALSE(late.away_started);  // already away
  EXPECT_EQ(a.state().refusals_in_a_row, 2);
  Approver::Step s3 = a.start(command("make three"));
  ASSERT_EQ(s3.next, Approver::Step::Next::kDone);
  EXPECT_EQ(s3.decision.basis, Basis::kAway);
}

TEST(ApproverSteps, AnAnswerInTimeAfterAnotherTimedOut) {
  // APR-5: a question put later has a later deadline; its answer in time is honoured even
  // though the task has meanwhile gone away, and it breaks the run of refusals (APR-6).
  FakeClock clock;
  Approver a(config(ApprovalMode::kManual), clock, nullptr, nullptr);
  Approver::Step s1 = a.start(command("make one"));
  clock.advance(minutes(10));
  Approver::Step s2 = a.start(command("make two"));
  clock.advance(minutes(5));
  EXPECT_EQ(a.on_answer(s1, {Reply::kTimeout, ""}).basis, Basis::kTimeout);
  ASSERT_TRUE(a.away());
  EXPECT_EQ(a.state().refusals_in_a_row, 1);
  Decision d2 = a.on_answer(s2, {Reply::kAllowForSession, ""});
  EXPECT_TRUE(d2.allowed);
  EXPECT_EQ(a.state().refusals_in_a_row, 0);
  EXPECT_EQ(a.state().grants, 1u);
}

TEST(ApproverSteps, ADenialWhileAwayCounts) {
  // APR-6: the user left while a question was open, then denied it: a refusal while away.
  FakeClock clock;
  Approver a(config(ApprovalMode::kManual), clock, nullptr, nullptr);
  Approver::Step s = a.start(command());
  ASSERT_EQ(s.next, Approver::Step::Next::kPerson);
  ASSERT_TRUE(a.set_away(true).ok());
  (void)a.ask(net());
  (void)a.ask(cred());
  Decision d = a.on_answer(s, {Reply::kDeny, ""});
  EXPECT_EQ(d.basis, Basis::kUser);
  EXPECT_TRUE(d.breaker_tripped) << d.message;
}

TEST(ApproverSteps, AQuestionFromAnEndedTaskDoesNotSendTheNextAway) {
  // APR-5: "the rest of that task" is the task that asked.
  FakeClock clock;
  Approver a(config(ApprovalMode::kManual), clock, nullptr, nullptr);
  a.begin_task();
  Approver::Step s = a.start(command());
  a.end_task();
  a.begin_task();
  clock.advance(minutes(15));
  Decision d = a.on_answer(s, {Reply::kTimeout, ""});
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.basis, Basis::kTimeout);
  EXPECT_FALSE(d.away_started);
  EXPECT_FALSE(a.away());
}

TEST(ApproverSteps, AnEndedTaskRefusesAnswersStillInFlight) {
  // APR-6: once a timeout after a trip ends the task, nothing more of it is approved.
  FakeClock clock;
  Approver a(config(ApprovalMode::kManual), clock, nullptr, nullptr);
  ASSERT_TRUE(a.set_away(true).ok());
  for (int i = 0; i < 3; ++i) (void)a.ask(command());
  Approver::Step s1 = a.start(command("one"));
  Approver::Step s2 = a.start(command("two"));
  ASSERT_EQ(s1.next, Approver::Step::Next::kPerson);
  clock.advance(minutes(15));
  EXPECT_TRUE(a.on_answer(s1, {Reply::kTimeout, ""}).end_task);
  Decision d2 = a.on_answer(s2, {Reply::kAllowOnce, ""});
  EXPECT_FALSE(d2.allowed);
  EXPECT_EQ(d2.basis, Basis::kTaskEnded);
}

TEST(ApproverSteps, TheVerdictIsJudgedWithTheStateWhenItArrives) {
  // APR-4: the user left while the judge was thinking: the away cutoff applies.
  FakeClock clock;
  Approver a(config(ApprovalMode::kAuto, 0.5, 0.1), clock, nullptr, nullptr);
  Approver::Step s = a.start(net());
  ASSERT_EQ(s.next, Approver::Step::Next::kJudge);
  ASSERT_TRUE(a.set_away(true).ok());
  Approver::Step after = a.on_verdict(s, says(JudgeDecision::kAllow, 0.3));
  ASSERT_EQ(after.next, Approver::Step::Next::kDone);
  EXPECT_EQ(after.decision.basis, Basis::kAway);
}

// A person who answers only once two questions are waiting: with the lock held during a
// question, the second could never be put. The wait is bounded so a failure cannot hang.
class TwoAtOnceAsker : public Asker {
 public:
  PersonAnswer ask(const Question&) override {
    std::unique_lock<std::mutex> lock(mu_);
    ++waiting_;
    cv_.notify_all();
    bool both = cv_.wait_for(lock, std::chrono::seconds(10), [&] { return waiting_ >= 2; });
    if (!both) return {Reply::kDeny, ""};
    return {Reply::kAllowOnce, ""};
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_ = 0;
};

TEST(ApproverSteps, TwoThreadsAskAtOnce) {
  // SRV-4: several execs may wait for approval at the same time.
  FakeClock clock;
  TwoAtOnceAsker asker;
  Approver a(config(ApprovalMode::kManual), clock, nullptr, &asker);
  Decision d1, d2;
  std::thread t1([&] { d1 = a.ask(command("one")); });
  std::thread t2([&] { d2 = a.ask(net("two")); });
  t1.join();
  t2.join();
  EXPECT_TRUE(d1.allowed) << d1.message;
  EXPECT_TRUE(d2.allowed) << d2.message;
}

TEST(Basis, Names) {
  EXPECT_STREQ(to_string(Basis::kUser), "user");
  EXPECT_STREQ(to_string(Basis::kAway), "away");
  EXPECT_STREQ(to_string(Basis::kTaskEnded), "task-ended");
  EXPECT_STREQ(to_string(Basis::kEscapeNever), "escape-never");
}

}  // namespace
}  // namespace cordon
