// AUD-2: the violations of a result, certain and read from the output.
#include "plan/violations.h"

#include <gtest/gtest.h>

#include "fake_facts.h"
#include "plan/blocked_note.h"
#include "plan/planner.h"

namespace cordon {
namespace {

Plan sandbox_plan() {
  testing::FakeWorld w;
  return make_plan(w.policy, w.facts, testing::cmd({"x"}));
}

TEST(Violations, ARefusedWriteNamesItsPathFromTheOutput) {  // AUD-2, RES-3
  auto v = output_violations(sandbox_plan(), 1,
                             "touch: cannot touch '/etc/x': Read-only file system\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "write");
  EXPECT_EQ(v[0].path, "/etc/x");
  EXPECT_EQ(v[0].source, "output");
  EXPECT_NE(v[0].rule.find("writes outside the project"), std::string::npos);
  EXPECT_NE(v[0].fix.find("--outside-sandbox"), std::string::npos);
}

TEST(Violations, AFolderInTheHomeGetsTheWritableFix) {  // AUD-2, RES-3
  Plan p = sandbox_plan();
  auto v = output_violations(
      p, 1, "mkdir: cannot create directory '" + p.home + "/go/pkg': Read-only file system\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].fix.find("add `writable = [\"~/go\"]` under [sandbox]"), std::string::npos)
      << v[0].fix;
  EXPECT_NE(v[0].fix.find("for this step alone, run it again with --outside-sandbox"),
            std::string::npos)
      << v[0].fix;
}

TEST(Violations, NetworkSocketAndGitConfigFromTheOutput) {  // AUD-2, NET-1, NET-2, GIT-1
  Plan p = sandbox_plan();
  auto net = output_violations(p, 6, "curl: (6) Could not resolve host: example.invalid\n");
  ASSERT_EQ(net.size(), 1u);
  EXPECT_EQ(net[0].kind, "network");
  EXPECT_EQ(net[0].host, "");  // the wording does not say which for certain
  EXPECT_NE(net[0].fix.find("--network"), std::string::npos);
  auto sock = output_violations(p, 1, "connect /run/x.sock: Permission denied\n");
  ASSERT_EQ(sock.size(), 1u);
  EXPECT_EQ(sock[0].kind, "socket");
  auto git = output_violations(
      p, 4,
      "sh: 1: cannot create /etc/out.txt: Read-only file system\n"
      "error: could not write config file .git/config: Device or resource busy\n");
  ASSERT_EQ(git.size(), 2u);
  EXPECT_NE(git[0].rule.find("git's config"), std::string::npos);
  EXPECT_EQ(git[1].path, "/etc/out.txt");
}

TEST(Violations, NothingForACommandThatFailedForItsOwnReasons) {  // AUD-2
  Plan p = sandbox_plan();
  EXPECT_TRUE(output_violations(p, 1, "make: *** [all] Error 1\n").empty());
  // A network word in a successful command's output is no refusal.
  EXPECT_TRUE(output_violations(p, 0, "retrying: network is unreachable\n").empty());
  p.runner = Runner::kUnconfined;
  EXPECT_TRUE(output_violations(p, 1, "touch: cannot touch '/etc/x': Read-only file system\n")
                  .empty());
}

TEST(Violations, TheProxysRefusalsAreCertainAndNameTheHost) {  // AUD-2, NET-9
  std::vector<api::Connection> c = {
      {"registry.npmjs.org:443", true, "allow registry.npmjs.org", 10, 20, 1},
      {"evil.invalid:443", false, "not in allow", 0, 0, 2},
      {"127.0.0.1:9", true, "unreachable: connection refused", 0, 0, 1},
  };
  auto v = proxy_violations(c, "~/.config/cordon/config.toml");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "network");
  EXPECT_EQ(v[0].host, "evil.invalid:443");
  EXPECT_EQ(v[0].rule, "not in allow");
  EXPECT_EQ(v[0].source, "cordon");
  EXPECT_NE(v[0].fix.find("add it to allow under [network] in ~/.config/cordon/config.toml"),
            std::string::npos)
      << v[0].fix;
}

TEST(Violations, AQuarantineIsAPlantWithWhereItWent) {  // AUD-2, PROT-7
  auto v = plant_violations({{".envrc", ".envrc.cordon-quarantined-0123"}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "plant");
  EXPECT_EQ(v[0].path, ".envrc");
  EXPECT_NE(v[0].fix.find(".envrc.cordon-quarantined-0123"), std::string::npos);
}

TEST(Violations, ACertainRefusalWinsOverTheWordingsGuess) {  // AUD-2
  Plan p = sandbox_plan();
  api::ExecResult out;
  out.exit_code = 56;
  out.stderr_text = "curl: (56) CONNECT tunnel failed, response 403\nCould not resolve host\n";
  out.connections = {{"evil.invalid:443", false, "not in allow", 0, 0, 1}};
  out.quarantined = {{".envrc", ".envrc.q"}};
  auto v = all_violations(p, out);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].host, "evil.invalid:443");
  EXPECT_EQ(v[1].kind, "plant");
  // A timed-out command's last words are not read.
  out.connections.clear();
  EXPECT_EQ(all_violations(p, out, /*read_output=*/false).size(), 1u);
  EXPECT_EQ(all_violations(p, out).size(), 2u);
}

}  // namespace
}  // namespace cordon
