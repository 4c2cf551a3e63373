// NET-6, NET-7, NET-3: when the planner gives a command the allowlist proxy.
#include <gtest/gtest.h>

#include "fake_facts.h"
#include "plan/blocked_note.h"
#include "plan/net_rules.h"
#include "plan/planner.h"

namespace cordon {
namespace {

using testing::FakeWorld;

using testing::cmd;

// NET-7: [network] allow set: the proxy's port in the plan and its variables in the command's
// environment; no new mount and no way out.
TEST(NetPlan, AllowlistGivesTheProxy) {
  FakeWorld w;
  Plan before = make_plan(w.policy, w.facts, cmd({"npm", "ci"}));
  EXPECT_FALSE(before.proxy_port);
  EXPECT_FALSE(before.env.get("HTTPS_PROXY").has_value());
  w.policy.network.allow = {"registry.npmjs.org"};
  Plan p = make_plan(w.policy, w.facts, cmd({"npm", "ci"}));
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  ASSERT_TRUE(p.proxy_port);
  EXPECT_EQ(*p.proxy_port, kProxyPort);
  EXPECT_FALSE(p.share_network);
  EXPECT_EQ(p.env.value("HTTPS_PROXY"), "http://127.0.0.1:3128");
  EXPECT_EQ(p.env.value("npm_config_https_proxy"), "http://127.0.0.1:3128");
  EXPECT_EQ(p.mount_count(), before.mount_count());
  EXPECT_EQ(p.argv, (std::vector<std::string>{"npm", "ci"}));
}

// LL-1: under Landlock, the proxy is the one the session started on the machine's loopback:
// its port and password come from the caller, and the variables carry both; without a port
// the command has no proxy (and no network). A way out needs none.
TEST(NetPlan, LandlockTakesTheSessionsPortAndPassword) {
  FakeWorld w;
  w.policy.network.allow = {"registry.npmjs.org"};
  PlanOptions po;
  po.backend = Backend::kLandlock;
  Plan none = make_plan(w.policy, w.facts, cmd({"npm", "ci"}), po);
  EXPECT_FALSE(none.proxy_port);
  EXPECT_FALSE(none.env.get("HTTPS_PROXY").has_value());
  po.proxy_port = 41234;
  po.proxy_password = "0123abcd";
  Plan p = make_plan(w.policy, w.facts, cmd({"npm", "ci"}), po);
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  ASSERT_TRUE(p.proxy_port);
  EXPECT_EQ(*p.proxy_port, 41234);
  EXPECT_EQ(p.env.value("HTTPS_PROXY"), "http://cordon:0123abcd@127.0.0.1:41234");
  EXPECT_EQ(p.env.value("npm_config_proxy"), "http://cordon:0123abcd@127.0.0.1:41234");
  EXPECT_EQ(p.env.value("NO_PROXY"), "localhost,127.0.0.1,::1");
  Request out = cmd({"npm", "ci"});
  out.network = true;
  EXPECT_FALSE(uses_allowlist_proxy(w.policy, out));
  EXPECT_FALSE(make_plan(w.policy, w.facts, out, po).proxy_port);
  EXPECT_TRUE(uses_allowlist_proxy(w.policy, cmd({"npm", "ci"})));
}

// NET-10: unknown = "ask" with an empty allow list still puts every host through the proxy,
// which asks about each.
TEST(NetPlan, AskingAboutUnknownHostsGivesTheProxy) {
  FakeWorld w;
  w.policy.network.ask_unknown = true;
  Plan p = make_plan(w.policy, w.facts, cmd({"curl", "x"}));
  ASSERT_TRUE(p.proxy_port);
  EXPECT_EQ(p.env.value("HTTPS_PROXY"), "http://127.0.0.1:3128");
}

// NET-10/NET-3: `network: true` is the whole network, without the proxy.
TEST(NetPlan, NetworkTrueHasNoProxy) {
  FakeWorld w;
  w.policy.network.allow = {"registry.npmjs.org"};
  Request r = cmd({"curl", "x"});
  r.network = true;
  Plan p = make_plan(w.policy, w.facts, r);
  EXPECT_FALSE(p.proxy_port);
  EXPECT_FALSE(p.env.get("HTTPS_PROXY").has_value());
}

// JOB-2: in a session that keeps one loopback, a command without a way out is in
// it, with the proxy on the port the session gave it; a command with the machine's network is
// not, nor is one outside the sandbox.
TEST(NetPlan, SessionLoopbackOnlyWithoutAWayOut) {
  FakeWorld w;
  w.policy.network.allow = {"registry.npmjs.org"};
  PlanOptions po;
  po.session_loopback = true;
  po.proxy_port = kProxyPort + 2;
  Plan p = make_plan(w.policy, w.facts, cmd({"npm", "ci"}), po);
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  EXPECT_TRUE(p.session_loopback);
  EXPECT_FALSE(p.share_network);
  ASSERT_TRUE(p.proxy_port);
  EXPECT_EQ(*p.proxy_port, kProxyPort + 2);
  EXPECT_EQ(p.env.value("HTTPS_PROXY"), "http://127.0.0.1:3130");

  Request open = cmd({"curl", "x"});
  open.network = true;
  Plan q = make_plan(w.policy, w.facts, open, po);
  EXPECT_FALSE(q.session_loopback);
  EXPECT_TRUE(q.share_network);
  Request outside = cmd({"true"});
  outside.outside_sandbox = true;
  EXPECT_FALSE(make_plan(w.policy, w.facts, outside, po).session_loopback);
  // Without the option: a loopback of its own, the proxy on its usual port.
  Plan own = make_plan(w.policy, w.facts, cmd({"npm", "ci"}));
  EXPECT_FALSE(own.session_loopback);
  EXPECT_EQ(*own.proxy_port, kProxyPort);
}

// NET-7: a program that ignores the variables is told that only proxied traffic leaves.
TEST(NetPlan, BlockedNoteNamesTheProxy) {
  FakeWorld w;
  w.policy.network.allow = {"registry.npmjs.org"};
  Plan p = make_plan(w.policy, w.facts, cmd({"ssh", "github.com"}));
  auto note = blocked_note(p, 255, "ssh: connect to host github.com: Network is unreachable");
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("only proxied traffic can leave"), std::string::npos) << *note;
  // Node 20's fetch ignores the variables: its errors name the codes (NetTools.NodeFetch...).
  for (const char* out :
       {"TypeError: fetch failed [cause]: Error: getaddrinfo EAI_AGAIN x.org",
        "TypeError: fetch failed [cause]: Error: connect ENETUNREACH 192.0.2.1:80"}) {
    note = blocked_note(p, 1, out);
    ASSERT_TRUE(note) << out;
    EXPECT_NE(note->find("127.0.0.1:3128"), std::string::npos) << *note;
  }
}

}  // namespace
}  // namespace cordon
