// NET-12: git over ssh through the allowlist proxy: which entries open port 22, the config the
// command's ssh reads, the plan's mounts and variables, the notes, the [ssh] table.
#include "plan/ssh_rules.h"

#include <gtest/gtest.h>

#include "config/config_file.h"
#include "fake_facts.h"
#include "plan/net_rules.h"
#include "plan/planner.h"
#include "plan/seccomp_rules.h"

namespace cordon {
namespace {

using testing::cmd;
using testing::FakeWorld;

NetRules rules(std::vector<std::string> allow) {
  auto r = parse_net_rules(allow, {}, NetUnknown::kRefuse, "~/.config/cordon/config.toml");
  EXPECT_TRUE(r.ok());
  return r.ok() ? std::move(r).value() : NetRules{};
}

// NET-6, NET-12: an entry without a port covers 80 and 443 only, never 22; `:22` opens 22 of
// that host only.
TEST(SshRules, OnlyAnEntryNamingPort22OpensIt) {
  EXPECT_FALSE(check_host(rules({"github.com"}), "github.com", 22).allowed);
  EXPECT_TRUE(check_host(rules({"github.com"}), "github.com", 443).allowed);
  EXPECT_TRUE(check_host(rules({"github.com:22"}), "github.com", 22).allowed);
  EXPECT_FALSE(check_host(rules({"github.com:22"}), "github.com", 443).allowed);
  EXPECT_FALSE(check_host(rules({"github.com:22"}), "gitlab.com", 22).allowed);
  EXPECT_EQ(ssh_route_entries({"github.com", "github.com:22", "**.example.org:*", "x.org:8443"}),
            (std::vector<std::string>{"github.com:22", "**.example.org:*"}));
}

// NET-12: the config: named keys first (ssh takes the first value), then for every host the
// connect helper, strict host keys from the copied known_hosts, no prompts, no agent.
TEST(SshRules, ConfigTunnelsChecksHostKeysAndGivesOnlyNamedKeys) {
  SshConfigInput in;
  in.dir = "/tmp/.cordon-ssh";
  in.exe = "/tmp/.cordon-ssh/cordon";
  in.keys = {{"github.com", "/tmp/.cordon-ssh/key-0"}};
  std::string t = ssh_config_text(in);
  EXPECT_LT(t.find("Host github.com\n  IdentityFile \"/tmp/.cordon-ssh/key-0\"\n  IdentitiesOnly yes"),
            t.find("Host *"));
  EXPECT_NE(t.find("ProxyCommand /tmp/.cordon-ssh/cordon __ssh-connect %h %p"), std::string::npos);
  EXPECT_NE(t.find("UserKnownHostsFile \"/tmp/.cordon-ssh/known_hosts\""), std::string::npos);
  EXPECT_NE(t.find("StrictHostKeyChecking yes"), std::string::npos);
  EXPECT_NE(t.find("BatchMode yes"), std::string::npos);
  EXPECT_NE(t.find("IdentityAgent none"), std::string::npos);
  in.agent = "/tmp/.cordon-ssh/agent";
  EXPECT_NE(ssh_config_text(in).find("IdentityAgent \"/tmp/.cordon-ssh/agent\""),
            std::string::npos);
  EXPECT_EQ(git_ssh_command("/tmp/.cordon-ssh"), "ssh -F /tmp/.cordon-ssh/config");
}

// NET-12: the plan: GIT_SSH_COMMAND only when an entry reaches 22 and the command uses the
// proxy; the agent's variable and Unix sockets only with the agent opt-in.
TEST(SshRules, PlanSetsTheRouteOnlyWithAPort22Entry) {
  FakeWorld w;
  w.policy.network.allow = {"github.com"};
  Plan p = make_plan(w.policy, w.facts, cmd({"git", "fetch"}));
  EXPECT_FALSE(p.env.get("GIT_SSH_COMMAND"));
  EXPECT_FALSE(p.ssh);
  w.policy.network.allow = {"github.com", "github.com:22"};
  w.facts.ssh.on = true;
  w.facts.ssh.dir = "/home/u/.cache/cordon/sandbox-tmp/s/.cordon-ssh";
  w.facts.ssh.inside_dir = "/tmp/.cordon-ssh";
  w.facts.ssh.exe = "/usr/bin/cordon";
  w.facts.ssh.exe_inside = "/tmp/.cordon-ssh/cordon";
  w.facts.ssh.keys = {{"github.com", "~/.ssh/id_gh", "/home/u/.ssh/id_gh", "/tmp/.cordon-ssh/key-0"}};
  p = make_plan(w.policy, w.facts, cmd({"git", "fetch"}));
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  EXPECT_EQ(p.env.value("GIT_SSH_COMMAND"), "ssh -F /tmp/.cordon-ssh/config");
  EXPECT_FALSE(p.env.get("SSH_AUTH_SOCK"));
  ASSERT_TRUE(p.ssh);
  EXPECT_EQ(p.ssh->keys, (std::vector<std::string>{"github.com: ~/.ssh/id_gh"}));
  bool key_bound = false, unix_refused = false;
  for (const auto& m : p.mounts)
    key_bound |= m.kind == MountKind::kRoBind && m.src == "/home/u/.ssh/id_gh" &&
                 m.dest == "/tmp/.cordon-ssh/key-0";
  for (const auto& r : p.seccomp) unix_refused |= r.why == "no Unix sockets";
  EXPECT_TRUE(key_bound);
  EXPECT_TRUE(unix_refused);  // NET-2 holds without the agent opt-in
  // A way out has no proxy, so no route.
  Request net = cmd({"git", "fetch"});
  net.network = true;
  EXPECT_FALSE(make_plan(w.policy, w.facts, net).env.get("GIT_SSH_COMMAND"));
}

TEST(SshRules, AgentOptInGivesTheSocketAndUnixSockets) {
  FakeWorld w;
  w.policy.network.allow = {"github.com:22"};
  w.policy.ssh.agent = true;
  w.facts.env.set("SSH_AUTH_SOCK", "/run/user/1000/agent.sock");
  w.facts.ssh.on = true;
  w.facts.ssh.dir = "/home/u/.cache/cordon/sandbox-tmp/s/.cordon-ssh";
  w.facts.ssh.inside_dir = "/tmp/.cordon-ssh";
  w.facts.ssh.exe = "/usr/bin/cordon";
  w.facts.ssh.exe_inside = "/tmp/.cordon-ssh/cordon";
  w.facts.ssh.agent = "/run/user/1000/agent.sock";
  w.facts.ssh.agent_inside = "/tmp/.cordon-ssh/agent";
  Plan p = make_plan(w.policy, w.facts, cmd({"git", "fetch"}));
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  EXPECT_EQ(p.env.value("SSH_AUTH_SOCK"), "/tmp/.cordon-ssh/agent");
  ASSERT_TRUE(p.ssh);
  EXPECT_TRUE(p.ssh->agent);
  for (const auto& r : p.seccomp) EXPECT_NE(r.why, "no Unix sockets");
  bool refused_by_default = false;
  for (const auto& r : default_seccomp_rules()) refused_by_default |= r.why == "no Unix sockets";
  EXPECT_TRUE(refused_by_default);
}

// NET-12: what ssh's own refusals get: the fix for an unknown host key, and the opt-ins when
// it had no key.
TEST(SshRules, NotesForAnUnknownHostKeyAndNoKey) {
  Plan p;
  p.config_file = "~/.config/cordon/config.toml";
  EXPECT_FALSE(ssh_note(p, 128, "Host key verification failed."));
  p.ssh = SshRoutePlan{};
  auto n = ssh_note(p, 128, "Host key verification failed.\r\nfatal: Could not read");
  ASSERT_TRUE(n);
  EXPECT_NE(n->find("known_hosts"), std::string::npos);
  n = ssh_note(p, 128, "git@github.com: Permission denied (publickey).");
  ASSERT_TRUE(n);
  EXPECT_NE(n->find("[ssh] keys"), std::string::npos);
  EXPECT_NE(n->find("[ssh] agent = true"), std::string::npos);
  EXPECT_FALSE(ssh_note(p, 0, "Permission denied (publickey)."));
}

// NET-12: the [ssh] table and its errors.
TEST(SshRules, SshTableParsesAndRefusesWhatItCannotUse) {
  auto c = parse_config("[ssh]\nagent = true\nkeys = { \"GitHub.com\" = \"~/.ssh/id_gh\" }\n",
                        "/c.toml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->ssh.agent);
  ASSERT_EQ(c->ssh.keys.size(), 1u);
  EXPECT_EQ(c->ssh.keys[0].first, "github.com");
  EXPECT_EQ(c->ssh.keys[0].second, "~/.ssh/id_gh");
  for (const char* bad : {"[ssh]\nkeys = { \"*.github.com\" = \"~/.ssh/id\" }\n",
                          "[ssh]\nkeys = { \"github.com:22\" = \"~/.ssh/id\" }\n",
                          "[ssh]\nkeys = { \"github.com\" = \"id\" }\n",
                          "[ssh]\nkeys = { \"github.com\" = 1 }\n", "[ssh]\nkeys = [\"x\"]\n",
                          "[ssh]\nagent = \"yes\"\n", "[ssh]\nagnet = true\n"}) {
    auto r = parse_config(bad, "/c.toml");
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("[ssh]"), std::string::npos) << r.error().message;
    }
  }
}

}  // namespace
}  // namespace cordon
