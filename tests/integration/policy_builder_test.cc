// The policy made in code (include/cordon/policy.h, issue 29 review item 5): a PolicyBuilder
// checks its settings as config.toml's are checked, says which call was wrong, and a session
// opened with the policy it built runs under it without reading the user's config file.
#include <cordon/cordon.h>
#include <cordon/policy.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "harness.h"
#include "world_options.h"

namespace cordon::it {
namespace {

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The call named, the kind of error, and no path of a config file nobody wrote.
void expect_refused(const api::Result<api::SandboxPolicy>& r, const std::string& call) {
  ASSERT_FALSE(r.ok()) << "built: " << r->toml();
  EXPECT_EQ(r.error().code, api::ErrorCode::kInvalid);
  EXPECT_TRUE(has(r.error().message, "PolicyBuilder: " + call + "()")) << r.error().message;
  EXPECT_TRUE(has(r.error().message, "Fix")) << r.error().message;
  EXPECT_FALSE(has(r.error().message, "config.toml")) << r.error().message;
}

TEST(PolicyBuilder, WritesWhatAConfigFileWouldHold) {  // CFG-2, CFG-3
  auto p = api::PolicyBuilder()
               .writable("~/.cache/pip")
               .hide("~/work/other-client")
               .hide_env("ACME_*")
               .protect("scripts/deploy.sh")
               .allow_network("registry.npmjs.org")
               .deny_network("evil.example.invalid")
               .ask_unknown_hosts(true)
               .max_processes(512)
               .memory_limit(2ull << 30)
               .away_timeout(std::chrono::minutes(5))
               .build();
  ASSERT_TRUE(p.ok()) << p.error().message;
  const std::string& t = p->toml();
  for (const char* part : {"[sandbox]", "writable = [ '~/.cache/pip' ]", "'~/work/other-client'",
                           "'ACME_*'", "'scripts/deploy.sh'", "[network]", "'registry.npmjs.org'",
                           "'evil.example.invalid'", "unknown = 'ask'", "[limits]", "pids = 512",
                           "memory = 2147483648", "[away]", "timeout = '300s'"})
    EXPECT_TRUE(has(t, part)) << part << " in\n" << t;
  // Nothing set: the defaults, as with no config file.
  auto empty = api::PolicyBuilder().build();
  ASSERT_TRUE(empty.ok()) << empty.error().message;
}

TEST(PolicyBuilder, ABadValueIsRefusedNamingTheCall) {  // CFG-2
  expect_refused(api::PolicyBuilder().mode("sideways").build(), "mode");
  // Beside the project only home folders may be writable, and never the home itself.
  expect_refused(api::PolicyBuilder().writable("/etc").build(), "writable");
  expect_refused(api::PolicyBuilder().writable("~").build(), "writable");
  expect_refused(api::PolicyBuilder().hide("relative/path").build(), "hide");
  expect_refused(api::PolicyBuilder().protect("/etc/passwd").build(), "protect");
  expect_refused(api::PolicyBuilder().allow_network("http://host/").build(), "allow_network");
  expect_refused(api::PolicyBuilder().deny_network("").build(), "deny_network");
  expect_refused(api::PolicyBuilder().max_processes(0).build(), "max_processes");
  expect_refused(
      api::PolicyBuilder().memory_limit(std::numeric_limits<std::uint64_t>::max()).build(),
      "memory_limit");
  expect_refused(api::PolicyBuilder().away_timeout(std::chrono::hours(48)).build(), "away_timeout");
  // The second of two calls: said so.
  auto r = api::PolicyBuilder().writable("~/.cache/ok").writable("/srv").build();
  expect_refused(r, "writable");
  EXPECT_TRUE(has(r.error().message, "call number 2")) << r.error().message;
}

TEST(PolicyBuilder, ASessionRunsUnderItAndTheConfigFileIsNotRead) {  // CFG-1, FS-4, FS-6
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/notes/client.txt", "TOPSECRET\n");
  w.write(w.home() + "/.cache/tool/keep", "k\n");
  // A broken config file: a session that read it would not open.
  w.config("[sandbox\nmode = \n");
  auto broken = api::Session::open(world_options(w));
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().code, api::ErrorCode::kUnavailable);

  auto policy = api::PolicyBuilder().hide("~/notes").writable("~/.cache/tool").build();
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  api::Options o = world_options(w);
  o.policy = *policy;
  auto s = api::Session::open(o);
  ASSERT_TRUE(s.ok()) << s.error().message;
  api::ExecRequest req;
  req.command = "cat ~/notes/client.txt; echo changed > ~/.cache/tool/keep; echo done";
  auto res = (*s)->exec(req);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_FALSE(has(res->stdout_text, "TOPSECRET")) << res->stdout_text;
  EXPECT_TRUE(has(res->stdout_text, "done")) << res->stdout_text << res->stderr_text;
  EXPECT_EQ(w.read(w.home() + "/.cache/tool/keep"), "changed\n") << res->stderr_text;
  EXPECT_EQ(w.read(w.home() + "/notes/client.txt"), "TOPSECRET\n");
}

}  // namespace
}  // namespace cordon::it
