// Background jobs in the public C++ API (issue 30, include/cordon/job.h): Session::start_job,
// the Job handle's output, write, signal, wait and result, the limit of Options::max_jobs and
// the end of every job with its session.
#include <cordon/cordon.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>

#include "harness.h"
#include "world_options.h"

namespace cordon::it {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<api::Job> start(api::Session& s, const std::string& command,
                                std::function<void(api::Job&)> on_end = {}) {
  api::ExecRequest r;
  r.command = command;
  auto job = s.start_job(r, std::move(on_end));
  EXPECT_TRUE(job.ok()) << job.error().message;
  return job.ok() ? *job : nullptr;
}

TEST(ApiJobs, OutputInTurnsInputUntilEofAndTheResult) {  // JOB-1, issue 30
  REQUIRE_SANDBOX();
  World w;
  auto s = api::Session::open(world_options(w));
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::atomic<int> ends{0};
  auto job = start(**s, "echo ready; cat; echo bye >&2; exit 3", [&](api::Job&) { ++ends; });
  ASSERT_TRUE(job);
  EXPECT_EQ(job->id(), "1");
  EXPECT_EQ((*s)->jobs().size(), 1u);
  ASSERT_TRUE(eventually([&] { return job->output(0).stdout_text == "ready\n"; }));
  uint64_t at = job->output(0).offset;
  EXPECT_TRUE(job->running());
  EXPECT_FALSE(job->result());
  ASSERT_TRUE(job->write("one\n").ok());
  ASSERT_TRUE(eventually([&] { return job->output(at).stdout_text == "one\n"; }));
  at = job->output(at).offset;
  ASSERT_TRUE(job->write("two\n", /*eof=*/true).ok());
  ASSERT_TRUE(job->wait(60s));
  api::JobOutput o = job->output(at);
  EXPECT_EQ(o.stdout_text, "two\n");  // nothing read before comes again
  EXPECT_EQ(o.stderr_text, "bye\n");
  EXPECT_FALSE(o.running);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.dropped, 0u);
  auto res = job->result();
  ASSERT_TRUE(res && res->ok());
  EXPECT_EQ((*res)->exit_code, 3);
  EXPECT_EQ((*res)->stdout_text, "ready\none\ntwo\n");  // as exec would have answered
  EXPECT_TRUE(eventually([&] { return ends == 1; }));
  EXPECT_FALSE(job->write("late").ok());
  EXPECT_FALSE(job->signal(SIGTERM).ok());
}

TEST(ApiJobs, EachStreamKeepsItsLastMegabyteAndCountsTheRest) {  // JOB-1, issue 30
  REQUIRE_SANDBOX();
  World w;
  auto s = api::Session::open(world_options(w));
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto job = start(**s, "head -c 3000000 /dev/zero | tr '\\0' a; echo end >&2");
  ASSERT_TRUE(job);
  ASSERT_TRUE(job->wait(60s));
  api::JobOutput o = job->output(0);
  EXPECT_EQ(o.stdout_text.size(), size_t{1} << 20);
  EXPECT_EQ(o.stderr_text, "end\n");
  EXPECT_EQ(o.dropped, 3000000u - (1u << 20));
  EXPECT_EQ(o.offset, 3000004u);
}

TEST(ApiJobs, SignalKillEndsTheWholeTree) {  // JOB-1, issue 30, PROC-1
  REQUIRE_SANDBOX();
  World w;
  auto s = api::Session::open(world_options(w));
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::string mark = unique_sleep();
  auto job = start(**s, "sleep " + mark + " & sleep " + mark + "; wait");
  ASSERT_TRUE(job);
  ASSERT_TRUE(eventually([&] { return sleeping(mark) == 2; }));
  ASSERT_TRUE(job->signal(SIGKILL).ok());
  ASSERT_TRUE(job->wait(60s));
  EXPECT_NE(job->output().exit_code, 0);
  EXPECT_TRUE(eventually([&] { return sleeping(mark) == 0; }, 30s));
}

TEST(ApiJobs, TheLimitIsOptionsMaxJobs) {  // JOB-1, issue 30
  REQUIRE_SANDBOX();
  World w;
  api::Options o = world_options(w);
  o.max_jobs = 2;
  auto s = api::Session::open(o);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto a = start(**s, "cat");
  auto b = start(**s, "cat");
  ASSERT_TRUE(a && b);
  api::ExecRequest r;
  r.command = "cat";
  auto c = (*s)->start_job(r);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, api::ErrorCode::kUnavailable);
  EXPECT_NE(c.error().message.find("2 background jobs"), std::string::npos) << c.error().message;
  ASSERT_TRUE(a->write("", true).ok());
  ASSERT_TRUE(a->wait(60s));
  EXPECT_TRUE((*s)->start_job(r).ok());
}

TEST(ApiJobs, EndedJobsStayListedUpToTheLimit) {  // JOB-1, issue 30
  REQUIRE_SANDBOX();
  World w;
  api::Options o = world_options(w);
  o.max_jobs = 1;
  auto s = api::Session::open(o);
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<std::shared_ptr<api::Job>> started;
  for (int i = 0; i < 3; ++i) {
    started.push_back(start(**s, "echo " + std::to_string(i)));
    ASSERT_TRUE(started.back());
    ASSERT_TRUE(started.back()->wait(60s));
  }
  auto listed = (*s)->jobs();
  ASSERT_EQ(listed.size(), 2u);  // the last ended one, and the one ended when the third began
  EXPECT_EQ(listed[0]->id(), "2");
  EXPECT_EQ(listed[1]->id(), "3");
  EXPECT_EQ(started[0]->output().stdout_text, "0\n");  // a handle given out still answers
}

TEST(ApiJobs, AJobEndsAtItsTimeoutAndWithItsSession) {  // JOB-1, issue 30, PROC-4
  REQUIRE_SANDBOX();
  World w;
  std::string mark = unique_sleep();
  std::shared_ptr<api::Job> timed, endless;
  {
    auto s = api::Session::open(world_options(w));
    ASSERT_TRUE(s.ok()) << s.error().message;
    api::ExecRequest r;
    r.command = "sleep 1000";
    r.timeout = 300ms;
    auto t = (*s)->start_job(r);
    ASSERT_TRUE(t.ok());
    timed = *t;
    ASSERT_TRUE(timed->wait(60s));
    auto res = timed->result();
    ASSERT_TRUE(res && res->ok());
    EXPECT_TRUE((*res)->timed_out);
    EXPECT_EQ((*res)->exit_code, 124);
    endless = start(**s, "echo on; sleep " + mark + " & sleep " + mark + "; wait");
    ASSERT_TRUE(endless);
    ASSERT_TRUE(eventually([&] { return sleeping(mark) == 2; }));
  }
  // The session is gone: the job ended with it, and its handle still answers.
  EXPECT_FALSE(endless->running());
  EXPECT_EQ(endless->output().stdout_text, "on\n");
  EXPECT_TRUE(eventually([&] { return sleeping(mark) == 0; }, 30s));
}

}  // namespace
}  // namespace cordon::it

namespace cordon::it {
namespace {

// Issue 30, NET-1: in the C++ API too, a job's server is reached by the session's next command
// (the session's loopback, made by the program Options::cordon_binary names); a program that
// cannot make it leaves each command a loopback of its own, and the policy says why.
TEST(ApiJobs, TheSessionsLoopbackOrOnePerCommandAndWhy) {  // JOB-2
  REQUIRE_SANDBOX();
  World w;
  {
    auto s = api::Session::open(world_options(w));
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto job = start(**s, "exec /usr/bin/python3 -c 'import socket,time; s=socket.socket(); "
                          "s.bind((\"127.0.0.1\", 0)); s.listen(); print(s.getsockname()[1], "
                          "flush=True); time.sleep(60)'");
    ASSERT_TRUE(job);
    ASSERT_TRUE(eventually([&] { return !job->output(0).stdout_text.empty(); }));
    std::string port = job->output(0).stdout_text;
    port.pop_back();
    api::ExecRequest r;
    r.argv = {"/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo reached"};
    auto res = (*s)->exec(r);
    ASSERT_TRUE(res.ok()) << res.error().message;
    EXPECT_EQ(res->stdout_text, "reached\n") << res->stderr_text;
    auto policy = (*s)->policy_json();
    ASSERT_TRUE(policy.ok());
    EXPECT_NE(policy->find("\"shared_by\": \"session\""), std::string::npos) << *policy;
  }
  api::Options o = world_options(w);
  o.cordon_binary = "/bin/false";  // cannot make it
  auto s = api::Session::open(o);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto policy = (*s)->policy_json();
  ASSERT_TRUE(policy.ok());
  EXPECT_NE(policy->find("\"shared_by\": \"command\""), std::string::npos) << *policy;
  EXPECT_NE(policy->find("loopback could not be made"), std::string::npos) << *policy;
}

// JOB-3 (issue 30 item 3): ExecRequest::tty in the C++ API: exec answers the terminal's output at
// the end; a job's terminal is typed into by Job::write and sized by Job::resize.
TEST(ApiJobs, TtyExecAndAJobsTerminalResized) {  // JOB-3
  REQUIRE_SANDBOX();
  World w;
  auto s = api::Session::open(world_options(w));
  ASSERT_TRUE(s.ok()) << s.error().message;
  api::ExecRequest r;
  r.command = "test -t 0 && stty size";
  r.tty = true;
  r.cols = 77;
  r.rows = 33;
  auto res = (*s)->exec(r);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_EQ(res->exit_code, 0);
  EXPECT_EQ(res->stdout_text, "33 77\r\n");
  r.cols = 0;
  EXPECT_FALSE((*s)->exec(r).ok());

  api::ExecRequest jr;
  jr.command = "while read -r line; do stty size; done";
  jr.tty = true;
  auto job = (*s)->start_job(jr);
  ASSERT_TRUE(job.ok()) << job.error().message;
  ASSERT_TRUE((*job)->resize(101, 41).ok());
  ASSERT_TRUE((*job)->write("size?\n").ok());
  EXPECT_TRUE(eventually([&] {
    return (*job)->output(0).stdout_text.find("41 101\r\n") != std::string::npos;
  })) << (*job)->output(0).stdout_text;
  EXPECT_FALSE((*job)->resize(0, 10).ok());
  ASSERT_TRUE((*job)->write("", /*eof=*/true).ok());
  ASSERT_TRUE((*job)->wait(60s));
  EXPECT_FALSE((*job)->resize(90, 30).ok());  // ended
  auto plain = start(**s, "sleep 30");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->resize(90, 30).ok());  // no terminal
  EXPECT_TRUE(plain->signal(SIGKILL).ok());
}

}  // namespace
}  // namespace cordon::it
