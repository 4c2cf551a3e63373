// The judge runner (APR-2) with real programs: /bin/sh scripts stand in for judges. No sandbox
// is involved, so nothing here skips.
#include "launch/judge_process.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "harness.h"

namespace cordon {
namespace {

namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class JudgeProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path.empty());
    dir_ = tmp_.path;
    env_.set("PATH", "/usr/bin:/bin");
    env_.set("HOME", dir_);
  }

  // Writes an executable /bin/sh script and returns its path.
  std::string script(const std::string& name, const std::string& body, int mode = 0755) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), static_cast<mode_t>(mode));
    return path;
  }
  std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  it::TempDir tmp_{"cordon-judge"};
  std::string dir_;
  EnvMap env_;
};

ApprovalRequest network(std::string command = "npm install") {
  return make_request(AskKind::kNetwork, std::move(command), std::nullopt,
                      "please, it is harmless");
}

TEST_F(JudgeProcessTest, AWellFormedAnswerIsTheVerdict) {
  // APR-2
  const std::pair<std::string, JudgeDecision> answers[] = {
      {R"({"decision":"allow","risk":0.1})", JudgeDecision::kAllow},
      {R"({"decision":"ask","risk":0.5})", JudgeDecision::kAsk},
      {R"({"decision":"deny","risk":0.95})", JudgeDecision::kDeny},
  };
  for (const auto& [answer, decision] : answers) {
    SCOPED_TRACE(answer);
    std::string judge = script("judge", "cat >/dev/null\necho '" + answer + "'");
    JudgeVerdict v = JudgeProcess(judge, env_).judge(network());
    EXPECT_EQ(v.problem, "");
    EXPECT_EQ(v.decision, decision);
    ASSERT_TRUE(v.risk.has_value());
  }
}

TEST_F(JudgeProcessTest, TheJudgeReadsTheRequestWithoutTheReason) {
  // APR-2: the request as JSON on stdin; the caller's reason is not part of it.
  std::string seen = dir_ + "/seen.json";
  std::string judge =
      script("judge", "cat >'" + seen + "'\necho '{\"decision\":\"allow\",\"risk\":0}'");
  JudgeVerdict v = JudgeProcess(judge, env_).judge(network("curl https://example.com"));
  ASSERT_EQ(v.problem, "");
  auto j = nlohmann::json::parse(read(seen));
  EXPECT_EQ(j["kind"], "network");
  EXPECT_EQ(j["command"], "curl https://example.com");
  EXPECT_FALSE(j.contains("reason"));
  EXPECT_FALSE(has(read(seen), "harmless"));
}

TEST_F(JudgeProcessTest, AnythingWrongCountsAsAsk) {
  // APR-2: a judge that crashes, times out or prints garbage counts as ask.
  struct Case {
    const char* name;
    std::string body;
    std::string problem_part;
  };
  const Case cases[] = {
      {"garbage", "cat >/dev/null\necho 'sure, go ahead'", "not one JSON object"},
      {"silent", "cat >/dev/null", "printed nothing"},
      {"bad risk", "cat >/dev/null\necho '{\"decision\":\"allow\",\"risk\":7}'", "from 0 to 1"},
      {"good answer, bad exit",
       "cat >/dev/null\necho '{\"decision\":\"allow\",\"risk\":0}'\necho 'quota exceeded' >&2\n"
       "exit 3",
       "exited with status 3 (it said: quota exceeded)"},
      {"crash", "cat >/dev/null\nkill -SEGV $$", "signal 11"},
      {"logs before the answer",
       "cat >/dev/null\necho 'loading model'\necho '{\"decision\":\"allow\",\"risk\":0}'",
       "not one JSON object"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string judge = script("judge", c.body);
    JudgeVerdict v = JudgeProcess(judge, env_).judge(network());
    EXPECT_EQ(v.decision, JudgeDecision::kAsk);
    EXPECT_EQ(v.risk, std::nullopt);
    EXPECT_TRUE(has(v.problem, c.problem_part)) << v.problem;
  }
}

TEST_F(JudgeProcessTest, ASlowJudgeIsStopped) {
  // APR-2: past its timeout the judge is ended and the request goes to a person.
  std::string judge = script("judge", "sleep 30\necho '{\"decision\":\"allow\",\"risk\":0}'");
  auto started = std::chrono::steady_clock::now();
  JudgeVerdict v = JudgeProcess(judge, env_, std::chrono::milliseconds(300)).judge(network());
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(v.decision, JudgeDecision::kAsk);
  EXPECT_TRUE(has(v.problem, "did not answer within")) << v.problem;
  EXPECT_LT(took, std::chrono::seconds(20));  // not the 30 s of its sleep
}

TEST_F(JudgeProcessTest, AJudgeThatCannotStart) {
  // APR-2: a missing or unrunnable judge never approves anything.
  std::string not_exec = script("not-exec", "echo '{\"decision\":\"allow\",\"risk\":0}'", 0644);
  struct Case {
    std::string program;
    std::string problem_part;
  };
  const Case cases[] = {
      {dir_ + "/missing", "could not start"},
      {not_exec, "could not start"},
      {"no-such-judge-anywhere", "not found on PATH"},
      {"", "no judge program"},
      {"bin/judge", "relative path"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.program);
    JudgeVerdict v = JudgeProcess(c.program, env_).judge(network());
    EXPECT_EQ(v.decision, JudgeDecision::kAsk);
    EXPECT_TRUE(has(v.problem, c.problem_part)) << v.problem;
  }
}

TEST_F(JudgeProcessTest, ProgramNamedOnPathOrUnderHome) {
  // APR-2: [approvals] judge may be a name on PATH or ~/...
  fs::create_directories(dir_ + "/bin");
  script("bin/cordon-test-judge", "cat >/dev/null\necho '{\"decision\":\"deny\",\"risk\":1}'");
  env_.set("PATH", dir_ + "/bin:/usr/bin:/bin");
  JudgeVerdict by_name = JudgeProcess("cordon-test-judge", env_).judge(network());
  EXPECT_EQ(by_name.problem, "");
  EXPECT_EQ(by_name.decision, JudgeDecision::kDeny);
  JudgeVerdict by_home = JudgeProcess("~/bin/cordon-test-judge", env_).judge(network());
  EXPECT_EQ(by_home.problem, "");
  EXPECT_EQ(by_home.decision, JudgeDecision::kDeny);
  EnvMap no_home = env_;
  no_home.unset("HOME");
  JudgeVerdict homeless = JudgeProcess("~/bin/cordon-test-judge", no_home).judge(network());
  EXPECT_TRUE(has(homeless.problem, "HOME")) << homeless.problem;
}

TEST_F(JudgeProcessTest, TheJudgeGetsTheGivenEnvironment) {
  // The judge is the user's own program: it may need its own settings (an API key).
  std::string judge = script("judge",
                             "cat >/dev/null\n"
                             "if [ \"$JUDGE_TOKEN\" = t0k3n ]; then "
                             "echo '{\"decision\":\"allow\",\"risk\":0}'; else exit 7; fi");
  env_.set("JUDGE_TOKEN", "t0k3n");
  EXPECT_EQ(JudgeProcess(judge, env_).judge(network()).decision, JudgeDecision::kAllow);
  env_.unset("JUDGE_TOKEN");
  EXPECT_TRUE(has(JudgeProcess(judge, env_).judge(network()).problem, "status 7"));
}

TEST_F(JudgeProcessTest, AJudgeThatDoesNotReadItsInputDoesNotEndCordon) {
  // A judge that answers without reading a large request leaves its pipe broken: the write
  // fails with EPIPE, and the SIGPIPE it raises must not end this process (gtest keeps the
  // default disposition, which would kill it).
  std::string judge = script("judge", "echo '{\"decision\":\"deny\",\"risk\":1}'");
  std::string big(4 << 20, 'x');
  JudgeVerdict v = JudgeProcess(judge, env_).judge(network(big));
  EXPECT_EQ(v.problem, "");
  EXPECT_EQ(v.decision, JudgeDecision::kDeny);
  sigset_t pending;
  sigpending(&pending);
  EXPECT_EQ(sigismember(&pending, SIGPIPE), 0);
}

// True once `pid` has exited (gone, or a zombie waiting for its new parent).
bool ended(const std::string& pid) {
  for (int i = 0; i < 500; ++i) {  // up to 5 s: SIGKILL lands at once, reaping may lag
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z')
      return true;
    usleep(10'000);
  }
  return false;
}

TEST_F(JudgeProcessTest, WhatTheJudgeLeftBehindIsEnded) {
  // A background process the judge started is ended with it and does not hold up the verdict.
  std::string pid_file = dir_ + "/bg.pid";
  std::string judge = script("judge", "cat >/dev/null\nsleep 30 &\necho $! >'" + pid_file +
                                          "'\necho '{\"decision\":\"allow\",\"risk\":0}'");
  auto started = std::chrono::steady_clock::now();
  JudgeVerdict v = JudgeProcess(judge, env_).judge(network());
  EXPECT_EQ(v.problem, "");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
  std::string pid = read(pid_file);
  while (!pid.empty() && pid.back() == '\n') pid.pop_back();
  ASSERT_FALSE(pid.empty());
  EXPECT_TRUE(ended(pid)) << "the judge's background sleep (pid " << pid << ") still runs";
}

}  // namespace
}  // namespace cordon
