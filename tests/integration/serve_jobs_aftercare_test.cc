// Aftercare while `cordon serve`'s background jobs run (issue 30 item 5): what a job plants is
// moved aside by the next command's aftercare or at the job's end, never deleted, with a note
// (PROT-7, GIT-8); a job left by a killed cordon is found and ended by `session resume` (SES-3,
// PROC-3). The real binary over stdio, real sandboxes; the test's gate files, not timing.
#include <dirent.h>
#include <signal.h>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

using std::chrono::seconds;

struct Served {
  Served(World& w, json params = json::object()) : client({"serve"}, w.env, w.project()) {
    params["project"] = w.project();
    init = client.call("initialize", params);
  }
  std::string start(const std::string& command) {
    last = client.call("exec", {{"command", command}, {"background", true}});
    if (!last.contains("result")) return "";
    return last["result"]["job"].get<std::string>();
  }
  json ended(const std::string& id) {
    for (const auto& m : client.server_requests())
      if (m["method"] == "job/ended" && m["params"]["job"] == id) return m["params"];
    return json();
  }
  bool wait_ended(const std::string& id) {
    return eventually([&] { return !ended(id).is_null(); }, seconds(120));
  }
  RpcClient client;
  json init, last;
};

// A shell loop that waits (up to two minutes) for the project file `name`.
std::string wait_file(const std::string& name) {
  return "i=0; while [ ! -e " + name + " ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done";
}

// A nested repository whose config runs a program when git runs there (GIT-8).
const char* kPlantGit =
    "mkdir -p sub && git init -q sub && git -C sub config core.fsmonitor 'touch pwned; false'";

bool mentions(const json& notes, const std::string& what) {
  return notes.dump().find(what) != std::string::npos;
}

// PROT-7, GIT-8, issue 30: a job plants `.envrc` and `sub/.git` while a foreground command
// runs, then keeps running: that command's result moves both aside with notes.
TEST(ServeJobsAftercare, PlantsOfARunningJobAreMovedAsideByTheNextCommand) {  // JOB-4
  REQUIRE_SANDBOX();
  World w;
  w.write("mine.txt", "the user's own\n");
  Served s(w);
  ASSERT_TRUE(s.init.contains("result")) << s.init.dump() << s.client.stderr_text();
  std::string id = s.start(wait_file("go.flag") + "; echo 'export X=1' > .envrc && " + kPlantGit +
                           " && touch planted.flag; " + wait_file("end.flag"));
  ASSERT_FALSE(id.empty()) << s.last.dump();
  // The foreground command lets the job plant and waits until it has.
  json r = s.client.call("exec", {{"command", "touch go.flag; " + wait_file("planted.flag")}});
  ASSERT_TRUE(r.contains("result")) << r.dump() << s.client.stderr_text();
  ASSERT_TRUE(w.exists("planted.flag")) << r.dump();
  json notes = r["result"]["notes"];
  EXPECT_FALSE(w.exists(".envrc")) << notes.dump();
  EXPECT_FALSE(w.exists("sub/.git")) << notes.dump();
  std::vector<std::string> envrc = quarantined(w.project(), ".envrc");
  ASSERT_EQ(envrc.size(), 1u) << notes.dump();
  EXPECT_EQ(w.read(envrc[0]), "export X=1\n");  // moved, never deleted
  ASSERT_EQ(quarantined(w.abs("sub"), ".git").size(), 1u) << notes.dump();
  EXPECT_TRUE(mentions(notes, ".envrc")) << notes.dump();
  EXPECT_TRUE(mentions(notes, "sub/.git")) << notes.dump();
  EXPECT_TRUE(mentions(r["result"]["quarantined"], ".envrc")) << r.dump();
  EXPECT_EQ(w.read("mine.txt"), "the user's own\n");
  // The job still runs; its end finds nothing more to move and reports no plant twice.
  EXPECT_TRUE(s.ended(id).is_null());
  w.write("end.flag", "");
  ASSERT_TRUE(s.wait_ended(id)) << s.client.stderr_text();
  json end = s.ended(id);
  EXPECT_EQ(end["exit_code"], 0) << end.dump();
  EXPECT_FALSE(mentions(end["notes"], ".envrc.cordon-quarantined-")) << end.dump();
  EXPECT_EQ(quarantined(w.project(), ".envrc").size(), 1u);
  EXPECT_EQ(quarantined(w.abs("sub"), ".git").size(), 1u);
  EXPECT_FALSE(w.exists("pwned"));
}

// PROT-7, GIT-8, issue 30: a job plants, then waits; a command that starts after the plant,
// while the job still runs, moves it aside: the job is in flight, so the plant is not the
// user's. The user's own AGENTS.md, there before any command, stays.
TEST(ServeJobsAftercare, ACommandAfterARunningJobsPlantMovesItAside) {  // JOB-4
  REQUIRE_SANDBOX();
  World w;
  w.write("AGENTS.md", "the user's own\n");
  w.write("lib/.envrc", "export MINE=1\n");
  Served s(w);
  std::string id = s.start("echo 'export X=1' > .envrc && " + std::string(kPlantGit) +
                           " && touch planted.flag; " + wait_file("end.flag"));
  ASSERT_FALSE(id.empty()) << s.last.dump();
  ASSERT_TRUE(eventually([&] { return w.exists("planted.flag"); }, seconds(120)));
  json r = s.client.call("exec", {{"command", "true"}});
  ASSERT_TRUE(r.contains("result")) << r.dump() << s.client.stderr_text();
  EXPECT_FALSE(w.exists(".envrc")) << r.dump();
  ASSERT_EQ(quarantined(w.project(), ".envrc").size(), 1u) << r.dump();
  EXPECT_TRUE(mentions(r["result"]["notes"], ".envrc")) << r.dump();
  EXPECT_FALSE(w.exists("sub/.git")) << r.dump();
  EXPECT_EQ(quarantined(w.abs("sub"), ".git").size(), 1u) << r.dump();
  EXPECT_TRUE(mentions(r["result"]["notes"], "sub/.git")) << r.dump();
  EXPECT_EQ(w.read("AGENTS.md"), "the user's own\n");
  EXPECT_EQ(w.read("lib/.envrc"), "export MINE=1\n");
  EXPECT_TRUE(s.ended(id).is_null());
  w.write("end.flag", "");
  ASSERT_TRUE(s.wait_ended(id)) << s.client.stderr_text();
  EXPECT_EQ(quarantined(w.project(), ".envrc").size(), 1u);
}

// PROT-7, GIT-8, issue 30: what a job plants and leaves is moved aside at its end.
TEST(ServeJobsAftercare, PlantsAreMovedAsideAtTheJobsEnd) {  // JOB-4
  REQUIRE_SANDBOX();
  World w;
  w.write("mine.txt", "the user's own\n");
  Served s(w);
  std::string id = s.start(std::string("echo 'export X=1' > .envrc && ") + kPlantGit);
  ASSERT_FALSE(id.empty()) << s.last.dump();
  ASSERT_TRUE(s.wait_ended(id)) << s.client.stderr_text();
  json end = s.ended(id);
  EXPECT_EQ(end["exit_code"], 0) << end.dump();
  EXPECT_FALSE(w.exists(".envrc"));
  EXPECT_FALSE(w.exists("sub/.git"));
  std::vector<std::string> envrc = quarantined(w.project(), ".envrc");
  ASSERT_EQ(envrc.size(), 1u) << end.dump();
  EXPECT_EQ(w.read(envrc[0]), "export X=1\n");
  EXPECT_EQ(quarantined(w.abs("sub"), ".git").size(), 1u) << end.dump();
  EXPECT_TRUE(mentions(end["notes"], ".envrc")) << end.dump();
  EXPECT_TRUE(mentions(end["notes"], "sub/.git")) << end.dump();
  EXPECT_EQ(w.read("mine.txt"), "the user's own\n");
}

// SES-3, PROC-3, issue 30: serve killed while a job of a lasting session runs: the job's
// processes do not outlive it, and `cordon session resume` finds the job's leftover record,
// moves aside what it planted and says so.
TEST(ServeJobsAftercare, AJobOfAKilledServeIsEndedByResume) {  // JOB-4
  REQUIRE_SANDBOX();
  World w;
  const std::string session = "00000000000a0b30";
  std::string mark = unique_sleep();
  {
    Served s(w, {{"session", session}});
    ASSERT_TRUE(s.init.contains("result")) << s.init.dump() << s.client.stderr_text();
    std::string id =
        s.start("echo 'export X=1' > .envrc; sleep " + mark + " & sleep " + mark + "; wait");
    ASSERT_FALSE(id.empty()) << s.last.dump();
    ASSERT_TRUE(eventually([&] { return sleeping(mark) == 2 && w.exists(".envrc"); }));
    kill(s.client.pid(), SIGKILL);
    s.client.wait_exit(seconds(60));
  }
  EXPECT_TRUE(eventually([&] { return sleeping(mark) == 0; }, seconds(60))) << sleeping(mark);
  EXPECT_TRUE(w.exists(".envrc"));
  Proc r = w.cordon({"session", "resume", session});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(".envrc")) << r.err;
  std::vector<std::string> envrc = quarantined(w.project(), ".envrc");
  ASSERT_EQ(envrc.size(), 1u) << r.err;
  EXPECT_EQ(w.read(envrc[0]), "export X=1\n");
  EXPECT_NE(r.err.find(".envrc.cordon-quarantined-"), std::string::npos) << r.err;
  EXPECT_EQ(sleeping(mark), 0);
  EXPECT_EQ(w.cordon({"run", "--session", session, "--", "true"}).status, 0);
}

}  // namespace
}  // namespace cordon::it
