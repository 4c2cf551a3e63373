// The validated plan (issue 15): nothing a backend renders holds a NUL or a relative path.
#include "plan/plan_check.h"

#include <gtest/gtest.h>

#include "fake_facts.h"
#include "plan/planner.h"

namespace cordon {
namespace {

using testing::FakeWorld;

std::string nul(const std::string& a, const std::string& b) { return a + std::string(1, '\0') + b; }

TEST(PlanCheck, ANulAnywhereInTheRequestIsInvalid) {  // FS-2
  FakeWorld w;
  Request r;
  r.argv = {"ls"};
  r.cwd = nul(w.project + "/sub", "--bind") + nul("", "/victim") + nul("", "/victim");
  Plan p = make_plan(w.policy, w.facts, r);
  ASSERT_TRUE(p.refused());
  EXPECT_EQ(p.refusal->reason, ErrorKind::kInvalid);
  EXPECT_NE(p.refusal->message.find("working folder"), std::string::npos);
  r.cwd = "";
  r.argv = {"ls", nul("a", "--bind")};
  EXPECT_EQ(make_plan(w.policy, w.facts, r).refusal->reason, ErrorKind::kInvalid);
  r.argv = {};
  r.script = nul("echo a", "b");
  EXPECT_EQ(make_plan(w.policy, w.facts, r).refusal->reason, ErrorKind::kInvalid);
  r.script.reset();
  r.argv = {"ls"};
  r.cwd = "relative/dir";
  EXPECT_EQ(make_plan(w.policy, w.facts, r).refusal->reason, ErrorKind::kInvalid);
}

TEST(PlanCheck, ANulInTheFactsNeverReachesTheRenderer) {  // FS-2, ENV-1
  FakeWorld w;
  Request r;
  r.argv = {"ls"};
  FakeWorld env_world;
  env_world.facts.env.set("EDITOR", nul("vi", "x"));
  Plan p = make_plan(env_world.policy, env_world.facts, r);
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("EDITOR"), std::string::npos) << p.refusal->message;
  FakeWorld project_world;
  project_world.facts.project = nul("/home/u/proj", "--bind");
  p = make_plan(project_world.policy, project_world.facts, r);
  ASSERT_TRUE(p.refused());
  EXPECT_EQ(p.refusal->reason, ErrorKind::kInvalid);
}

TEST(PlanCheck, MountsNeedAbsolutePaths) {
  Plan p;
  p.runner = Runner::kSandbox;
  p.argv = {"ls"};
  p.cwd = "/p";
  p.mounts = {{MountKind::kRoBind, "/", "/", "base"}, {MountKind::kDev, "", "/dev", "dev"}};
  EXPECT_FALSE(check_plan(p).has_value());
  p.mounts.push_back({MountKind::kBind, "rel", "/x", "w"});
  EXPECT_TRUE(check_plan(p).has_value());
  p.mounts.back() = {MountKind::kBind, "/x", "x", "w"};
  EXPECT_TRUE(check_plan(p).has_value());
  p.mounts.back() = {MountKind::kBind, "/x", "/x", "w"};
  p.env.set("A=B", "c");
  EXPECT_TRUE(check_plan(p).has_value());
}

TEST(PlanCheck, AValidPlanPasses) {  // every default plan passes its own check
  FakeWorld w;
  Request r;
  r.argv = {"make", "test"};
  Plan p = make_plan(w.policy, w.facts, r);
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  EXPECT_FALSE(check_plan(p).has_value());
}

}  // namespace
}  // namespace cordon
