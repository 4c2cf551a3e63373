// ENV-1..3: which variables reach a command.
#include "plan/env_filter.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "plan/env_rules.h"

namespace cordon {
namespace {

bool stripped(const EnvFilterResult& r, const std::string& name) {
  return std::find(r.stripped.begin(), r.stripped.end(), name) != r.stripped.end();
}

TEST(EnvFilter, ProviderKeysAndPatterns) {  // ENV-1
  EnvMap env;
  for (const auto& n : provider_key_names()) env.set(n, "v");
  for (const char* n :
       {"GITHUB_TOKEN", "my_secret_thing", "STRIPE_KEY", "DB_CREDENTIALS", "MYSQL_PASSWORD",
        "LDAP_PASSWD", "SMTP_PASS", "PROXY_AUTH", "X_AUTH_HEADER", "SESSION_COOKIE", "AWS_PROFILE",
        "aws_region", "SSH_AUTH_SOCK", "GPG_AGENT_INFO"})
    env.set(n, "v");
  for (const char* n : {"PATH", "HOME", "KEYBOARD", "LANG", "PASSAGE", "AUTHOR", "TERM"})
    env.set(n, "v");
  Policy p;
  auto r = filter_env(env, p, false);
  for (const auto& n : provider_key_names()) EXPECT_TRUE(stripped(r, n)) << n;
  for (const char* n :
       {"GITHUB_TOKEN", "my_secret_thing", "STRIPE_KEY", "DB_CREDENTIALS", "MYSQL_PASSWORD",
        "LDAP_PASSWD", "SMTP_PASS", "PROXY_AUTH", "X_AUTH_HEADER", "SESSION_COOKIE", "AWS_PROFILE",
        "aws_region", "SSH_AUTH_SOCK", "GPG_AGENT_INFO"})
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
  EXPECT_FALSE(stripped(ext, "GITHUB_TOKEN"));       // ENV-3: passed
  EXPECT_TRUE(stripped(ext, "OPENAI_API_KEY"));      // ENV-3: providers always removed
  EXPECT_TRUE(stripped(ext, "GITHUB_TOKEN_LOWER"));  // exact, case-sensitive names only
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

// ENV-1 as a table: a name, a value, and whether a command may see it. Tokens are assembled
// from parts so that this file does not itself look like it holds credentials.
struct EnvCase {
  std::string name, value;
  bool stripped;
};

std::string repeat(char c, size_t n) { return std::string(n, c); }

std::vector<EnvCase> env_cases() {
  const std::string a36 = repeat('a', 20) + "B3c4D5e6F7g8H9i0";
  return {
      // Names (ENV-1 and issue 13's misses).
      {"MYSQL_PWD", "hunter2", true},
      {"PASSPHRASE", "correct horse", true},
      {"GPG_PASSPHRASE", "x", true},
      {"PRIVATE_KEY_PEM", "x", true},
      {"MY_APIKEY", "x", true},
      {"my_api_key_file", "x", true},
      {"SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T0/B0/x", true},
      {"DB_PW", "x", true},
      {"GITHUB_TOKEN", "x", true},
      {"AWS_PROFILE", "dev", true},
      // Values shaped like credentials, whatever the name.
      {"JDBC_URL", "jdbc:mysql://db:3306/app?user=app&password=s3cret", true},
      {"CONN", "Server=db;Database=app;User Id=sa;Password=s3cret;", true},
      {"NOTES", "sk_live_" + a36, true},
      {"NOTES2", "rk_test_" + a36, true},
      {"X1", "ghp_" + a36, true},
      {"X2", "Bearer gho_" + a36, true},
      {"X3", "github_pat_11ABCDEFG0" + a36, true},
      {"X4", "glpat-" + a36, true},
      {"X5", "xoxb-1234-5678-" + a36, true},
      {"X6", "xoxp-1234-5678-" + a36, true},
      {"X7", "AKIA" + std::string("IOSFODNN7EXAMPLE"), true},
      {"X8", "ASIA" + std::string("IOSFODNN7EXAMPLE"), true},
      {"X9", "AIza" + repeat('S', 20) + "y_ab-0123456789c", true},
      {"X10", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----",
       true},
      {"X11", "-----BEGIN RSA PRIVATE KEY-----", true},
      {"X12",
       "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_"
       "XgL0n3I9PlFUP0THsR8U",
       true},
      {"X13", "https://user:pa55@git.example.com/r.git", true},
      {"X14", "sk-ant-api03-" + a36, true},
      {"X15", "npm_" + a36, true},
      // Certificate bundles are paths, not secrets, and TLS needs them.
      {"AWS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt", false},
      {"PIP_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt", false},
      {"MY_CA_CERTS", "/etc/ssl/certs", false},
      {"SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt", false},
      {"SSL_CERT_DIR", "/etc/ssl/certs", false},
      {"NODE_EXTRA_CA_CERTS", "/etc/corp-ca.pem", false},
      {"REQUESTS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt", false},
      {"CURL_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt", false},
      // Ordinary variables stay.
      {"PWD", "/home/u/p", false},
      {"OLDPWD", "/home/u", false},
      {"PATH", "/usr/bin:/bin", false},
      {"PASSAGE", "x", false},
      {"KEYBOARD", "us", false},
      {"LS_COLORS", "di=01;34:ln=01;36", false},
      {"GIT_URL", "https://github.com/o/r.git", false},
      {"JAVA_OPTS", "-Xmx2g -Dfile.encoding=UTF-8", false},
      {"SHORT", "sk_live_x", false},  // too short to be a key
      {"WORD", "mask-askiasomething", false},
      {"DESC", "the passage=long", false},
  };
}

TEST(EnvFilter, TableOfNamesAndValues) {  // ENV-1
  for (const auto& c : env_cases()) {
    EnvMap env;
    env.set(c.name, c.value);
    auto r = filter_env(env, Policy{}, false);
    EXPECT_EQ(stripped(r, c.name), c.stripped) << c.name << "=" << c.value;
  }
}

TEST(EnvFilter, ValueShapesWinOverCertificateNamesAndEnvHideOverCertificates) {  // ENV-1
  EnvMap env;
  env.set("AWS_CA_BUNDLE", "https://u:p@example.com/ca.pem");
  env.set("SSL_CERT_FILE", "/etc/ssl/cert.pem");
  Policy p;
  p.env_hide = {"SSL_CERT_*"};
  auto r = filter_env(env, p, false);
  EXPECT_TRUE(stripped(r, "AWS_CA_BUNDLE"));  // a credential-shaped value is never passed
  EXPECT_TRUE(stripped(r, "SSL_CERT_FILE"));  // the user's env_hide wins
}

TEST(EnvFilter, EveryValueShapeIsRecognised) {  // ENV-1: the data table itself
  for (const auto& s : credential_value_shapes()) {
    std::string v = std::string(s.prefix) + std::string(s.min_tail, s.tail[s.tail.size() / 2]);
    EXPECT_EQ(value_credential(v), s.what) << v;
    EXPECT_EQ(value_credential(std::string(s.prefix) + std::string(s.min_tail - 1, s.tail[0])), "")
        << s.prefix;
  }
}

}  // namespace
}  // namespace cordon
