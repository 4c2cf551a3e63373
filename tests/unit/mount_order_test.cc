// The mount list as bwrap applies it: later mount wins, duplicates dropped, a writable bind
// over a protected destination refused (issue 15 item 3).
#include "plan/mount_order.h"

#include <gtest/gtest.h>

#include <set>

#include "fake_facts.h"
#include "plan/plan_check.h"
#include "plan/planner.h"
#include "plan/seccomp_rules.h"

namespace cordon {
namespace {

using testing::FakeWorld;

const MountOp kRoot{MountKind::kRoBind, "/", "/", "base"};

TEST(MountOrder, AnEarlierMountCoveredByALaterOneIsDropped) {  // FS-12, GIT-1
  std::vector<MountOp> m = {
      kRoot,
      {MountKind::kRoBind, "/home/u/.gitconfig", "/home/u/.gitconfig", "locked"},
      {MountKind::kRoBind, "/cache/gitconfig", "/home/u/.gitconfig", "git config"},
  };
  EXPECT_FALSE(dedupe_mounts(m));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].src, "/cache/gitconfig") << "the later mount wins";
  std::vector<MountOp> twice = {kRoot, kRoot};
  EXPECT_FALSE(dedupe_mounts(twice));
  EXPECT_EQ(twice.size(), 1u);
}

TEST(MountOrder, KeptWhenAMountBetweenLiesBelowIt) {  // FS-1
  // The mount between may need the earlier one to exist (its mount point is made there).
  std::vector<MountOp> m = {
      kRoot,
      {MountKind::kTmpfs, "", "/a", "t"},
      {MountKind::kBind, "/host/b", "/a/b", "w"},
      {MountKind::kTmpfs, "", "/a", "t again"},
  };
  EXPECT_FALSE(dedupe_mounts(m));
  EXPECT_EQ(m.size(), 4u);
}

TEST(MountOrder, AWritableBindOverAProtectedPathIsAConflict) {  // FS-4, PROT-1
  std::vector<MountOp> m = {
      kRoot,
      {MountKind::kRoBind, "/cache/empty/dir", "/home/u/.ssh", "hidden: ~/.ssh"},
      {MountKind::kBind, "/home/u/.ssh", "/home/u/.ssh", "writable"},
  };
  auto r = dedupe_mounts(m);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reason, ErrorKind::kInvalid);
  EXPECT_NE(r->message.find("/home/u/.ssh"), std::string::npos) << r->message;
  EXPECT_NE(r->message.find("Fix:"), std::string::npos);
  Plan p;  // the renderer's check finds it in a plan that skipped the pass
  p.runner = Runner::kSandbox;
  p.argv = {"ls"};
  p.cwd = "/p";
  p.mounts = m;
  ASSERT_TRUE(check_plan(p));
  EXPECT_EQ(check_plan(p)->reason, ErrorKind::kInvalid);
  // Another folder bound writable there (PKG-2's project cache over the user's own) shows
  // other content: not a conflict.
  std::vector<MountOp> cache = {
      kRoot,
      {MountKind::kRoBind, "/cache/empty/dir", "/home/u/.npm", "hidden"},
      {MountKind::kBind, "/cache/proj/npm", "/home/u/.npm", "writable: package cache"},
  };
  EXPECT_FALSE(dedupe_mounts(cache));
  EXPECT_EQ(cache.size(), 2u);
  // The other way round (hidden after writable) is how hidden paths win: not a conflict.
  std::swap(p.mounts[1], p.mounts[2]);
  EXPECT_FALSE(check_plan(p));
}

TEST(MountOrder, APlannedSandboxHasOneMountPerDestination) {  // FS-1, BUD-2
  FakeWorld w;
  Request req;
  req.argv = {"ls"};
  Plan p = make_plan(w.policy, w.facts, req);
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  std::set<std::string> dests;
  for (const auto& m : p.mounts) EXPECT_TRUE(dests.insert(m.dest).second) << m.dest;
}

TEST(ProcessPartOnce, ThePlanHoldsThePartItWasGiven) {  // ENV-1, ENV-5, NET-1
  FakeWorld w;
  w.facts.env.set("GITHUB_TOKEN", "secret");
  Request req;
  req.argv = {"env"};
  PlanOptions po;
  ProcessPart part = sandbox_process_part(w.policy, w.facts.env, req, w.project, po);
  EXPECT_FALSE(part.env.get("GITHUB_TOKEN"));
  EXPECT_EQ(part.stripped, std::vector<std::string>{"GITHUB_TOKEN"});
  EXPECT_FALSE(part.seccomp.empty());
  part.env.set("MARK", "given");  // made by the caller, not the planner
  po.process = &part;
  Plan p = make_plan(w.policy, w.facts, req, po);
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  EXPECT_EQ(p.env.get("MARK").value_or(""), "given");
  EXPECT_EQ(p.argv, part.argv);
  EXPECT_EQ(p.cwd, part.cwd);
  EXPECT_TRUE(same_seccomp_rules(p.seccomp, part.seccomp));
  EXPECT_EQ(p.stripped, part.stripped);
  po.process = nullptr;  // computed by make_plan itself: the same, without the mark
  Plan q = make_plan(w.policy, w.facts, req, po);
  EXPECT_FALSE(q.env.get("MARK"));
  EXPECT_TRUE(same_seccomp_rules(q.seccomp, part.seccomp));
}

}  // namespace
}  // namespace cordon
