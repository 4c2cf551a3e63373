// The planner's rules for MODE, FS, ENV, NET, PROC and BUD, without root or namespaces.
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_facts.h"
#include "plan/landlock_rules.h"
#include "plan/planner.h"

namespace cordon {
namespace {

using testing::FakeWorld;
using testing::file_info;
using testing::link_info;

using testing::cmd;

const MountOp* find_dest(const Plan& p, const std::string& dest) {
  for (const auto& m : p.mounts)
    if (m.dest == dest) return &m;
  return nullptr;
}

size_t index_of(const Plan& p, const std::string& dest) {
  for (size_t i = 0; i < p.mounts.size(); ++i)
    if (p.mounts[i].dest == dest) return i;
  return SIZE_MAX;
}

TEST(Planner, DefaultSandboxShape) {  // MODE-1, FS-1, FS-2, FS-3, FS-9
  FakeWorld w;
  Plan p = make_plan(w.policy, w.facts, cmd({"make", "test"}));
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  EXPECT_EQ(p.runner, Runner::kSandbox);
  ASSERT_GE(p.mounts.size(), 6u);
  EXPECT_EQ(p.mounts[0], (MountOp{MountKind::kRoBind, "/", "/", p.mounts[0].why}));
  EXPECT_EQ(p.mounts[1].kind, MountKind::kDev);
  EXPECT_EQ(p.mounts[2].kind, MountKind::kProc);
  // FS-9: /proc/sys and friends read-only after the fresh /proc.
  const MountOp* ps = find_dest(p, "/proc/sys");
  ASSERT_NE(ps, nullptr);
  EXPECT_EQ(ps->kind, MountKind::kRoBindTry);
  EXPECT_GT(index_of(p, "/proc/sys"), index_of(p, "/proc"));
  EXPECT_NE(find_dest(p, "/proc/sysrq-trigger"), nullptr);
  // FS-3: the private /tmp before the project.
  const MountOp* tmp = find_dest(p, "/tmp");
  ASSERT_NE(tmp, nullptr);
  EXPECT_EQ(tmp->kind, MountKind::kBind);
  EXPECT_EQ(tmp->src, w.facts.session_tmp);
  EXPECT_LT(index_of(p, "/tmp"), index_of(p, w.project));
  EXPECT_EQ(find_dest(p, w.project)->kind, MountKind::kBind);
  EXPECT_EQ(p.cwd, w.project);
  EXPECT_FALSE(p.share_network);  // NET-1
  EXPECT_LT(p.mount_count(), 50u);  // PERF-5
}

TEST(Planner, ProjectUnderTmpStaysVisible) {  // FS-3
  FakeWorld w;
  w.facts.project = "/tmp/work/proj";
  w.facts.cwd = "/tmp/work/proj/sub";
  Request r = cmd({"ls"});
  r.cwd = "/tmp/work/proj/sub";
  Plan p = make_plan(w.policy, w.facts, r);
  ASSERT_FALSE(p.refused());
  EXPECT_LT(index_of(p, "/tmp"), index_of(p, "/tmp/work/proj"));
  EXPECT_EQ(p.cwd, "/tmp/work/proj/sub");
}

TEST(Planner, CwdOutsideProjectFallsBackToProjectRoot) {
  FakeWorld w;
  Request r = cmd({"ls"});
  r.cwd = "/etc";
  EXPECT_EQ(make_plan(w.policy, w.facts, r).cwd, w.project);
  r.cwd = w.project + "/src";
  EXPECT_EQ(make_plan(w.policy, w.facts, r).cwd, w.project + "/src");
}

TEST(Planner, EnvironmentInsideTheSandbox) {  // ENV-1, ENV-4, ENV-5
  FakeWorld w;
  w.facts.env.set("OPENAI_API_KEY", "sk-1");
  w.facts.env.set("DATABASE_URL", "postgres://u:p@db/x");
  w.facts.env.set("EDITOR", "vi");
  Plan p = make_plan(w.policy, w.facts, cmd({"env"}));
  EXPECT_FALSE(p.env.get("OPENAI_API_KEY").has_value());
  EXPECT_FALSE(p.env.get("DATABASE_URL").has_value());
  EXPECT_EQ(p.env.value("EDITOR"), "vi");
  EXPECT_EQ(p.env.value("CORDON_SANDBOX"), "1");
  EXPECT_EQ(p.env.value("TMPDIR"), "/tmp");
  EXPECT_EQ(p.stripped, (std::vector<std::string>{"OPENAI_API_KEY", "DATABASE_URL"}));
}

TEST(Planner, HiddenFileBecomesEmptyFileAndFolderEmptyFolder) {  // FS-4
  FakeWorld w;
  w.exists_hidden("~/.ssh", file_info("/home/u/.ssh", Kind::kDir));
  w.exists_hidden("~/.netrc", file_info("/home/u/.netrc", Kind::kFile));
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  const MountOp* ssh = find_dest(p, "/home/u/.ssh");
  ASSERT_NE(ssh, nullptr);
  EXPECT_EQ(ssh->kind, MountKind::kRoBind);
  EXPECT_EQ(ssh->src, w.facts.empty_dir);
  const MountOp* netrc = find_dest(p, "/home/u/.netrc");
  ASSERT_NE(netrc, nullptr);
  EXPECT_EQ(netrc->src, w.facts.empty_file);
  // Hidden paths come after the writable binds, so a writable path cannot uncover them (FS-2).
  EXPECT_GT(index_of(p, "/home/u/.ssh"), index_of(p, w.project));
}

TEST(Planner, HiddenSymlinkHidesItsTarget) {  // FS-5
  FakeWorld w;
  w.exists_hidden("~/.ssh", link_info("/home/u/.ssh", "/home/u/dotfiles/ssh", Kind::kDir));
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  const MountOp* t = find_dest(p, "/home/u/dotfiles/ssh");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->src, w.facts.empty_dir);
  bool listed_target = false;
  for (const auto& h : p.hidden)
    if (h.path == "~/dotfiles/ssh" && h.hidden) listed_target = true;
  EXPECT_TRUE(listed_target);
}

TEST(Planner, DanglingHiddenLinkHidesNothing) {  // FS-5
  FakeWorld w;
  PathInfo dangling = link_info("/home/u/.aws", "/gone", Kind::kMissing);
  dangling.real.clear();
  w.exists_hidden("~/.aws", dangling);
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  EXPECT_EQ(find_dest(p, "/gone"), nullptr);
  ASSERT_FALSE(p.refused());
}

TEST(Planner, TargetsOfLinksInsideAHiddenFolderAreHidden) {  // FS-5 (stow-style dotfiles)
  FakeWorld w;
  w.exists_hidden("~/.config/gh", file_info("/home/u/.config/gh", Kind::kDir));
  w.facts.hidden.back().links = {
      link_info("/home/u/.config/gh/hosts.yml", "/home/u/dotfiles/gh/hosts.yml", Kind::kFile),
      link_info("/home/u/.config/gh/keys", "/srv/vault", Kind::kDir)};
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  const MountOp* f = find_dest(p, "/home/u/dotfiles/gh/hosts.yml");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->src, w.facts.empty_file);
  const MountOp* d = find_dest(p, "/srv/vault");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->src, w.facts.empty_dir);
  bool named = false;
  for (const auto& h : p.hidden)
    if (h.path == "~/dotfiles/gh/hosts.yml" && h.hidden &&
        h.why.find("~/.config/gh/hosts.yml") != std::string::npos)
      named = true;
  EXPECT_TRUE(named) << "cordon policy names the target and its link";
}

TEST(Planner, ALinkTargetHoldingTheHomeProjectOrASystemFolderStaysVisible) {  // FS-5, FS-7
  FakeWorld w;
  w.exists_hidden("~/.aws", file_info("/home/u/.aws", Kind::kDir));
  w.facts.hidden.back().links = {link_info("/home/u/.aws/h", "/home/u", Kind::kDir),
                                 link_info("/home/u/.aws/p", "/home/u/proj", Kind::kDir),
                                 link_info("/home/u/.aws/u", "/usr", Kind::kDir),
                                 link_info("/home/u/.aws/r", "/", Kind::kDir)};
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_FALSE(p.refused());
  for (const auto& m : p.mounts) {
    if (m.src != w.facts.empty_dir && m.src != w.facts.empty_file) continue;
    for (const char* t : {"/", "/home/u", "/home/u/proj", "/usr"})
      EXPECT_NE(m.dest, t) << "hidden: " << m.why;
  }
  size_t kept = 0;
  for (const auto& h : p.hidden)
    if (!h.hidden && !h.kept_because.empty()) ++kept;
  EXPECT_EQ(kept, 4u);
  EXPECT_FALSE(p.notices.empty());
}

TEST(Planner, LinksInsideHiddenFoldersPastTheBoundRefuse) {  // FS-5 (bounded like NET-3)
  FakeWorld w;
  w.facts.hidden_links_refusal = "~/.claude holds more than 100000 entries to search";
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_TRUE(p.refused());
  EXPECT_EQ(p.refusal->reason, ErrorKind::kRefused);
  EXPECT_NE(p.refusal->message.find("~/.claude"), std::string::npos);
}

TEST(Planner, GlobEntryCoversEachMatch) {  // FS-4 .cargo/credentials*
  FakeWorld w;
  w.exists_hidden("~/.cargo/credentials*", file_info("/home/u/.cargo/credentials"));
  w.exists_hidden("~/.cargo/credentials*", file_info("/home/u/.cargo/credentials.toml"));
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  EXPECT_NE(find_dest(p, "/home/u/.cargo/credentials"), nullptr);
  EXPECT_NE(find_dest(p, "/home/u/.cargo/credentials.toml"), nullptr);
}

TEST(Planner, EntryContainingTheProjectStaysVisible) {  // FS-7
  FakeWorld w;
  w.policy.hide = {"~"};
  w.refresh_hidden();
  w.exists_hidden("~", file_info("/home/u", Kind::kDir));
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_FALSE(p.refused());
  EXPECT_EQ(find_dest(p, "/home/u"), nullptr);
  bool kept = false;
  for (const auto& h : p.hidden)
    if (h.entry == "~" && !h.hidden) kept = true;
  EXPECT_TRUE(kept);
  ASSERT_FALSE(p.notices.empty());
  EXPECT_NE(p.notices[0].find("stays visible"), std::string::npos);
}

TEST(Planner, EntryContainingTheGitFolderStaysVisible) {  // FS-7
  FakeWorld w;
  w.facts.git.git_dir = "/srv/git/proj.git";
  w.policy.hide = {"/srv/git"};
  w.refresh_hidden();
  w.exists_hidden("/srv/git", file_info("/srv/git", Kind::kDir));
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  EXPECT_EQ(find_dest(p, "/srv/git"), nullptr);
}

TEST(Planner, HiddenPathInsideTheProjectIsHidden) {  // FS-7
  FakeWorld w;
  w.policy.hide = {"/home/u/proj/secrets"};
  w.refresh_hidden();
  w.exists_hidden("/home/u/proj/secrets", file_info("/home/u/proj/secrets", Kind::kDir));
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  const MountOp* m = find_dest(p, "/home/u/proj/secrets");
  ASSERT_NE(m, nullptr);
  EXPECT_GT(index_of(p, "/home/u/proj/secrets"), index_of(p, w.project));
}

TEST(Planner, HiddenUnderMachineTmpIsAlreadyInvisible) {  // FS-3, FS-4
  FakeWorld w;
  w.policy.hide = {"/tmp/agent-secret"};
  w.refresh_hidden();
  w.exists_hidden("/tmp/agent-secret", file_info("/tmp/agent-secret"));
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  EXPECT_EQ(find_dest(p, "/tmp/agent-secret"), nullptr);
}

// FS-3, FS-4, LL-1: without bwrap the machine's /tmp is not replaced, so a hidden path there
// (a home under /tmp, a [sandbox] hide entry) is hidden like anywhere else.
TEST(Planner, HiddenUnderMachineTmpIsHiddenWhereTmpIsNotReplaced) {
  FakeWorld w;
  w.policy.hide = {"/tmp/agent-secret"};
  w.refresh_hidden();
  w.exists_hidden("/tmp/agent-secret", file_info("/tmp/agent-secret"));
  PlanOptions po;
  po.backend = Backend::kLandlock;
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}), po);
  const auto hidden = hidden_paths_of(p);
  EXPECT_NE(std::find(hidden.begin(), hidden.end(), "/tmp/agent-secret"), hidden.end());
}

TEST(Planner, PathsInsideAHiddenFolderAreNotMountedAgain) {
  FakeWorld w;
  w.policy.hide = {"~/.config"};
  w.refresh_hidden();
  w.exists_hidden("~/.config/gh", file_info("/home/u/.config/gh", Kind::kDir));
  w.exists_hidden("~/.config", file_info("/home/u/.config", Kind::kDir));
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  EXPECT_NE(find_dest(p, "/home/u/.config"), nullptr);
  EXPECT_EQ(find_dest(p, "/home/u/.config/gh"), nullptr);
}

TEST(Planner, CordonOwnFoldersAreHidden) {  // FS-4, FS-8
  FakeWorld w;
  std::vector<std::string> entries;
  for (const auto& h : w.facts.hidden) entries.push_back(h.entry);
  for (const char* e : {"~/.config/cordon", "~/.local/share/cordon/logs",
                        "~/.local/share/cordon/sessions", "~/.local/share/cordon/checkpoints"})
    EXPECT_NE(std::find(entries.begin(), entries.end(), e), entries.end()) << e;
}

TEST(Planner, CordonHomeAppliesTheHiddenListInsideIt) {  // FS-6
  FakeWorld w;
  EnvMap env;
  env.set("HOME", "/home/u");
  env.set("CORDON_HOME", "/srv/ch");
  w.facts.folders = resolve_folders(env, "/home/u", "/");
  w.refresh_hidden();
  std::vector<std::string> entries;
  for (const auto& h : w.facts.hidden) entries.push_back(h.entry);
  EXPECT_NE(std::find(entries.begin(), entries.end(), "/srv/ch/.ssh"), entries.end());
  EXPECT_NE(std::find(entries.begin(), entries.end(), "/srv/ch/.npmrc"), entries.end());
  // The config file, not the whole CORDON_HOME (which holds the cache and the private /tmp).
  EXPECT_NE(std::find(entries.begin(), entries.end(), "/srv/ch/config.toml"), entries.end());
}

TEST(Planner, WritablePathsAreBoundAfterTheProject) {  // FS-2
  FakeWorld w;
  w.policy.writable = {"~/.cache/pip"};
  w.facts.writable = {file_info("/home/u/.cache/pip", Kind::kDir)};
  Plan p = make_plan(w.policy, w.facts, cmd({"pip", "install"}));
  const MountOp* m = find_dest(p, "/home/u/.cache/pip");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind, MountKind::kBind);
  EXPECT_NE(std::find(p.writable_roots.begin(), p.writable_roots.end(), "/home/u/.cache/pip"),
            p.writable_roots.end());
}

TEST(Planner, WritablePathContainingCordonFoldersKeepsThemReadOnly) {  // FS-2, FS-8
  FakeWorld w;
  w.policy.writable = {"~/.cache"};
  w.facts.writable = {file_info("/home/u/.cache", Kind::kDir)};
  w.facts.cordon_dirs = {file_info("/home/u/.cache/cordon", Kind::kDir)};
  w.exists_hidden("~/.config/gh", file_info("/home/u/.cache/gh-link-target", Kind::kDir));
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  const MountOp* c = find_dest(p, "/home/u/.cache/cordon");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->kind, MountKind::kRoBind);
  EXPECT_GT(index_of(p, "/home/u/.cache/cordon"), index_of(p, "/home/u/.cache"));
  // A hidden path inside the writable one stays hidden (mounted after it).
  EXPECT_GT(index_of(p, "/home/u/.cache/gh-link-target"), index_of(p, "/home/u/.cache"));
}

TEST(Planner, WritablePathResolvingToHomeIsRefused) {
  FakeWorld w;
  w.policy.writable = {"~/link"};
  PathInfo l = link_info("/home/u/link", "/home", Kind::kDir);
  w.facts.writable = {l};
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("~/link"), std::string::npos);
}

TEST(Planner, ConfigInsideTheProjectIsRefused) {  // CFG-5
  FakeWorld w;
  w.facts.config_real = w.project + "/.cordon-home/config.toml";
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find(w.project + "/.cordon-home/config.toml"), std::string::npos);
  // Even a config that switches the sandbox off cannot take effect from inside the project.
  w.policy.mode = SandboxMode::kOff;
  EXPECT_TRUE(make_plan(w.policy, w.facts, cmd({"true"})).refused());
}

TEST(Planner, ProjectHoldingCordonSessionsIsRefused) {  // FS-8
  FakeWorld w;
  w.facts.folders.data = w.project + "/data";
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("sessions"), std::string::npos);
}

TEST(Planner, UnsearchableProjectIsRefused) {  // FS-10
  FakeWorld w;
  w.facts.project_searchable = false;
  w.facts.project_info.mode = 040600;
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("cannot be searched"), std::string::npos);
  EXPECT_NE(p.refusal->message.find("600"), std::string::npos);
}

TEST(Planner, LongProjectPathIsRefusedForItsLength) {  // FS-11
  FakeWorld w;
  w.facts.project = "/home/u/" + std::string(1001, 'p');
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("bytes long"), std::string::npos);
  EXPECT_EQ(p.refusal->message.find("ermission"), std::string::npos);
}

TEST(Planner, ModeOffRunsUnconfinedWithTheEnvironmentUntouched) {  // MODE-2
  FakeWorld w;
  w.policy.mode = SandboxMode::kOff;
  w.facts.env.set("OPENAI_API_KEY", "x");
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  EXPECT_EQ(p.runner, Runner::kUnconfined);
  EXPECT_TRUE(p.mounts.empty());
  EXPECT_EQ(p.env.value("OPENAI_API_KEY"), "x");
  ASSERT_EQ(p.notices.size(), 1u);
  EXPECT_NE(p.notices[0].find("off"), std::string::npos);
}

TEST(Planner, ExternalModeStripsButBuildsNoSandbox) {  // MODE-3, ENV-3
  FakeWorld w;
  w.policy.mode = SandboxMode::kExternal;
  w.policy.env_pass = {"GITHUB_TOKEN"};
  w.facts.env.set("GITHUB_TOKEN", "x");
  w.facts.env.set("NPM_TOKEN", "x");
  w.facts.env.set("ANTHROPIC_API_KEY", "x");
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  EXPECT_EQ(p.runner, Runner::kUnconfined);
  EXPECT_TRUE(p.mounts.empty());
  EXPECT_EQ(p.env.value("GITHUB_TOKEN"), "x");
  EXPECT_FALSE(p.env.get("NPM_TOKEN").has_value());
  EXPECT_FALSE(p.env.get("ANTHROPIC_API_KEY").has_value());
  EXPECT_FALSE(p.env.get("CORDON_SANDBOX").has_value());
  ASSERT_EQ(p.notices.size(), 1u);
  EXPECT_NE(p.notices[0].find("this machine is the sandbox"), std::string::npos);
  EXPECT_NE(p.notices[0].find("NPM_TOKEN"), std::string::npos);
  EXPECT_EQ(p.notices[0].find("x\""), std::string::npos);  // names, never values
}

TEST(Planner, OutsideSandboxIsUnconfinedButStripped) {  // NET-4, ENV-1
  FakeWorld w;
  w.facts.env.set("AWS_SECRET_ACCESS_KEY", "x");
  Request r = cmd({"docker", "ps"});
  r.outside_sandbox = true;
  Plan p = make_plan(w.policy, w.facts, r);
  ASSERT_FALSE(p.refused());
  EXPECT_EQ(p.runner, Runner::kUnconfined);
  EXPECT_FALSE(p.env.get("AWS_SECRET_ACCESS_KEY").has_value());
}

TEST(Planner, EscapeNeverRefusesBothWaysOut) {  // NET-5
  FakeWorld w;
  w.policy.escape = EscapeMode::kNever;
  Request r = cmd({"curl", "example.com"});
  r.network = true;
  Plan p = make_plan(w.policy, w.facts, r);
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("escape = \"never\""), std::string::npos);
  r.network = false;
  r.outside_sandbox = true;
  EXPECT_TRUE(make_plan(w.policy, w.facts, r).refused());
  r.outside_sandbox = false;
  EXPECT_FALSE(make_plan(w.policy, w.facts, r).refused());
}

TEST(Planner, NetworkSharesTheNetworkAndHidesCredentials) {  // NET-3
  FakeWorld w;
  w.facts.credential_files = {file_info(w.project + "/.env"),
                              file_info(w.project + "/.secrets", Kind::kDir)};
  Request r = cmd({"npm", "install"});
  r.network = true;
  Plan p = make_plan(w.policy, w.facts, r);
  ASSERT_FALSE(p.refused());
  EXPECT_TRUE(p.share_network);
  const MountOp* env = find_dest(p, w.project + "/.env");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(env->src, w.facts.empty_file);
  EXPECT_EQ(find_dest(p, w.project + "/.secrets")->src, w.facts.empty_dir);
  // Without network, the project's own .env is the project's business (FILE-4 guards tools).
  Plan q = make_plan(w.policy, w.facts, cmd({"true"}));
  EXPECT_EQ(find_dest(q, w.project + "/.env"), nullptr);
}

TEST(Planner, NetworkRefusedWhenTheCredentialScanCannotFinish) {  // NET-3
  FakeWorld w;
  w.facts.credential_scan_refusal = "the folder /home/u/proj/locked cannot be read";
  Request r = cmd({"npm", "install"});
  r.network = true;
  Plan p = make_plan(w.policy, w.facts, r);
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("/home/u/proj/locked"), std::string::npos);
}

TEST(Planner, MissingBwrapMakesTheSandboxUnavailable) {  // MODE-4, PROBE-2
  FakeWorld w;
  w.facts.machine.bwrap.clear();
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_TRUE(p.refused());
  EXPECT_EQ(p.refusal->reason, ErrorKind::kUnavailable);
  EXPECT_NE(p.refusal->message.find("bubblewrap"), std::string::npos);
}

TEST(Planner, ScriptRunsThroughTheShell) {
  FakeWorld w;
  Request r;
  r.script = "echo hi && ls";
  PlanOptions o;
  o.shell = "/bin/bash";
  Plan p = make_plan(w.policy, w.facts, r, o);
  EXPECT_EQ(p.argv, (std::vector<std::string>{"/bin/bash", "-c", "echo hi && ls"}));
  EXPECT_TRUE(make_plan(w.policy, w.facts, Request{}).refused());
}

TEST(Planner, ArgumentBudgetNamesTheLargestPart) {  // BUD-1
  FakeWorld w;
  w.facts.machine.arg_max = 4096;
  Plan p = make_plan(w.policy, w.facts, cmd({"echo", std::string(5000, 'a')}));
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("the command's own arguments"), std::string::npos);
  w.facts.env.set("BIG", std::string(5000, 'b'));
  p = make_plan(w.policy, w.facts, cmd({"echo"}));
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("the environment"), std::string::npos);
  // One string past the kernel's per-string limit is refused even under a large ARG_MAX.
  w.facts.machine.arg_max = 1 << 30;
  w.facts.env.unset("BIG");
  p = make_plan(w.policy, w.facts, cmd({"echo", std::string(200000, 'c')}));
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("single argument"), std::string::npos);
}

TEST(Planner, MountBudgetRefusesNamingTheLargestList) {  // BUD-2
  FakeWorld w;
  for (int i = 0; i < 300; ++i) {
    std::string path = "/srv/h" + std::to_string(i);
    w.policy.hide.push_back(path);
  }
  w.refresh_hidden();
  for (int i = 0; i < 300; ++i) {
    std::string path = "/srv/h" + std::to_string(i);
    w.exists_hidden(path, file_info(path));
  }
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_TRUE(p.refused());
  EXPECT_NE(p.refusal->message.find("mount budget (256)"), std::string::npos);
  EXPECT_NE(p.refusal->message.find("hidden"), std::string::npos);
}

TEST(Planner, SeccompRulesAreAttached) {  // PROC-7, NET-2
  FakeWorld w;
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  std::vector<std::string> names;
  for (const auto& r : p.seccomp) names.push_back(r.syscall);
  for (const char* s : {"socket", "ioctl", "keyctl", "add_key", "request_key", "bpf",
                        "perf_event_open", "userfaultfd", "kexec_load", "init_module", "mount",
                        "umount2", "pivot_root", "swapon", "reboot", "unshare", "clone",
                        "personality", "io_uring_setup", "io_uring_enter", "io_uring_register"})
    EXPECT_NE(std::find(names.begin(), names.end(), s), names.end()) << s;
}

}  // namespace
}  // namespace cordon
