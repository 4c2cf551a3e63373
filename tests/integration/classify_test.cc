// CMD-6: `cordon classify` through the real binary, with the host's symlink resolver.
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "harness.h"

namespace cordon::it {
namespace {

TEST(Classify, PrintsClassThenReason) {  // CMD-6: exit 0 whatever the class
  World w;
  Proc r = w.cordon({"classify", "--", "git", "status"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("read-only\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("git status"), std::string::npos) << r.out;

  r = w.cordon({"classify", "-c", "ls | sort -o out"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("needs-approval\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("-o"), std::string::npos) << r.out;

  r = w.cordon({"classify", "-c", "sh -c 'sudo reboot'"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("denied\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("CMD-4"), std::string::npos) << r.out;

  // Options after the command belong to it.
  r = w.cordon({"classify", "--", "rm", "-rf", "/"});
  EXPECT_EQ(r.out.rfind("denied\n", 0), 0u) << r.out;
}

TEST(Classify, Json) {  // CMD-6
  World w;
  Proc r = w.cordon({"classify", "--json", "--", "cat", w.home() + "/.ssh/id_rsa"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["class"], "needs-approval");
  EXPECT_EQ(j["rule"], "sensitive-path");
  EXPECT_EQ(j["word"], w.home() + "/.ssh/id_rsa");
  EXPECT_TRUE(j["reason"].is_string());

  r = w.cordon({"classify", "--json", "--network", "--", "ls"});
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["class"], "needs-approval");
  EXPECT_EQ(j["rule"], "network");  // CMD-3

  // Bytes that are not UTF-8 still give valid JSON.
  r = w.cordon({"classify", "--json", "-c", "cat '\xff\xfe' > out"});
  ASSERT_EQ(r.status, 0);
  EXPECT_NO_THROW(nlohmann::json::parse(r.out)) << r.out;
}

// CMD-4: the deny rules judge what the shell would act on, against the real filesystem: a
// glob or braces that name the home folder, a link to it followed by `/`, a glob into /dev.
TEST(Classify, GlobsBracesAndLinksToTheHomeFolderAreDenied) {  // CMD-4
  World w;
  const std::string home = w.home();
  const std::string parent = home.substr(0, home.rfind('/'));
  const std::string name = home.substr(home.rfind('/') + 1);
  ASSERT_EQ(symlink(home.c_str(), w.abs("homelink").c_str()), 0);
  for (const std::string& line : std::vector<std::string>{
           "rm -rf " + home.substr(0, home.size() - 1) + "?", "rm -rf " + parent + "/*/",
           "rm -rf " + parent + "/{" + name + ",nothing}", "rm -rf homelink/",
           "chmod -R 777 homelink", "cat x > /dev/nul?"}) {
    Proc r = w.cordon({"classify", "-c", line});
    EXPECT_EQ(r.out.rfind("denied\n", 0), 0u) << line << ": " << r.out;
  }
  // The link itself, not what it leads to.
  Proc r = w.cordon({"classify", "-c", "rm -rf homelink"});
  EXPECT_EQ(r.out.rfind("needs-approval\n", 0), 0u) << r.out;
}

TEST(Classify, SymlinkToDeniedPath) {  // CMD-5: symlink targets are denied too
  World w;
  std::string secret = w.root() + "/secret";
  w.write(secret + "/key", "k");
  w.config("[commands]\ndenied_paths = [\"" + secret + "\"]\n");
  ASSERT_EQ(symlink(secret.c_str(), w.abs("innocent").c_str()), 0);
  Proc r = w.cordon({"classify", "--", "cat", "innocent/key"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("denied\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("symlink"), std::string::npos) << r.out;
  r = w.cordon({"classify", "--", "cat", "README"});
  EXPECT_EQ(r.out.rfind("read-only\n", 0), 0u) << r.out;
}

TEST(Classify, ConfigExtras) {  // CMD-2, CMD-4: [commands] read_only and denied
  World w;
  w.config("[commands]\nread_only = [\"just --list\"]\ndenied = [\"git push\"]\n");
  EXPECT_EQ(w.cordon({"classify", "--", "just", "--list"}).out.rfind("read-only\n", 0), 0u);
  EXPECT_EQ(w.cordon({"classify", "-c", "git -C . push"}).out.rfind("denied\n", 0), 0u);
}

TEST(Classify, UsageAndBrokenConfig) {  // CMD-6, CFG-2: exit 125 with a `cordon: ` message
  World w;
  Proc r = w.cordon({"classify"});
  EXPECT_EQ(r.status, 125);
  EXPECT_EQ(r.err.rfind("cordon: ", 0), 0u) << r.err;
  r = w.cordon({"classify", "-c", "ls", "--", "ls"});
  EXPECT_EQ(r.status, 125);
  w.config("[commands]\nread_only = [\"a b c d e\"]\n");
  r = w.cordon({"classify", "--", "ls"});
  EXPECT_EQ(r.status, 125);
  EXPECT_EQ(r.err.rfind("cordon: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("read_only"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
}  // namespace cordon::it
