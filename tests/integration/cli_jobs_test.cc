// The CLI's background jobs end to end (issue 30 item 1): `cordon run --session S --background`
// prints a job id; `cordon job list|output|write|kill|wait` talk to the session's keeper; the
// keeper ends with `cordon session end` and after its idle time. Real binary, real sandboxes.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "harness.h"

namespace cordon::it {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A lasting session of a World, ended (with its keeper) at the end of the test.
struct JobSession {
  explicit JobSession(World& world) : w(world) {
    w.env["CORDON_KEEPER_IDLE"] = "30s";  // a test that fails early leaves no keeper for long
    Proc r = w.cordon({"session", "start"});
    id = r.out.substr(0, r.out.find('\n'));
  }
  ~JobSession() { w.cordon({"session", "end", id}); }

  // `cordon run --session ID --background -c SCRIPT`: the job id, or "" (with `last`).
  std::string start(const std::string& script) {
    last = w.cordon({"run", "--session", id, "--background", "-c", script});
    if (last.status != 0) return "";
    return last.out.substr(0, last.out.find('\n'));
  }
  Proc job(const std::string& action, std::vector<std::string> more = {}) const {
    std::vector<std::string> args = {"job", action, "--session", id};
    args.insert(args.end(), more.begin(), more.end());
    return w.cordon(args);
  }
  std::string keeper_dir() const { return w.home() + "/.local/state/cordon/keepers/" + id; }
  // The keeper's pid, from its record; 0 when none is recorded.
  int keeper_pid() const {
    std::ifstream f(keeper_dir() + "/keeper.pid");
    int pid = 0;
    f >> pid;
    return pid;
  }

  World& w;
  std::string id;
  Proc last;
};

bool alive(int pid) {
  if (pid <= 0 || kill(pid, 0) != 0) return false;
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_s, comm, state;
  f >> pid_s >> comm >> state;
  return state != "Z";
}

TEST(CliJobs, OutputComesIncrementallyNothingLostNothingRepeated) {  // JOB-1, issue 30
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  std::string id = s.start("for i in 1 2 3 4 5 6; do echo line $i; sleep 0.4; done");
  ASSERT_EQ(id, "1") << s.last.err;
  std::string seen;
  int reads_with_news = 0;
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(milliseconds(600));
    Proc r = s.job("output", {id});
    ASSERT_EQ(r.status, 0) << r.err;
    if (!r.out.empty()) ++reads_with_news;
    seen += r.out;
  }
  EXPECT_GE(reads_with_news, 2);  // it came in pieces, while the job ran
  Proc r = s.job("wait", {id});
  EXPECT_EQ(r.status, 0) << r.err;
  seen += s.job("output", {id}).out;
  EXPECT_EQ(seen, "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n");
  EXPECT_EQ(s.job("output", {id}).out, "");             // nothing new
  EXPECT_EQ(s.job("output", {id, "--all"}).out, seen);  // all of it is still held
}

TEST(CliJobs, FollowPrintsUntilTheEndAndExitsWithItsStatus) {  // JOB-1, issue 30
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  std::string id = s.start("echo one; sleep 0.5; echo two >&2; sleep 0.5; echo three; exit 3");
  ASSERT_FALSE(id.empty()) << s.last.err;
  Proc r = s.job("output", {id, "--follow"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.out, "one\nthree\n");
  EXPECT_NE(r.err.find("two\n"), std::string::npos) << r.err;
}

TEST(CliJobs, WriteFeedsACatJob) {  // JOB-1, issue 30
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  std::string id = s.start("cat");
  ASSERT_FALSE(id.empty()) << s.last.err;
  EXPECT_EQ(s.job("write", {id, "hello"}).status, 0);
  Proc r = w.cordon({"job", "write", "--session", s.id, id}, "", "piped in\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(s.job("write", {id, "--eof", "world"}).status, 0);
  r = s.job("wait", {id, "--timeout", "20s"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(s.job("output", {id}).out, "hello\npiped in\nworld\n");
  r = s.job("write", {id, "late"});  // its input is closed
  EXPECT_NE(r.status, 0);
}

TEST(CliJobs, KillEndsTheWholeTreeWithinASecond) {  // JOB-1, issue 30, PROC-1
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  const std::string arg = unique_sleep();
  std::string id = s.start("sleep " + arg + " & sleep " + arg + "; echo never");
  ASSERT_FALSE(id.empty()) << s.last.err;
  ASSERT_TRUE(eventually([&] { return sleeping(arg) == 2; }, seconds(20)));
  auto t0 = std::chrono::steady_clock::now();
  Proc r = s.job("kill", {id});
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_LT(took, seconds(1));
  EXPECT_EQ(sleeping(arg), 0);  // no process of it is left when `job kill` returns
  EXPECT_EQ(s.job("wait", {id}).status, 137);  // 128 + KILL, as `cordon run` would exit
  r = s.job("list");
  EXPECT_EQ(r.out.find("running"), std::string::npos) << r.out;
  EXPECT_EQ(s.job("output", {id}).out, "");
}

TEST(CliJobs, WaitExitsWithTheJobsExitStatus) {  // JOB-1, issue 30, PROC-5
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  std::string seven = s.start("sleep 0.3; exit 7");
  std::string slow = s.start("sleep 30");
  ASSERT_FALSE(seven.empty() || slow.empty()) << s.last.err;
  EXPECT_EQ(s.job("wait", {seven}).status, 7);
  EXPECT_EQ(s.job("wait", {seven}).status, 7);  // and again once ended
  Proc r = s.job("wait", {slow, "--timeout", "300ms"});
  EXPECT_EQ(r.status, 124) << r.err;
  EXPECT_NE(r.err.find("still running"), std::string::npos) << r.err;
  r = s.job("list");
  EXPECT_NE(r.out.find("exit 7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("running"), std::string::npos) << r.out;
}

TEST(CliJobs, ForegroundCommandsRunWhileAJobRuns) {  // JOB-1, issue 30, SES-1
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  ASSERT_FALSE(s.start("echo from-job > /tmp/shared; sleep 30").empty()) << s.last.err;
  ASSERT_TRUE(eventually([&] { return s.job("list").out.find("running") != std::string::npos; }));
  auto t0 = std::chrono::steady_clock::now();
  Proc r = w.cordon({"run", "--session", s.id, "--", "sh", "-c", "sleep 0.5; cat /tmp/shared"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "from-job\n");  // the session's /tmp, shared with its job
  EXPECT_LT(std::chrono::steady_clock::now() - t0, seconds(10));
}

// JOB-2 on the command line: a foreground `cordon run --session S` is in the loopback of the
// session's background jobs (it reaches a server one of them started); a `cordon run` without
// the session, and the machine, are not.
TEST(CliJobs, ForegroundCommandsOfTheSessionReachAJobsServer) {  // JOB-2, issue 30
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  std::string id = s.start(
      "exec /usr/bin/python3 -c 'import socket,time; s=socket.socket(); "
      "s.bind((\"127.0.0.1\", 0)); s.listen(); print(s.getsockname()[1], flush=True); "
      "c, _ = s.accept(); c.sendall(b\"hello from the job\\n\"); time.sleep(60)'");
  ASSERT_FALSE(id.empty()) << s.last.err;
  std::string port;
  ASSERT_TRUE(eventually([&] {
    port = s.job("output", {id, "--all"}).out;
    return !port.empty() && port.back() == '\n';
  }));
  port.pop_back();
  const std::string read = "exec 3<>/dev/tcp/127.0.0.1/" + port + " && head -1 <&3";
  Proc alone = w.cordon({"run", "--", "/bin/bash", "-c", read});
  EXPECT_NE(alone.status, 0) << alone.out;
  EXPECT_FALSE(host_connects(std::stoi(port)));
  Proc same = w.cordon({"run", "--session", s.id, "--", "/bin/bash", "-c", read});
  EXPECT_EQ(same.status, 0) << same.err;
  EXPECT_EQ(same.out, "hello from the job\n");
}

TEST(CliJobs, TwoStartingAtOnceShareOneKeeper) {  // JOB-1, issue 30
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  Proc a, b;
  std::thread ta([&] { a = w.cordon({"run", "--session", s.id, "--background", "--", "true"}); });
  std::thread tb([&] { b = w.cordon({"run", "--session", s.id, "--background", "--", "true"}); });
  ta.join();
  tb.join();
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(std::set<std::string>({a.out, b.out}), std::set<std::string>({"1\n", "2\n"}));
  Proc r = s.job("list");
  EXPECT_NE(r.out.find("1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 "), std::string::npos) << r.out;
}

TEST(CliJobs, SessionEndEndsTheKeeperAndItsJobs) {  // JOB-1, issue 30, SES-1, PROC-1
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  const std::string arg = unique_sleep();
  ASSERT_FALSE(s.start("sleep " + arg).empty()) << s.last.err;
  ASSERT_TRUE(eventually([&] { return sleeping(arg) == 1; }, seconds(20)));
  int keeper = s.keeper_pid();
  ASSERT_TRUE(alive(keeper)) << keeper;
  Proc r = w.cordon({"session", "end", s.id});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(alive(keeper));
  EXPECT_EQ(sleeping(arg), 0);
  EXPECT_FALSE(w.exists(s.keeper_dir()));
  r = s.job("list");
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("there is no session " + s.id), std::string::npos) << r.err;
}

TEST(CliJobs, TheKeeperExitsWhenIdle) {  // JOB-1, issue 30
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  w.env["CORDON_KEEPER_IDLE"] = "1s";
  std::string id = s.start("sleep 1; echo done");
  ASSERT_FALSE(id.empty()) << s.last.err;
  int keeper = s.keeper_pid();
  ASSERT_TRUE(alive(keeper));
  std::this_thread::sleep_for(milliseconds(1500));
  EXPECT_TRUE(alive(keeper));                      // its job ran until a moment ago
  EXPECT_EQ(s.job("output", {id}).out, "done\n");  // an ended job's output stays readable
  EXPECT_TRUE(eventually([&] { return !alive(keeper); }, seconds(10)));
  Proc r = s.job("list");
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("has no background jobs"), std::string::npos) << r.err;
  // The next background run starts a keeper again.
  EXPECT_EQ(s.start("true"), "1") << s.last.err;
}

TEST(CliJobs, UnknownSessionOrJobIsNamedWithTheFix) {  // JOB-1, issue 30
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  Proc r = w.cordon({"run", "--background", "--", "true"});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("--background needs a session"), std::string::npos) << r.err;
  r = w.cordon({"job", "list", "--session", "0123456789abcdef"});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("there is no session 0123456789abcdef"), std::string::npos) << r.err;
  ASSERT_FALSE(s.start("true").empty()) << s.last.err;
  r = s.job("output", {"9"});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("there is no job 9 in session " + s.id), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cordon job list --session " + s.id), std::string::npos) << r.err;
}

TEST(CliJobs, TheKeeperFolderAndSocketAreTheUsersOnly) {  // JOB-1, issue 30, FS-13
  REQUIRE_SANDBOX();
  World w;
  JobSession s(w);
  ASSERT_FALSE(s.start("true").empty()) << s.last.err;
  struct stat dir, sock;
  ASSERT_EQ(stat(s.keeper_dir().c_str(), &dir), 0);
  ASSERT_EQ(stat((s.keeper_dir() + "/keeper.sock").c_str(), &sock), 0);
  EXPECT_EQ(dir.st_mode & 0777, 0700u);
  EXPECT_EQ(sock.st_mode & 0777, 0600u);
  EXPECT_EQ(dir.st_uid, geteuid());
  // A sandboxed command does not see the keeper's folder (cordon's state folder is hidden).
  Proc r = w.cordon({"run", "--session", s.id, "--", "ls", "-A", s.keeper_dir()});
  EXPECT_EQ(r.out, "") << r.out;
}

}  // namespace
}  // namespace cordon::it

namespace cordon::it {
namespace {

// The session's record as saved, for the folders FS-10 keeps.
std::string record_text(const World& w, const std::string& id) {
  std::ifstream f(w.home() + "/.local/state/cordon/sessions/" + id + ".json");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(CliJobs, TheKeeperKeepsWhatForegroundCommandsRecorded) {  // JOB-1, issue 30, FS-10, SES-1
  REQUIRE_SANDBOX();
  World w;
  w.write(".vscode/settings.json", "{}\n");
  w.write(".idea/workspace.xml", "<x/>\n");
  w.host({"git", "add", "-A"});
  w.host({"git", "commit", "-q", "-m", "protected folders"});
  JobSession s(w);
  ASSERT_FALSE(s.start("true").empty()) << s.last.err;  // the keeper has read the record now
  Proc r = w.cordon({"run", "--session", s.id, "--", "chmod", "000", ".vscode"});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_NE(record_text(w, s.id).find("\".vscode\""), std::string::npos) << record_text(w, s.id);
  std::string id = s.start("chmod 000 .idea");
  ASSERT_FALSE(id.empty()) << s.last.err;
  r = s.job("wait", {id});
  EXPECT_EQ(r.status, 0);
  // Its note names the folder it made unreadable, not the one the foreground command did.
  EXPECT_NE(r.err.find("made .idea unreadable"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("made .vscode unreadable"), std::string::npos) << r.err;
  const std::string rec = record_text(w, s.id);
  EXPECT_NE(rec.find("\".vscode\""), std::string::npos) << rec;  // not written over
  EXPECT_NE(rec.find("\".idea\""), std::string::npos) << rec;
  w.host({"chmod", "-R", "u+rwx", w.abs(".vscode"), w.abs(".idea")});
}

}  // namespace
}  // namespace cordon::it
