// ENV-1..3: which variables reach a command.
#include <gtest/gtest.h>

#include <algorithm>

#include "plan/env_filter.h"

namespace cordon {
namespace {

bool stripped(const EnvFilterResult& r, const std::string& name) {
  return std::find(r.stripped.begin(), r.stripped.end(), name) != r.stripped.end();
}

TEST(EnvFilter, ProviderKeysAndPatterns) {  // ENV-1
  EnvMap env;
  for (const auto& n : provider_key_names()) env.set(n, "v");
  for (const char* n : {"GITHUB_TOKEN", "my_secret_thing", "STRIPE_KEY", "DB_CREDENTIALS",
                        "MYSQL_PASSWORD", "LDAP_PASSWD", "SMTP_PASS", "PROXY_AUTH",
                        "X_AUTH_HEADER", "SESSION_COOKIE", "AWS_PROFILE", "aws_region",
                        "SSH_AUTH_SOCK", "GPG_AGENT_INFO"})
    env.set(n, "v");
  for (const char* n : {"PATH", "HOME", "KEYBOARD", "LANG", "PASSAGE", "AUTHOR", "TERM"})
    env.set(n, "v");
  Policy p;
  auto r = filter_env(env, p, false);
  for (const auto& n : provider_key_names()) EXPECT_TRUE(stripped(r, n)) << n;
  for (const char* n : {"GITHUB_TOKEN", "my_secret_thing", "STRIPE_KEY", "DB_CREDENTIALS",
                        "MYSQL_PASSWORD", "LDAP_PASSWD", "SMTP_PASS", "PROXY_AUTH",
                        "X_AUTH_HEADER", "SESSION_COOKIE", "AWS_PROFILE", "aws_region",
                        "SSH_AUTH_SOCK", "GPG_AGENT_INFO"})
    EXPECT_TRUE(stripped(r, n)) << n;
  for (const char* n : {"PATH", "HOME", "KEYBOARD", "LANG", "PASSAGE", "AUTHOR", "TERM"}) {
    EXPECT_FALSE(stripped(r, n)) << n;
    EXPECT_TRUE(r.kept.get(n).has_value()) << n;
  }
}

TEST(EnvFilter, UrlWithPassword) {  // ENV-1
  EXPECT_TRUE(value_has_url_password("postgres://user:pw@db:5432/x"));
  EXPECT_TRUE(value_has_url_password("https://u:p@example.com"));
  EXPECT_TRUE(value_has_url_password("a,redis://:secret@cache:6379"));
  EXPECT_FALSE(value_has_url_password("https://example.com/a:b@c"));  // '@' after the path
  EXPECT_FALSE(value_has_url_password("https://user@example.com"));   // no password
  EXPECT_FALSE(value_has_url_password("git@github.com:o/r.git"));
  EXPECT_FALSE(value_has_url_password("http://host:8080/"));
  EnvMap env;
  env.set("DATABASE_URL", "postgres://u:p@h/db");
  env.set("PLAIN_URL", "https://example.com");
  auto r = filter_env(env, Policy{}, false);
  EXPECT_TRUE(stripped(r, "DATABASE_URL"));
  EXPECT_FALSE(stripped(r, "PLAIN_URL"));
}

TEST(EnvFilter, EnvHideAddsNamesAndPatterns) {  // ENV-1 env_hide
  Policy p;
  p.env_hide = {"INTERNAL_*", "exact_name"};
  EnvMap env;
  env.set("INTERNAL_URL", "x");
  env.set("EXACT_NAME", "x");
  env.set("OTHER", "x");
  auto r = filter_env(env, p, false);
  EXPECT_TRUE(stripped(r, "INTERNAL_URL"));
  EXPECT_TRUE(stripped(r, "EXACT_NAME"));
  EXPECT_FALSE(stripped(r, "OTHER"));
}

TEST(EnvFilter, EnvPassOnlyInExternalAndNeverProviders) {  // ENV-2, ENV-3
  Policy p;
  p.env_pass = {"GITHUB_TOKEN", "OPENAI_API_KEY", "github_token_lower"};
  EnvMap env;
  env.set("GITHUB_TOKEN", "x");
  env.set("OPENAI_API_KEY", "x");
  env.set("GITHUB_TOKEN_LOWER", "x");
  auto on = filter_env(env, p, false);
  EXPECT_TRUE(stripped(on, "GITHUB_TOKEN"));  // ENV-2: ignored outside external
  auto ext = filter_env(env, p, true);
  EXPECT_FALSE(stripped(ext, "GITHUB_TOKEN"));      // ENV-3: passed
  EXPECT_TRUE(stripped(ext, "OPENAI_API_KEY"));     // ENV-3: providers always removed
  EXPECT_TRUE(stripped(ext, "GITHUB_TOKEN_LOWER"));  // exact, case-sensitive names only
}

}  // namespace
}  // namespace cordon
