// FILE-4, NET-3: credential files are recognised by name in any case (issue 13 item 3).
#include "files/credential_rules.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cordon
