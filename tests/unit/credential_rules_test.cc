// FILE-4, NET-3: credential files are recognised by name in any case (issue 13 item 3).
#include "file_rules/credential_rules.h"

#include <gtest/gtest.h>

#include <cctype>

namespace cordon {
namespace {

TEST(CredentialRules, ExtensionsInAnyCase) {  // FILE-4, NET-3
  for (const char* n : {"server.PEM", "b.Key", "B.KEY", "cert.P12", "cert.Pfx", "tls.kEy", ".ENV",
                        ".Env.Local", ".env.PRODUCTION"})
    EXPECT_TRUE(is_credential_name(n)) << n;
  for (const char* n :
       {".ENV.EXAMPLE", ".env.Sample", ".Env.Template", "monkey", "KEY", ".PEM", "a.PEM.txt"})
    EXPECT_FALSE(is_credential_name(n)) << n;
  EXPECT_TRUE(is_pem_name("Bundle.PEM"));
  EXPECT_FALSE(is_pem_name("pem"));
}

TEST(CredentialRules, SecretsFolderInAnyCase) {  // FILE-4
  EXPECT_TRUE(is_credential_path("/p/.SECRETS/db.txt"));
  EXPECT_TRUE(is_credential_path("/p/.Secrets"));
  EXPECT_TRUE(has_secrets_component("/p/.Secrets/x"));
  EXPECT_TRUE(is_secrets_folder(".SeCrEtS"));
  EXPECT_FALSE(is_credential_path("/p/Secrets/db.txt"));
}

class CredentialNameRowTest : public ::testing::TestWithParam<CredentialNameRow> {};

// A name this row is written for: its pattern with each `*` and `?` filled in.
std::string example_name(const char* pattern) {
  std::string out;
  for (const char* p = pattern; *p; ++p)
    out += *p == '*' ? std::string("prod") : *p == '?' ? "x" : std::string(1, *p);
  return out;
}

TEST_P(CredentialNameRowTest, MatchesItsNamesInAnyCase) {  // FILE-4, NET-3
  const CredentialNameRow& r = GetParam();
  std::string name = example_name(r.pattern);
  EXPECT_TRUE(is_credential_name(name)) << r.pattern << " -> " << name;
  std::string upper;
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(is_credential_name(upper)) << upper;
  EXPECT_TRUE(is_credential_path("/p/sub/" + name));
  EXPECT_FALSE(is_credential_name("x" + name + ".txt")) << name;  // another name is not it
  EXPECT_GT(std::string(r.written_by).size(), 5u) << r.pattern << ": say what writes it";
}

std::string row_name(const ::testing::TestParamInfo<CredentialNameRow>& info) {
  std::string n;
  for (char c : std::string(info.param.pattern))
    n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(FILE4, CredentialNameRowTest, ::testing::ValuesIn(credential_name_rows()),
                         row_name);

TEST(CredentialRules, TheRequestedNames) {  // FILE-4, NET-3 (issue 27 section 4)
  for (const char* n :
       {".npmrc", ".pypirc", ".netrc", ".git-credentials", "credentials.json",
        "service-account.json", "service-account-ci.json", "kubeconfig", "prod.tfvars", ".dev.vars",
        "auth.json", "terraform.tfstate", "id_ed25519", "AuthKey_ABC.p8"})
    EXPECT_TRUE(is_credential_name(n)) << n;
  for (const char* n : {"package.json", "tsconfig.json", "service.json", "config.json",
                        "variables.tf", "id_ed25519.pub", "README.md", "keys.go"})
    EXPECT_FALSE(is_credential_name(n)) << n;
}

TEST(CredentialRules, PrivateKeysAreFoundByContent) {  // NET-3
  const std::string begin = "-----BEGIN ";
  for (const char* label : {"PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY",
                            "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "DSA PRIVATE KEY"})
    EXPECT_TRUE(holds_private_key("{\"private_key\": \"" + begin + label + "-----\\nMII")) << label;
  EXPECT_FALSE(holds_private_key(begin + "CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"));
  EXPECT_FALSE(holds_private_key(begin + "PUBLIC KEY-----\nMIIB"));
  EXPECT_FALSE(holds_private_key("a private key goes here"));
}

}  // namespace
}  // namespace cordon
