// AUD-3: [credentials]: the config section, the placeholder's shape, the hosts a credential is
// bound to, a request head rewritten for the bound host or refused, and what the planner gives
// the sandbox. Pure.
#include <gtest/gtest.h>

#include "config/config_file.h"
#include "core/base64.h"
#include "plan/credential_rules.h"
#include "plan/env_filter.h"
#include "plan/net_rules.h"
#include "plan/planner.h"
#include "fake_facts.h"

namespace cordon {
namespace {

const char* kFile = "/home/u/.config/cordon/config.toml";

Result<Policy> parse(const std::string& text) { return parse_config(text, kFile); }

std::string error_of(const std::string& text) {
  auto r = parse(text);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.error().message;
}

const char* kAllow = "[network]\nallow = [\"api.github.com\", \"**.npmjs.org\", \"127.0.0.1:8443\"]\n";

TEST(CredentialsConfig, ParsesEachWayOfSending) {  // AUD-3
  auto p = parse(std::string(kAllow) +
                 "[credentials.github]\nenv = \"GITHUB_TOKEN\"\nhosts = [\"api.github.com\"]\n"
                 "send = \"authorization\"\n"
                 "[credentials.npm]\nfile = \"~/.config/npm/token\"\nhosts = [\"**.npmjs.org\"]\n"
                 "send = \"basic\"\n"
                 "[credentials.local]\nenv = \"LOCAL_KEY\"\nhosts = [\"127.0.0.1:8443\"]\n"
                 "header = \"X-Api-Key\"\n");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->credentials.size(), 3u);
  EXPECT_EQ(p->credentials[0].name, "github");
  EXPECT_EQ(p->credentials[0].env, "GITHUB_TOKEN");
  EXPECT_EQ(p->credentials[0].send, CredentialSend::kAuthorization);
  EXPECT_EQ(p->credentials[1].file, "~/.config/npm/token");
  EXPECT_EQ(p->credentials[1].send, CredentialSend::kBasic);
  EXPECT_EQ(p->credentials[2].send, CredentialSend::kHeader);  // header = "..." alone says it
  EXPECT_EQ(p->credentials[2].header, "X-Api-Key");
}

TEST(CredentialsConfig, ErrorsNameTheFileTheKeyAndTheFix) {  // AUD-3, CFG-2
  const std::string base = std::string(kAllow) + "[credentials.github]\n";
  std::string e = error_of(base + "hosts = [\"api.github.com\"]\n");
  EXPECT_NE(e.find(kFile), std::string::npos) << e;
  EXPECT_NE(e.find("[credentials.github]"), std::string::npos) << e;
  EXPECT_NE(e.find("env = \"VARIABLE\" or file"), std::string::npos) << e;
  e = error_of(base + "env = \"GITHUB_TOKEN\"\nfile = \"~/t\"\nhosts = [\"api.github.com\"]\n");
  EXPECT_NE(e.find("one of them"), std::string::npos) << e;
  e = error_of(base + "env = \"GITHUB_TOKEN\"\n");
  EXPECT_NE(e.find("hosts is missing"), std::string::npos) << e;
  e = error_of(base + "env = \"GITHUB TOKEN\"\nhosts = [\"api.github.com\"]\n");
  EXPECT_NE(e.find("not a variable name"), std::string::npos) << e;
  e = error_of(base + "file = \"token\"\nhosts = [\"api.github.com\"]\n");
  EXPECT_NE(e.find("absolute or start with"), std::string::npos) << e;
  e = error_of(base + "env = \"T\"\nhosts = [\"*.com\"]\n");
  EXPECT_NE(e.find("[credentials.github] hosts[0]"), std::string::npos) << e;
  e = error_of(base + "env = \"T\"\nhosts = [\"api.github.com\"]\nsend = \"cookie\"\n");
  EXPECT_NE(e.find("\"authorization\""), std::string::npos) << e;
  e = error_of(base + "env = \"T\"\nhosts = [\"api.github.com\"]\nsend = \"header\"\n");
  EXPECT_NE(e.find("needs header = "), std::string::npos) << e;
  e = error_of(base + "env = \"T\"\nhosts = [\"api.github.com\"]\nheader = \"Proxy-Authorization\"\n");
  EXPECT_NE(e.find("cannot carry a credential"), std::string::npos) << e;
  e = error_of(base + "env = \"T\"\nhosts = [\"api.github.com\"]\ncolour = 1\n");
  EXPECT_NE(e.find("unknown key"), std::string::npos) << e;
}

// AUD-3: a credential goes only where the allowlist proxy goes.
TEST(CredentialsConfig, HostsMustBeAllowed) {
  std::string e = error_of(std::string(kAllow) +
                           "[credentials.github]\nenv = \"T\"\nhosts = [\"github.com\"]\n");
  EXPECT_NE(e.find("\"github.com\" is not reached through [network] allow"), std::string::npos)
      << e;
  EXPECT_NE(e.find("add \"github.com\" to [network] allow"), std::string::npos) << e;
  // A name below an allowed **. entry is allowed; a wider wildcard than the allow entry is not.
  EXPECT_TRUE(parse(std::string(kAllow) +
                    "[credentials.npm]\nenv = \"T\"\nhosts = [\"registry.npmjs.org\"]\n")
                  .ok());
  error_of("[network]\nallow = [\"*.npmjs.org\"]\n[credentials.npm]\nenv = \"T\"\nhosts = "
           "[\"**.npmjs.org\"]\n");
  e = error_of(std::string(kAllow) + "deny = [\"api.github.com\"]\n[credentials.g]\nenv = "
                                     "\"T\"\nhosts = [\"api.github.com\"]\n");
  EXPECT_NE(e.find("denied by [network] deny"), std::string::npos) << e;
  e = error_of(std::string(kAllow) +
               "[credentials.a]\nenv = \"T\"\nhosts = [\"api.github.com\"]\n"
               "[credentials.b]\nenv = \"T\"\nhosts = [\"api.github.com\"]\n");
  EXPECT_NE(e.find("same variable as [credentials.a]"), std::string::npos) << e;
}

TEST(CredentialPlaceholder, KeepsTheShapeNeverTheValue) {  // AUD-3
  const std::string real = "ghp_" + std::string(36, 'A');
  const std::string p = credential_placeholder(real, "0123456789abcdef0123");
  EXPECT_EQ(p.rfind("ghp_cordon_0123456789abcdef0123", 0), 0u) << p;
  EXPECT_EQ(p.size(), real.size());
  EXPECT_EQ(p.find("AAAA"), std::string::npos);
  EXPECT_EQ(credential_placeholder("github_pat_11ABC", "r1").rfind("github_pat_cordon_", 0), 0u);
  EXPECT_EQ(credential_placeholder("glpat-xyz", "r1").rfind("glpat-cordon_", 0), 0u);
  EXPECT_EQ(credential_placeholder("npm_abc", "r1").rfind("npm_cordon_", 0), 0u);
  EXPECT_EQ(credential_placeholder("sk-ant-api03-x", "r1").rfind("sk-ant-cordon_", 0), 0u);
  // No recognisable prefix: "cordon_" and the random part.
  EXPECT_EQ(credential_placeholder("s3cr3tvalue", "r1").rfind("cordon_r1", 0), 0u);
}

std::vector<CredentialBinding> bindings() {
  auto b = credential_bindings(
      {CredentialConfig{"github", "GITHUB_TOKEN", "", {"api.github.com"},
                        CredentialSend::kAuthorization, ""},
       CredentialConfig{"npm", "NPM_TOKEN", "", {"**.npmjs.org"}, CredentialSend::kBasic, ""},
       CredentialConfig{"key", "KEY", "", {"127.0.0.1:8443"}, CredentialSend::kHeader,
                        "X-Api-Key"},
       CredentialConfig{"unset", "UNSET", "", {"api.github.com"}, CredentialSend::kHeader,
                        "X-Other"}},
      {"ghp_cordon_P1", "npm_cordon_P2", "cordon_P3", "cordon_P4"},
      {std::string("ghp_REAL1"), std::string("npm_REAL2"), std::string("REAL3"), std::nullopt});
  EXPECT_TRUE(b.ok());
  return b.value();
}

TEST(CredentialBinding, BoundToItsHostsOnly) {  // AUD-3
  auto all = bindings();
  ASSERT_EQ(all.size(), 3u);  // no value: left out
  EXPECT_TRUE(credential_bound_to(all[0], "api.github.com", 443));
  EXPECT_FALSE(credential_bound_to(all[0], "api.github.com", 80));  // https only
  EXPECT_FALSE(credential_bound_to(all[0], "github.com", 443));
  EXPECT_TRUE(credential_bound_to(all[1], "npmjs.org", 443));
  EXPECT_TRUE(credential_bound_to(all[1], "registry.npmjs.org", 443));
  EXPECT_FALSE(credential_bound_to(all[1], "evilnpmjs.org", 443));
  EXPECT_TRUE(credential_bound_to(all[2], "127.0.0.1", 8443));
  EXPECT_FALSE(credential_bound_to(all[2], "127.0.0.1", 443));
  EXPECT_TRUE(any_credential_bound_to(all, "registry.npmjs.org", 443));
  EXPECT_FALSE(any_credential_bound_to(all, "example.org", 443));
}

TEST(CredentialRewrite, TheBoundHostGetsTheRealValueInItsHeader) {  // AUD-3
  auto all = bindings();
  auto r = rewrite_request_head(
      "GET /user HTTP/1.1\r\nHost: api.github.com\r\nAuthorization: Bearer ghp_cordon_P1\r\n"
      "Accept: */*\r\n\r\n",
      all, "api.github.com", 443);
  ASSERT_FALSE(r.refusal);
  EXPECT_EQ(r.head,
            "GET /user HTTP/1.1\r\nHost: api.github.com\r\nAuthorization: Bearer ghp_REAL1\r\n"
            "Accept: */*\r\n\r\n");
  EXPECT_EQ(r.used, std::vector<std::string>{"github"});
  // gh's scheme, and basic auth with the placeholder as the password.
  r = rewrite_request_head("GET / HTTP/1.1\r\nAuthorization: token ghp_cordon_P1\r\n\r\n", all,
                           "api.github.com", 443);
  EXPECT_NE(r.head.find("Authorization: token ghp_REAL1"), std::string::npos);
  r = rewrite_request_head("GET / HTTP/1.1\r\nAuthorization: Basic " +
                               base64_encode("me:npm_cordon_P2") + "\r\n\r\n",
                           all, "registry.npmjs.org", 443);
  ASSERT_FALSE(r.refusal);
  EXPECT_NE(r.head.find("Authorization: Basic " + base64_encode("me:npm_REAL2")),
            std::string::npos)
      << r.head;
  r = rewrite_request_head(
      "POST /x HTTP/1.1\r\nX-Api-Key: cordon_P3\r\nExpect: 100-continue\r\n\r\n", all,
      "127.0.0.1", 8443);
  EXPECT_NE(r.head.find("X-Api-Key: REAL3"), std::string::npos);
  EXPECT_EQ(r.head.find("Expect"), std::string::npos);  // the proxy answers the 100 itself
  EXPECT_TRUE(r.expect_continue);
  // Nothing to replace: unchanged.
  r = rewrite_request_head("GET / HTTP/1.1\r\nHost: a\r\n\r\n", all, "api.github.com", 443);
  EXPECT_EQ(r.head, "GET / HTTP/1.1\r\nHost: a\r\n\r\n");
  EXPECT_TRUE(r.used.empty());
}

TEST(CredentialRewrite, ThePlaceholderElsewhereIsRefused) {  // AUD-3
  auto all = bindings();
  // Another credential's host (npm's placeholder to GitHub).
  auto r = rewrite_request_head("GET / HTTP/1.1\r\nAuthorization: Bearer npm_cordon_P2\r\n\r\n",
                                all, "api.github.com", 443);
  EXPECT_EQ(r.refusal, std::optional<std::string>("npm"));
  // Another header than the credential's.
  r = rewrite_request_head("GET / HTTP/1.1\r\nX-Api-Key: ghp_cordon_P1\r\n\r\n", all,
                           "api.github.com", 443);
  EXPECT_EQ(r.refusal, std::optional<std::string>("github"));
  // In the URL.
  r = rewrite_request_head("GET /?t=ghp_cordon_P1 HTTP/1.1\r\n\r\n", all, "api.github.com", 443);
  EXPECT_EQ(r.refusal, std::optional<std::string>("github"));
  // basic: only as the password.
  r = rewrite_request_head("GET / HTTP/1.1\r\nAuthorization: Basic " +
                               base64_encode("npm_cordon_P2:x") + "\r\n\r\n",
                           all, "registry.npmjs.org", 443);
  EXPECT_EQ(r.refusal, std::optional<std::string>("npm"));
  // A request read in the clear (plain http://) carrying any placeholder, raw or in Basic.
  EXPECT_EQ(placeholder_refusal("GET http://e.org/ HTTP/1.1\r\nX: cordon_P3\r\n\r\n", all, ""),
            std::optional<std::string>("key"));
  EXPECT_EQ(placeholder_refusal("GET http://e.org/ HTTP/1.1\r\nAuthorization: Basic " +
                                    base64_encode("u:ghp_cordon_P1") + "\r\n\r\n",
                                all, ""),
            std::optional<std::string>("github"));
  EXPECT_FALSE(placeholder_refusal("GET http://e.org/ HTTP/1.1\r\n\r\n", all, ""));
  // The refusal's rule, body and note name the credential, never a value.
  const std::string rule = placeholder_rule("github");
  EXPECT_EQ(placeholder_rule_credential(rule), std::optional<std::string>("github"));
  const std::string body = refusal_body("e.org:80", rule, "~/.config/cordon/config.toml");
  EXPECT_NE(body.find("[credentials.github]"), std::string::npos) << body;
  EXPECT_EQ(body.find("REAL"), std::string::npos);
}

TEST(CredentialEnv, TheVariableIsStrippedWhateverItsName) {  // AUD-3, ENV-1
  Policy p;
  p.credentials.push_back(CredentialConfig{"x", "MY_THING", "", {"a.org"}, {}, ""});
  EnvMap env;
  env.set("MY_THING", "value-without-a-shape");
  auto f = filter_env(env, p, false);
  EXPECT_EQ(f.stripped, std::vector<std::string>{"MY_THING"});
}

TEST(CredentialPlan, PlaceholdersBundleAndMountsUnderTheProxy) {  // AUD-3
  Policy p;
  p.network.allow = {"api.github.com"};
  p.credentials.push_back(
      CredentialConfig{"github", "GITHUB_TOKEN", "", {"api.github.com"}, {}, ""});
  p.credentials.push_back(
      CredentialConfig{"file", "", "~/.config/x/token", {"api.github.com"}, {}, ""});
  testing::FakeWorld w;
  Facts& f = w.facts;
  f.env.set("GITHUB_TOKEN", "ghp_REAL");
  CredentialSandbox cs;
  cs.items.push_back({"github", "GITHUB_TOKEN", "", "ghp_cordon_P", ""});
  cs.items.push_back({"file", "", f.home + "/.config/x/token", "cordon_F", "/d/cred/s/file"});
  cs.ca_bundle = "/d/cred/ca-bundle.pem";
  PlanOptions po;
  po.credentials = &cs;
  Request req;
  req.argv = {"true"};
  req.cwd = f.project;
  Plan plan = make_plan(p, f, req, po);
  ASSERT_FALSE(plan.refused()) << plan.refusal->message;
  EXPECT_EQ(plan.env.value("GITHUB_TOKEN"), "ghp_cordon_P");
  EXPECT_EQ(plan.env.value("SSL_CERT_FILE"), cs.ca_bundle);
  EXPECT_EQ(plan.env.value("NODE_EXTRA_CA_CERTS"), cs.ca_bundle);
  EXPECT_EQ(plan.env.value("npm_config_cafile"), cs.ca_bundle);
  EXPECT_EQ(std::find(plan.stripped.begin(), plan.stripped.end(), "GITHUB_TOKEN"),
            plan.stripped.end());
  auto has_mount = [&](const std::string& src, const std::string& dest) {
    return std::any_of(plan.mounts.begin(), plan.mounts.end(), [&](const MountOp& m) {
      return m.kind == MountKind::kRoBind && m.src == src && m.dest == dest;
    });
  };
  EXPECT_TRUE(has_mount("/d/cred/s/file", f.home + "/.config/x/token"));
  EXPECT_TRUE(has_mount(cs.ca_bundle, cs.ca_bundle));
  // A way out (the machine's network, no proxy): stripped, no bundle; the file still covered.
  req.network = true;
  plan = make_plan(p, f, req, po);
  EXPECT_FALSE(plan.env.get("GITHUB_TOKEN"));
  EXPECT_FALSE(plan.env.get("SSL_CERT_FILE"));
  EXPECT_FALSE(has_mount(cs.ca_bundle, cs.ca_bundle));
}

}  // namespace
}  // namespace cordon
