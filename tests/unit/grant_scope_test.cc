// APR: a session grant covers exactly the request the person saw (command or argv, working
// folder, standard input, ways out), the question shows the folder and the start of stdin, and
// the judge's answer is exactly one JSON object.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "approval/approver.h"
#include "approval/exec_gate.h"
#include "approval/judge.h"
#include "approval/request.h"
#include "core/sha256.h"

namespace cordon {
namespace {

class StillClock : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override { return t; }
  std::chrono::steady_clock::time_point t{};
};

// Answers "allow for this session" once, then counts the questions it is put.
class CountingAsker : public Asker {
 public:
  PersonAnswer ask(const Question& q) override {
    seen.push_back(q);
    return {asked++ == 0 ? Reply::kAllowForSession : Reply::kDeny, ""};
  }
  int asked = 0;
  std::vector<Question> seen;
};

ApprovalRequest exec(const std::string& command, const std::string& cwd,
                     std::optional<std::string> in) {
  ExecGateInput g;
  g.mode = SandboxMode::kExternal;
  g.command = command;
  g.cwd = cwd;
  g.stdin_data = std::move(in);
  g.verdict = CommandVerdict{CommandVerdict::kNeedsApproval, "sh is not read-only"};
  ExecGate gate = gate_exec(g);
  EXPECT_EQ(gate.asks.size(), 1u);
  return gate.asks.at(0);
}

// APR-1, APR-3: after "allow for this session" on `sh` with stdin "echo hello", another stdin
// or another working folder asks again; the very same request does not.
TEST(GrantScope, CoversOnlyTheExactRequest) {
  StillClock clock;
  CountingAsker asker;
  ApproverConfig c;
  c.mode = ApprovalMode::kManual;
  Approver a(c, clock, nullptr, &asker);
  EXPECT_TRUE(a.ask(exec("sh", "/p", "echo hello")).allowed);
  EXPECT_TRUE(a.ask(exec("sh", "/p", "echo hello")).allowed) << "the same request: the grant";
  EXPECT_EQ(asker.asked, 1);
  EXPECT_FALSE(a.ask(exec("sh", "/p", "rm -rf ~")).allowed) << "another stdin asks";
  EXPECT_FALSE(a.ask(exec("sh", "/elsewhere", "echo hello")).allowed) << "another folder asks";
  EXPECT_FALSE(a.ask(exec("sh", "/p", std::nullopt)).allowed) << "no stdin asks";
  ApprovalRequest argv = exec("sh", "/p", "echo hello");
  argv.argv_form = true;
  EXPECT_FALSE(a.ask(argv).allowed) << "an argv is another request";
  ApprovalRequest net = exec("sh", "/p", "echo hello");
  net.network = true;
  EXPECT_FALSE(a.ask(net).allowed) << "with the network is another request";
  EXPECT_EQ(asker.asked, 6);
}

// APR-7, SRV-1: the question names the working folder and shows the start of stdin and its size.
TEST(GrantScope, QuestionShowsFolderAndStdin) {
  ApprovalRequest r = exec("sh", "/p/src", std::string(600, 'x') + "\n");
  std::string q = question_text(r);
  EXPECT_NE(q.find("in /p/src"), std::string::npos) << q;
  EXPECT_NE(q.find("601 bytes on standard input starting"), std::string::npos) << q;
  nlohmann::json j = to_ask_params(r);
  EXPECT_EQ(j["cwd"], "/p/src");
  EXPECT_EQ(j["stdin"]["size"], 601);
  EXPECT_EQ(j["stdin"]["start"].get<std::string>().size(), kStdinShown);
  EXPECT_EQ(j["stdin"]["truncated"], true);
  EXPECT_EQ(j["stdin"]["sha256"], sha256_hex(std::string(600, 'x') + "\n"));
  // The judge sees the same, without the agent's reason.
  nlohmann::json in = nlohmann::json::parse(judge_input(r));
  EXPECT_EQ(in["cwd"], "/p/src");
  EXPECT_EQ(in["stdin"]["size"], 601);
  EXPECT_FALSE(in.contains("reason"));
  // Control characters are shown, not played.
  EXPECT_NE(question_text(exec("sh", "/p", "a\x1b[2Jb")).find("\\x1b"), std::string::npos);
  EXPECT_NE(question_text(exec("sh", "/p", std::nullopt)).find("no standard input"),
            std::string::npos);
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// APR-2: anything but exactly one JSON object (JSON whitespace aside) is "ask a person".
TEST(JudgeAnswer, ExactlyOneObject) {
  EXPECT_EQ(parse_judge_output(" {\"decision\":\"allow\",\"risk\":0}\n").decision,
            JudgeDecision::kAllow);
  for (std::string bad :
       {std::string("{\"decision\":\"allow\",\"risk\":0}\0junk",
                    sizeof("{\"decision\":\"allow\",\"risk\":0}\0junk") - 1),
        std::string("{\"decision\":\"allow\",\"risk\":0}\0",
                    sizeof("{\"decision\":\"allow\",\"risk\":0}\0") - 1),
        std::string("\xEF\xBB\xBF{\"decision\":\"allow\",\"risk\":0}"),
        std::string("{\"decision\":\"allow\",\"risk\":0}{\"decision\":\"allow\",\"risk\":0}"),
        std::string("{\"decision\":\"deny\",\"decision\":\"allow\",\"risk\":0}"),
        std::string("{\"decision\":\"allow\",\"risk\":0} x"),
        std::string("\f{\"decision\":\"allow\",\"risk\":0}"),
        std::string("[{\"decision\":\"allow\",\"risk\":0}]"),
        std::string("{\"decision\":\"allow\",\"risk\":0} // ok")}) {
    JudgeVerdict v = parse_judge_output(bad);
    EXPECT_EQ(v.decision, JudgeDecision::kAsk) << bad;
    EXPECT_FALSE(v.problem.empty()) << bad;
  }
}

// APR-2: a risk just above the cutoff is shown as it is, not rounded to the cutoff.
TEST(JudgeAnswer, RiskAtTheCutoffIsShownUnrounded) {
  StillClock clock;
  CountingAsker asker;
  ApproverConfig c;
  c.mode = ApprovalMode::kAuto;
  c.cutoff = 0.2;
  Approver a(c, clock, nullptr, &asker);
  Approver::Step s = a.start(exec("sh", "/p", std::nullopt));
  ASSERT_EQ(s.next, Approver::Step::Next::kJudge);
  s = a.on_verdict(s, JudgeVerdict{JudgeDecision::kAllow, 0.2000001, ""});
  ASSERT_EQ(s.next, Approver::Step::Next::kPerson);
  EXPECT_NE(s.question.judge_note.find("0.2000001"), std::string::npos) << s.question.judge_note;
}

}  // namespace
}  // namespace cordon
