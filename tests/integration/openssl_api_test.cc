// PERF-1, AUD-3: OpenSSL is loaded when first needed, not at every start (net/openssl_api.h).
// What an embedder and a user see: every function cordon calls resolves from the system's
// libssl and libcrypto; a missing library is an error that names it and the package to
// install; and a certificate authority read from its files loads nothing until a leaf is made.
#include "net/openssl_api.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "harness.h"
#include "net/cert_authority.h"

namespace cordon {
namespace {

#if !defined(__APPLE__)
TEST(OpensslApi, EveryFunctionResolvesFromTheSystemsLibraries) {
  ASSERT_TRUE(load_openssl().ok()) << load_openssl().error().message;
  EXPECT_TRUE(openssl_loaded());
  const OpensslApi& api = openssl();
  std::string missing;
#define CORDON_OPENSSL_FN(name) \
  if (!api.name) missing += " " #name;
#include "net/openssl_functions.h"
#undef CORDON_OPENSSL_FN
  EXPECT_EQ(missing, "");
  // A real call through the table.
  EXPECT_NE(api.EVP_sha256(), nullptr);
}

TEST(OpensslApi, AMissingLibraryNamesItselfAndThePackage) {
  OpensslApi api;
  Status st = load_openssl_from("libssl-not-here.so.3", "libcrypto.so.3", api);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("libssl-not-here.so.3"), std::string::npos)
      << st.error().message;
  EXPECT_NE(st.error().message.find("apt-get install libssl3"), std::string::npos)
      << st.error().message;
  EXPECT_EQ(api.SSL_new, nullptr);  // nothing half-filled
  st = load_openssl_from("libssl.so.3", "libcrypto-not-here.so.3", api);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("libcrypto-not-here.so.3"), std::string::npos);
}

// What a library path in the environment names is not loaded in place of the system's OpenSSL:
// cordon loads it by full path beside the C library. This test program again, with
// LD_LIBRARY_PATH naming a folder of files that are no libraries at all.
TEST(OpensslApi, ALibraryPathInTheEnvironmentDoesNotReplaceTheSystemsOpenssl) {
  it::TempDir dir("cordon-openssl-path");
  for (const char* name : {"libssl.so.3", "libcrypto.so.3"})
    std::ofstream(dir.path + "/" + name) << "not a library\n";
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string cmd = "LD_LIBRARY_PATH=" + dir.path + " " + self +
                          " --gtest_filter=OpensslApi.EveryFunctionResolvesFromTheSystemsLibraries"
                          " >" +
                          dir.path + "/out.txt 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream in(dir.path + "/out.txt");
  const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
}

// ctest runs each test in a process of its own, where nothing has loaded OpenSSL yet.
TEST(OpensslApi, ACertificateAuthorityReadFromItsFilesLoadsNothingUntilALeaf) {
  if (openssl_loaded()) GTEST_SKIP() << "an earlier test of this process loaded OpenSSL";
  it::TempDir dir("cordon-openssl");
  const std::string ca = dir.path + "/credentials";
  ASSERT_EQ(std::system(("mkdir -p " + ca + " && cd " + ca +
                         " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1"
                         " -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=test-ca"
                         " -addext basicConstraints=critical,CA:TRUE >/dev/null 2>&1")
                            .c_str()),
            0);
  auto opened = CertAuthority::open(ca);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_FALSE(openssl_loaded());  // the files are read as text only
  auto leaf = (*opened)->leaf_for("registry.example.invalid");
  ASSERT_TRUE(leaf.ok()) << leaf.error().message;
  EXPECT_TRUE(openssl_loaded());
  EXPECT_EQ(leaf->cert_pem.rfind("-----BEGIN CERTIFICATE-----", 0), 0u);
  EXPECT_NE(leaf->key_pem.find("PRIVATE KEY-----"), std::string::npos);
}
#endif

}  // namespace
}  // namespace cordon
