// Which folders cannot be a project (FS-2, FS-4, FS-7, issue 13 item 8).
#include "plan/project_rules.h"

#include <gtest/gtest.h>

#include "fake_facts.h"
#include "plan/planner.h"

namespace cordon {
namespace {

using testing::FakeWorld;
using testing::file_info;
using testing::link_info;

FakeWorld with_project(const std::string& project) {
  FakeWorld w;
  w.facts.project = project;
  w.facts.cwd = project;
  w.facts.git.git_dir = project + "/.git";
  return w;
}

TEST(ProjectRules, AHiddenCredentialFolderIsNeverAProject) {  // FS-4
  for (const std::string project : {"/home/u/.ssh", "/home/u/.aws/sub", "/home/u/.gnupg",
                                    "/home/u/.config/gh", "/home/u/.docker/x/y"}) {
    FakeWorld w = with_project(project);
    for (auto& h : w.facts.hidden) {
      if (h.entry.rfind("~/", 0) != 0) continue;
      std::string p = "/home/u/" + h.entry.substr(2);
      if (path_within(project, p)) h.matches.push_back(file_info(p, Kind::kDir));
    }
    auto r = project_refusal(w.facts);
    ASSERT_TRUE(r.has_value()) << project;
    EXPECT_EQ(r->reason, ErrorKind::kRefused);
    EXPECT_NE(r->message.find("hidden path"), std::string::npos) << r->message;
    EXPECT_NE(r->message.find("a hidden path is never a project"), std::string::npos);
    // The planner refuses it before building any mount.
    Request req;
    req.argv = {"true"};
    Plan p = make_plan(w.policy, w.facts, req);
    ASSERT_TRUE(p.refused()) << project;
    EXPECT_TRUE(p.mounts.empty());
  }
}

TEST(ProjectRules, ALinkToACredentialFolderIsRefusedByItsTarget) {  // FS-4, FS-5
  FakeWorld w = with_project("/home/u/dotfiles/ssh");
  w.exists_hidden("~/.ssh", link_info("/home/u/.ssh", "/home/u/dotfiles/ssh", Kind::kDir));
  auto r = project_refusal(w.facts);
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->message.find("~/.ssh"), std::string::npos) << r->message;
}

TEST(ProjectRules, SystemFoldersAndTheHomeAreNeverAProject) {  // FS-2
  for (const std::string project :
       {"/", "/etc", "/usr", "/bin", "/lib", "/lib64", "/var", "/boot", "/root", "/home/u", "/home",
        "/proc/self", "/sys/kernel", "/dev/shm", "/dev"}) {
    FakeWorld w = with_project(project);
    auto r = project_refusal(w.facts);
    ASSERT_TRUE(r.has_value()) << project;
    EXPECT_NE(r->message.find("never a project"), std::string::npos) << r->message;
  }
}

TEST(ProjectRules, OrdinaryProjectsAndTheHarnessCaseAreAllowed) {  // FS-7
  for (const std::string project :
       {"/home/u/proj", "/var/tmp/x", "/srv/app", "/opt/src/app", "/tmp/p", "/etc/nginx"}) {
    FakeWorld w = with_project(project);
    EXPECT_FALSE(project_refusal(w.facts).has_value()) << project;
  }
  // A harness's worktree inside ~/.claude stays allowed and visible (FS-7).
  FakeWorld w = with_project("/home/u/.claude/worktrees/a");
  w.exists_hidden("~/.claude", file_info("/home/u/.claude", Kind::kDir));
  EXPECT_FALSE(project_refusal(w.facts).has_value());
  // So does a project inside the user's own `hide = ["~/work"]` (FS-7's notice names it).
  FakeWorld u = with_project("/home/u/work/p");
  u.policy.hide = {"~/work"};
  u.refresh_hidden();
  u.exists_hidden("~/work", file_info("/home/u/work", Kind::kDir));
  EXPECT_FALSE(project_refusal(u.facts).has_value());
}

TEST(ProjectRules, CordonsOwnFoldersAreNeverAProject) {  // FS-8, FS-13
  FakeWorld w = with_project("/home/u/.cache/cordon/sandbox-tmp/abc");
  w.exists_hidden("~/.cache/cordon", file_info("/home/u/.cache/cordon", Kind::kDir));
  ASSERT_TRUE(project_refusal(w.facts).has_value());
}

TEST(ProjectRules, WhichLinkTargetsStayVisible) {  // FS-5, FS-7
  struct Case {
    std::string target, why;
  } cases[] = {
      {"/home/u/dotfiles/gh/hosts.yml", ""},       {"/srv/vault", ""},
      {"/usr/libexec/docker/cli-plugins/x", ""},   {"/home/u", "it holds the home folder"},
      {"/home", "it holds the home folder"},       {"/", "it holds the home folder"},
      {"/home/u/proj", "it holds the project"},    {"/usr", "it is a system folder"},
      {"/etc", "it is a system folder"},           {"/proc/1", "it is a kernel or device folder"},
      {"/dev", "it is a kernel or device folder"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(link_target_kept_because(c.target, "/home/u", "/home/u/proj"), c.why) << c.target;
}

}  // namespace
}  // namespace cordon
