// The public C++ API (include/cordon/cordon.h) as an embedder uses it: only that header, a
// session on a real project, commands in real sandboxes, the file tools with an Asker of the
// embedder's own, classify, review, away, cancel, several commands at once.
#include <cordon/cordon.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "api/face_options.h"
#include "harness.h"
#include "world_options.h"

namespace cordon::it {
namespace {

using namespace std::chrono_literals;

// The embedder's Asker: answers from a fixed reply and records the questions.
class RecordingAsker : public api::Asker {
 public:
  explicit RecordingAsker(api::Reply reply) : reply_(reply) {}
  api::PersonAnswer ask(const api::Question& q) override {
    std::lock_guard<std::mutex> lock(mu_);
    questions.push_back(q);
    return {reply_, ""};
  }
  std::vector<api::Question> questions;

 private:
  std::mutex mu_;
  api::Reply reply_;
};

api::Options options(const World& w, api::Asker* asker = nullptr) {
  return world_options(w, {}, asker);
}

// Issue 15: through the API a NUL in the working folder passed the stat() check (it sees the
// text before the NUL) and gave bwrap an extra writable bind of a host folder.
TEST(Api, ANulByteInTheRequestIsInvalidAndNothingIsBound) {  // FS-2
  REQUIRE_SANDBOX();
  World w;
  std::string victim = w.root() + "/victim";
  w.write(victim + "/keep.txt", "mine\n");
  w.write("sub/x", "x\n");
  auto s = api::Session::open(options(w));
  ASSERT_TRUE(s.ok()) << s.error().message;
  api::ExecRequest r;
  r.command = "echo planted > " + victim + "/keep.txt; echo ran";
  r.cwd =
      w.project() + "/sub" + std::string("\0--bind\0", 8) + victim + std::string(1, '\0') + victim;
  auto res = (*s)->exec(r);
  ASSERT_FALSE(res.ok()) << res->stdout_text;
  EXPECT_EQ(res.error().code, api::ErrorCode::kInvalid) << res.error().message;
  EXPECT_NE(res.error().message.find("NUL"), std::string::npos) << res.error().message;
  EXPECT_EQ(w.read(victim + "/keep.txt"), "mine\n");
  // The same in an argument and in the script.
  r = api::ExecRequest{};
  r.argv = {"/bin/echo", std::string("a\0--bind\0/\0/", 13)};
  res = (*s)->exec(r);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().code, api::ErrorCode::kInvalid);
  r = api::ExecRequest{};
  r.command = std::string("echo a\0b", 8);
  res = (*s)->exec(r);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().code, api::ErrorCode::kInvalid);
}

TEST(Api, OpenExecAndResult) {  // RES-1, FS-2, FS-4
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.aws/credentials", "secret\n");
  auto s = api::Session::open(options(w));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ((*s)->info().project, w.project());
  EXPECT_TRUE((*s)->info().ephemeral);
  api::SandboxStatus st = (*s)->sandbox_status();
  EXPECT_EQ(st.mode, "on");
  EXPECT_TRUE(st.available) << st.reason;

  api::ExecRequest r;
  r.command = "cat ~/.aws/credentials | wc -c; echo x > \"$HOME/x\" || echo refused; exit 4";
  auto res = (*s)->exec(r);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_EQ(res->exit_code, 4);
  EXPECT_EQ(res->stdout_text, "0\nrefused\n");
  EXPECT_FALSE(w.exists(w.home() + "/x"));

  r = api::ExecRequest{};
  r.argv = {"/bin/sh", "-c", "cat"};
  r.stdin_data = "piped";
  res = (*s)->exec(r);
  EXPECT_EQ(res->stdout_text, "piped");

  r = api::ExecRequest{};  // neither argv nor command
  EXPECT_EQ((*s)->exec(r).error().code, api::ErrorCode::kInvalid);
}

// Issue 30 item 4: ExecRequest::on_output has the output as it comes: the command waits for
// a file that the callback makes once it saw the first line. Its pieces add up to the
// result's output, and stop where the result's output is cut (output_limit).
TEST(Api, OnOutputHasTheOutputAsItComes) {  // issue 30 item 4, RES-1
  REQUIRE_SANDBOX();
  World w;
  auto s = api::Session::open(options(w));
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::string out, err;
  api::ExecRequest r;
  r.command = "echo one; while [ ! -e go ]; do sleep 0.05; done; echo two >&2";
  r.timeout = 60s;
  r.on_output = [&](int stream, std::string_view data) {
    (stream == 2 ? err : out).append(data);
    if (out == "one\n") w.write(w.project() + "/go", "");
  };
  auto res = (*s)->exec(r);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_FALSE(res->timed_out) << "the first line did not come while the command ran";
  EXPECT_EQ(out, res->stdout_text);
  EXPECT_EQ(err, res->stderr_text);
  EXPECT_EQ(err, "two\n");

  std::string kept;
  api::ExecRequest cut;
  cut.command = "printf 0123456789abcdefghij";
  cut.output_limit = 10;
  cut.on_output = [&](int, std::string_view data) { kept.append(data); };
  res = (*s)->exec(cut);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_TRUE(res->stdout_truncated);
  EXPECT_EQ(res->stdout_text, "0123456789");
  EXPECT_EQ(kept, res->stdout_text);
}

// Options::on_notice: the start notices reach the embedder before the first command runs (the
// file the command makes is not there yet when they come), and are in its result as well.
TEST(Api, StartNoticesComeBeforeTheFirstCommandRuns) {  // ENV-4, RES-1
  REQUIRE_SANDBOX();
  World w;
  api::Options o = options(w);
  o.environment->push_back("AWS_SECRET_ACCESS_KEY=x");
  std::vector<std::string> heard;
  bool ran_before = false;
  o.on_notice = [&](const std::string& n) {
    heard.push_back(n);
    ran_before |= w.exists("ran");
  };
  auto s = api::Session::open(o);
  ASSERT_TRUE(s.ok()) << s.error().message;
  api::ExecRequest r;
  r.command = "echo yes > ran";
  auto res = (*s)->exec(r);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_TRUE(w.exists("ran"));
  EXPECT_FALSE(ran_before);
  ASSERT_FALSE(heard.empty());
  EXPECT_NE(heard.back().find("AWS_SECRET_ACCESS_KEY"), std::string::npos) << heard.back();
  EXPECT_EQ(res->notices, heard);
  res = (*s)->exec(r);  // the first command's only
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_TRUE(res->notices.empty());
}

TEST(Api, WaysOutGoThroughTheAsker) {  // APR-1, APR-3, APR-7
  REQUIRE_SANDBOX();
  World w;
  RecordingAsker deny(api::Reply::kDeny);
  auto s = api::Session::open(options(w, &deny));
  ASSERT_TRUE(s.ok());
  api::ExecRequest r;
  r.command = "echo out > \"$HOME/o.txt\"";
  r.outside_sandbox = true;
  r.reason = "needs the home folder";
  auto res = (*s)->exec(r);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().code, api::ErrorCode::kRefused);
  ASSERT_EQ(deny.questions.size(), 1u);
  EXPECT_EQ(deny.questions[0].request.kind, api::AskKind::kOutsideSandbox);
  EXPECT_EQ(deny.questions[0].request.reason, "needs the home folder");
  EXPECT_FALSE(deny.questions[0].session_grant_offered);
  EXPECT_FALSE(w.exists(w.home() + "/o.txt"));

  RecordingAsker allow(api::Reply::kAllowOnce);
  auto s2 = api::Session::open(options(w, &allow));
  res = (*s2)->exec(r);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_EQ(w.read(w.home() + "/o.txt"), "out\n");

  // No Asker: refused, saying nobody can be asked; a face (the CLI) gives its own words.
  api::Options o = options(w);
  auto s3 = api::Session::open(o);
  res = (*s3)->exec(r);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().code, api::ErrorCode::kRefused);
  EXPECT_NE(res.error().message.find("nobody can be asked to approve it"), std::string::npos)
      << res.error().message;
  api::FaceOptions face;
  face.no_asker_note = "this tool has no way to ask you";
  auto s_face = api::open_for_face(o, face);
  res = (*s_face)->exec(r);
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.error().message.find("this tool has no way to ask you"), std::string::npos);

  // Approved in advance: no question (never outside_sandbox).
  RecordingAsker never(api::Reply::kDeny);
  o = options(w, &never);
  o.preapproved = {api::AskKind::kNetwork, api::AskKind::kOutsideSandbox};
  auto s4 = api::Session::open(o);
  api::ExecRequest net;
  net.argv = {"true"};
  net.network = true;
  EXPECT_TRUE((*s4)->exec(net).ok());
  EXPECT_TRUE(never.questions.empty());
  EXPECT_FALSE((*s4)->exec(r).ok());
  EXPECT_EQ(never.questions.size(), 1u);
}

TEST(Api, FileToolsClassifyReview) {  // FILE-1..6, CMD-6, REV-1
  REQUIRE_SANDBOX();
  World w;
  w.write(".env", "KEY=1\n");
  RecordingAsker allow(api::Reply::kAllowOnce);
  auto s = api::Session::open(options(w, &allow));
  ASSERT_TRUE(s.ok());
  auto rf = (*s)->read_file({".env"});
  ASSERT_TRUE(rf.ok()) << rf.error().message;
  EXPECT_EQ(rf->content, "KEY=1\n");
  ASSERT_EQ(allow.questions.size(), 1u);
  EXPECT_EQ(allow.questions[0].request.kind, api::AskKind::kCredentialRead);
  auto wf = (*s)->write_file({"a/b.txt", "one\n"});
  ASSERT_TRUE(wf.ok()) << wf.error().message;
  EXPECT_TRUE(wf->created);
  auto ef = (*s)->edit_file({"a/b.txt", "one", "two"});
  EXPECT_EQ(ef->replacements, 1u);
  api::SearchRequest sr;
  sr.pattern = "two|KEY";
  auto found = (*s)->search(sr);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->matches.size(), 1u);  // .env is skipped (FILE-4)
  EXPECT_EQ(found->matches[0].path, "a/b.txt");
  EXPECT_EQ(found->credential_files_skipped, 1u);
  EXPECT_EQ((*s)->read_file({"missing.txt"}).error().code, api::ErrorCode::kInvalid);

  api::ClassifyRequest cr;
  cr.command = "ls -la | grep x";
  EXPECT_EQ((*s)->classify(cr)->cls, "read-only");
  cr.command = "git push";
  EXPECT_EQ((*s)->classify(cr)->cls, "needs-approval");

  EXPECT_EQ((*s)->review().error().code, api::ErrorCode::kInvalid);  // not started
  ASSERT_TRUE((*s)->review_start().ok());
  w.write("README.md", "changed\n");
  auto rev = (*s)->review();
  ASSERT_TRUE(rev.ok()) << rev.error().message;
  EXPECT_NE(rev->text.find("README.md"), std::string::npos) << rev->text;

  auto pj = (*s)->policy_json();
  ASSERT_TRUE(pj.ok());
  EXPECT_NE(pj->find("\"mode\": \"on\""), std::string::npos);
}

TEST(Api, AwayAndApproveAll) {  // APR-2, APR-4
  REQUIRE_SANDBOX();
  World w;
  RecordingAsker allow(api::Reply::kAllowOnce);
  api::Options o = options(w, &allow);
  o.away = true;
  auto s = api::Session::open(o);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE((*s)->away());
  api::ExecRequest r;
  r.argv = {"true"};
  r.network = true;
  EXPECT_EQ((*s)->exec(r).error().code, api::ErrorCode::kRefused);
  EXPECT_TRUE(allow.questions.empty());
  ASSERT_TRUE((*s)->set_away(false).ok());
  EXPECT_TRUE((*s)->exec(r).ok());
  EXPECT_EQ(allow.questions.size(), 1u);

  w.config("[approvals]\nmode = \"approve-all\"\n");
  auto refused = api::Session::open(o);  // away under approve-all
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, api::ErrorCode::kRefused);
}

TEST(Api, CancelAndConcurrentExecs) {  // SRV-4, PROC-4
  REQUIRE_SANDBOX();
  World w;
  auto s = api::Session::open(options(w));
  ASSERT_TRUE(s.ok());
  api::Cancel cancel;
  api::ExecRequest slow;
  slow.command = "sleep 30";
  slow.cancel = &cancel;
  api::Result<api::ExecResult> slow_res = api::Error{api::ErrorCode::kInvalid, "not run", "", 0};
  std::thread t([&] { slow_res = (*s)->exec(slow); });
  // Meanwhile other commands run.
  for (int i = 0; i < 5; ++i) {
    api::ExecRequest r;
    r.command = "echo " + std::to_string(i);
    auto res = (*s)->exec(r);
    ASSERT_TRUE(res.ok()) << res.error().message;
    EXPECT_EQ(res->stdout_text, std::to_string(i) + "\n");
  }
  auto t0 = std::chrono::steady_clock::now();
  cancel.cancel();
  t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  ASSERT_TRUE(slow_res.ok()) << slow_res.error().message;
  EXPECT_TRUE(slow_res->canceled);
  EXPECT_EQ(slow_res->exit_code, 130);
  EXPECT_TRUE(cancel.canceled());
}

TEST(Api, GitChangesBetweenCommandsOfOneSessionAreSeen) {  // GIT-1 in a long-lived cordon
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.config/tools/hooks/pre-commit", "#!/bin/sh\n", 0755);
  w.config("[sandbox]\nwritable = [\"~/.config/tools\"]\n");
  auto s = api::Session::open(options(w));
  ASSERT_TRUE(s.ok()) << s.error().message;
  api::ExecRequest r;
  r.command = "echo one >> \"$HOME/.config/tools/hooks/pre-commit\"";
  auto res = (*s)->exec(r);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_EQ(res->exit_code, 0);  // not a hooks folder yet: writable
  EXPECT_EQ(w.read(w.home() + "/.config/tools/hooks/pre-commit"), "#!/bin/sh\none\n");
  // The person points git at it between two commands: the next one sees it locked.
  w.host({"git", "config", "core.hooksPath", w.home() + "/.config/tools/hooks"});
  r.command = "echo two >> \"$HOME/.config/tools/hooks/pre-commit\"";
  res = (*s)->exec(r);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_NE(res->exit_code, 0);
  EXPECT_EQ(w.read(w.home() + "/.config/tools/hooks/pre-commit"), "#!/bin/sh\none\n");
  // And an include file named later is locked as well.
  w.write(w.home() + "/.config/tools/extra.gitconfig", "[user]\n\tname = Extra\n");
  r.command = "echo '[core]' >> \"$HOME/.config/tools/extra.gitconfig\"";
  res = (*s)->exec(r);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->exit_code, 0);
  w.write(w.home() + "/.config/tools/extra.gitconfig", "[user]\n\tname = Extra\n");
  w.host({"git", "config", "include.path", w.home() + "/.config/tools/extra.gitconfig"});
  res = (*s)->exec(r);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(w.read(w.home() + "/.config/tools/extra.gitconfig"), "[user]\n\tname = Extra\n");
}

TEST(Api, BrokenConfigIsUnavailable) {  // CFG-2
  World w;
  w.config("[sandbox]\nmode = 3\n");
  auto s = api::Session::open(options(w));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, api::ErrorCode::kUnavailable);
  EXPECT_NE(s.error().message.find("config.toml"), std::string::npos) << s.error().message;
  w.config("");
  api::Options o = options(w);
  o.project = w.root() + "/no-such-folder";
  auto missing = api::Session::open(o);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, api::ErrorCode::kInvalid);
}

}  // namespace
}  // namespace cordon::it
