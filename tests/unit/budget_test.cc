// Budgets checked before launch (BUD-1, BUD-2): exact boundaries, and refusals that name the
// largest part and the fix.
#include "plan/budget.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fake_facts.h"
#include "plan/planner.h"

namespace cordon {
namespace {

using testing::FakeWorld;
using testing::file_info;

Request cmd(std::vector<std::string> argv = {"make", "test"}) {
  Request r;
  r.argv = std::move(argv);
  return r;
}

std::vector<std::string> with_prefix(std::vector<std::string> prefix,
                                     const std::vector<std::string>& argv) {
  prefix.insert(prefix.end(), argv.begin(), argv.end());
  return prefix;
}

TEST(Budget, CommandLineBytesCountStringsNulsAndPointers) {  // BUD-1
  EnvMap env;
  env.set("A", "bc");
  const size_t p = sizeof(char*);
  EXPECT_EQ(command_line_bytes({"ab", ""}, env), (3 + p) + (1 + p) + (5 + p) + 2 * p);
}

TEST(Budget, SandboxedCommandExactlyAtTheLimitRuns) {  // BUD-1
  FakeWorld w;
  Request r = cmd({"echo", std::string(3000, 'x')});
  Plan p = make_plan(w.policy, w.facts, r);
  ASSERT_FALSE(p.refused());
  // What execve gets: bwrap's own four arguments (the rest goes through --args), the command,
  // the environment; the kernel keeps 4 KiB for its own strings.
  const size_t need =
      command_line_bytes(with_prefix({"bwrap", "--args", "3", "--"}, p.argv), p.env);
  w.facts.machine.arg_max = need + 4096;
  EXPECT_FALSE(make_plan(w.policy, w.facts, r).refused());
  w.facts.machine.arg_max = need + 4095;
  Plan over = make_plan(w.policy, w.facts, r);
  ASSERT_TRUE(over.refused());
  const std::string& m = over.refusal->message;
  EXPECT_NE(m.find("the largest part is the command's own arguments"), std::string::npos) << m;
  EXPECT_NE(m.find("Fix: shorten them, or pass the data to the command through a file in the "
                   "project or /tmp."),
            std::string::npos)
      << m;
}

TEST(Budget, UnconfinedCommandCountsTheLaunchersMarker) {  // BUD-1, NET-4
  FakeWorld w;
  w.policy.mode = SandboxMode::kOff;
  Request r = cmd({"echo", "hi"});
  Plan p = make_plan(w.policy, w.facts, r);
  EnvMap env = p.env;
  env.set("CORDON_RUN", std::string(16, '0'));  // launch_unconfined() adds it
  const size_t need = command_line_bytes(p.argv, env);
  w.facts.machine.arg_max = need + 4096;
  EXPECT_FALSE(make_plan(w.policy, w.facts, r).refused());
  w.facts.machine.arg_max = need + 4095;
  EXPECT_TRUE(make_plan(w.policy, w.facts, r).refused());
}

TEST(Budget, EnvironmentNamedWhenLargest) {  // BUD-1
  FakeWorld w;
  w.facts.env.set("BIG", std::string(100000, 'b'));
  w.facts.machine.arg_max = 65536;
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("the largest part is the environment"), std::string::npos);
  EXPECT_NE(p.refusal->message.find("unset large variables before starting cordon"),
            std::string::npos);
}

TEST(Budget, BackendsOwnArgumentsNamedWhenLargest) {  // BUD-1 (the Seatbelt profile)
  ArgumentBudget b;
  b.limit = 10000;
  b.prefix = {"sandbox-exec", "-p", std::string(9000, ';'), "--"};
  b.prefix_name = "the sandbox profile";
  b.prefix_fix = "shorten the lists.";
  auto r = check_argument_budget({"true"}, EnvMap{}, b);
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->message.find("the largest part is the sandbox profile"), std::string::npos);
  EXPECT_NE(r->message.find("Fix: shorten the lists."), std::string::npos);
  b.prefix[2] = std::string(100, ';');
  EXPECT_FALSE(check_argument_budget({"true"}, EnvMap{}, b).has_value());
}

TEST(Budget, MountBudgetExactlyAtTheBudgetRuns) {  // BUD-2
  FakeWorld w0;
  const size_t base = make_plan(w0.policy, w0.facts, cmd()).mount_count();
  FakeWorld w;
  w.add_hidden_files(256 - base);
  Plan p = make_plan(w.policy, w.facts, cmd());
  EXPECT_EQ(p.mount_count(), 256u);
  EXPECT_FALSE(p.refused());
  EXPECT_FALSE(p.coarsened);
}

TEST(Budget, MountBudgetRefusalNamesHiddenPathsAndTheFix) {  // BUD-2
  FakeWorld w0;
  const size_t base = make_plan(w0.policy, w0.facts, cmd()).mount_count();
  FakeWorld w;
  w.add_hidden_files(257 - base);
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_TRUE(p.refused());
  const std::string& m = p.refusal->message;
  EXPECT_NE(m.find("needs 257 mounts, more than the mount budget (256)"), std::string::npos) << m;
  EXPECT_NE(m.find(fmt::format("most are hidden paths ({})", 257 - base)), std::string::npos) << m;
  EXPECT_NE(m.find("shorten the [sandbox] hide list in ~/.config/cordon/config.toml"),
            std::string::npos)
      << m;
}

TEST(Budget, MountBudgetRefusalNamesCredentialFiles) {  // BUD-2, NET-3
  FakeWorld w;
  for (int i = 0; i < 300; ++i)
    w.facts.credential_files.push_back(file_info(w.project + "/k" + std::to_string(i) + ".pem"));
  Request r = cmd();
  r.network = true;
  Plan p = make_plan(w.policy, w.facts, r);
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("most are credential files (300)"), std::string::npos)
      << p.refusal->message;
  EXPECT_NE(p.refusal->message.find("or run the command without network"), std::string::npos);
}

TEST(Budget, MountBudgetRefusalNamesProtectedPaths) {  // BUD-2, PROT-9
  FakeWorld w;
  for (int i = 0; i < 300; ++i) {
    std::string rel = "gen/f" + std::to_string(i);
    w.policy.protect.push_back(rel);
    ProtectedFact f;
    f.rel = rel;
    f.why = "[sandbox] protect";
    f.info = file_info(w.project + "/" + rel);
    w.facts.protected_paths.push_back(f);
  }
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("most are protected paths and git files (300)"),
            std::string::npos)
      << p.refusal->message;
  EXPECT_NE(p.refusal->message.find("drop unneeded [sandbox] protect entries"), std::string::npos);
  EXPECT_TRUE(p.coarsened);  // it tried the coarser plan first
}

TEST(Budget, MountsBelongToTheListTheirReasonNames) {  // BUD-2
  auto list = [](const char* why) {
    return mount_budget_list(MountOp{MountKind::kRoBind, "", "", why});
  };
  EXPECT_EQ(list("hidden: ~/.ssh"), BudgetList::kHidden);
  EXPECT_EQ(list("hidden: Windows Users folder"), BudgetList::kHidden);
  EXPECT_EQ(list("protected: .envrc"), BudgetList::kProtected);
  EXPECT_EQ(list("git: hooks folder"), BudgetList::kProtected);
  EXPECT_EQ(list("credential: hidden from a networked command"), BudgetList::kCredential);
  EXPECT_EQ(list("writable: project"), BudgetList::kWritable);
  EXPECT_EQ(list("base: fresh /proc"), BudgetList::kBase);
  EXPECT_EQ(list("cordon: own folder read-only"), BudgetList::kBase);
  BudgetCounts c;
  c.base = 500;
  c.protect = 3;
  c.hidden = 3;
  EXPECT_EQ(c.largest(), BudgetList::kHidden);  // never base; ties to the earlier list
  c.credential = 4;
  EXPECT_EQ(c.largest(), BudgetList::kCredential);
}

}  // namespace
}  // namespace cordon
