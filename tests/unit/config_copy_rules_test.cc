// FS-4: which lines of a home config hold a credential, and the copy commands see instead.
#include "plan/config_copy_rules.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

// Token-shaped values, assembled so that this file does not itself hold one.
std::string ghp() { return "ghp_" + std::string("A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"); }

bool gone(const SanitizedText& s, const std::string& secret) {
  return s.text.find(secret) == std::string::npos;
}

TEST(ConfigCopyRules, ShellLinesThatExportACredentialGo) {  // FS-4
  std::string text =
      "export PATH=\"$HOME/.cargo/bin:$PATH\"\n"
      "if [ -f x ]; then\n"
      "  export GITHUB_TOKEN=hunter2-plain\n"
      "fi\n"
      "OPENAI_API_KEY='also-plain' some_tool\n"
      "declare -x DB_PASSWORD=pw1\n"
      "setenv NPM_TOKEN pw2\n"
      "set -gx ANTHROPIC_API_KEY pw3\n"
      "SETUVAR --export HF_TOKEN:pw4\n"
      "alias gh='GH_X=" +
      ghp() +
      " gh'\n"
      "export EDITOR=vim\n"
      "export GITHUB_TOKEN\n";
  SanitizedText s = sanitize_config_text(text, ConfigFormat::kShell);
  for (const char* secret : {"hunter2-plain", "also-plain", "pw1", "pw2", "pw3", "pw4"})
    EXPECT_TRUE(gone(s, secret)) << secret << "\n" << s.text;
  EXPECT_TRUE(gone(s, ghp()));
  EXPECT_EQ(s.removed.size(), 7u);
  // What builds and shells need stays; an `if` keeps a command inside it.
  EXPECT_NE(s.text.find("export PATH=\"$HOME/.cargo/bin:$PATH\"\n"), std::string::npos);
  EXPECT_NE(s.text.find("then\ntrue  # cordon"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("export EDITOR=vim\n"), std::string::npos);
  EXPECT_NE(s.text.find("export GITHUB_TOKEN"), std::string::npos);  // no value given
  // Never the secret in what is reported.
  for (const auto& r : s.removed) EXPECT_EQ(r.find("pw"), std::string::npos) << r;
}

TEST(ConfigCopyRules, UrlsLoseTheirUserAndPassword) {  // FS-4
  SanitizedText s = sanitize_config_text(
      "[global]\nindex-url = https://me:s3cret@pypi.corp.example/simple\n"
      "extra-index-url =\n    https://__token__@pypi.other.example/simple\n"
      "    https://pypi.org/simple\n",
      ConfigFormat::kIni);
  EXPECT_TRUE(gone(s, "s3cret"));
  EXPECT_TRUE(gone(s, "__token__"));
  EXPECT_NE(s.text.find("index-url = https://pypi.corp.example/simple"), std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("    https://pypi.other.example/simple\n"), std::string::npos);
  EXPECT_EQ(s.removed.size(), 2u);
  // An ssh login name is not a secret.
  SanitizedText t =
      sanitize_config_text("[source.x]\ngit = \"ssh://git@github.com/o/r\"\n", ConfigFormat::kToml);
  EXPECT_TRUE(t.removed.empty());
}

TEST(ConfigCopyRules, TokenKeysGoInEachFormat) {  // FS-4
  struct Case {
    ConfigFormat f;
    std::string line, secret;
  } cases[] = {
      {ConfigFormat::kYaml, "npmAuthToken: plain-1", "plain-1"},
      {ConfigFormat::kYaml, "    npmAuthIdent: \"dXNlcjpwdw==\"", "dXNlcjpwdw"},
      {ConfigFormat::kYaml, "  \"npmAuthToken\": plain-2", "plain-2"},
      {ConfigFormat::kIni, "\"//registry.npmjs.org/:_authToken\" plain-3", "plain-3"},
      {ConfigFormat::kIni, "//registry.example/:_auth=plain-4", "plain-4"},
      {ConfigFormat::kToml, "token = \"plain-5\"", "plain-5"},
      {ConfigFormat::kToml, "registry.token = \"plain-6\"", "plain-6"},
      {ConfigFormat::kToml, "corp = { index = \"https://x\", token = \"plain-7\" }", "plain-7"},
      {ConfigFormat::kToml, "password=\"plain-8\"", "plain-8"},
  };
  for (const auto& c : cases) {
    SanitizedText s = sanitize_config_text("a = 1\n" + c.line + "\nb = 2\n", c.f);
    EXPECT_TRUE(gone(s, c.secret)) << c.line << "\n" << s.text;
    EXPECT_EQ(s.removed.size(), 1u) << c.line;
    EXPECT_NE(s.text.find("a = 1\n"), std::string::npos);
    EXPECT_NE(s.text.find("b = 2\n"), std::string::npos);
  }
  // YAML keeps the removed line's indentation.
  SanitizedText y =
      sanitize_config_text("npmScopes:\n  corp:\n    npmAuthToken: x\n", ConfigFormat::kYaml);
  EXPECT_NE(y.text.find("\n    # cordon"), std::string::npos) << y.text;
}

TEST(ConfigCopyRules, WhatHoldsNoCredentialStays) {  // FS-4
  std::string cargo =
      "[build]\nrustflags = [\"-C\", \"target-cpu=native\"]\n"
      "[target.x86_64-unknown-linux-gnu]\nlinker = \"clang\"\n"
      "[registries.corp]\nindex = \"sparse+https://cargo.corp.example/index/\"\n"
      "[net]\ngit-fetch-with-cli = true\n[alias]\nb = \"build\"\n";
  SanitizedText s = sanitize_config_text(cargo, ConfigFormat::kToml);
  EXPECT_TRUE(s.removed.empty());
  EXPECT_EQ(s.text, cargo);
  std::string yarn = "nodeLinker: node-modules\nnpmRegistryServer: \"https://r.example\"\n";
  EXPECT_TRUE(sanitize_config_text(yarn, ConfigFormat::kYaml).removed.empty());
  std::string rc = "alias ll='ls -l'\nexport NVM_DIR=\"$HOME/.nvm\"\n# a comment\n";
  EXPECT_TRUE(sanitize_config_text(rc, ConfigFormat::kShell).removed.empty());
}

TEST(ConfigCopyRules, APrivateKeyBlockGoesWhole) {  // FS-4
  std::string text =
      "key: |\n  -----BEGIN RSA PRIVATE KEY-----\n  MIIEbody1\n  body2\n"
      "  -----END RSA PRIVATE KEY-----\nafter: 1\n";
  SanitizedText s = sanitize_config_text(text, ConfigFormat::kYaml);
  EXPECT_TRUE(gone(s, "body1"));
  EXPECT_TRUE(gone(s, "body2"));
  EXPECT_NE(s.text.find("after: 1\n"), std::string::npos);
  EXPECT_EQ(s.removed.size(), 4u);
}

}  // namespace
}  // namespace cordon
