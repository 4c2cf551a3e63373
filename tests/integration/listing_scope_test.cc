// PERF-1: inside a ListingScope, read_path_info answers a missing name from its folder's
// listing. Every answer must be the one lstat gives (FS-1: a hidden path read as missing while
// it exists would not be hidden), on each shape of path: present, absent, through a link, under
// a file, in a folder that does not exist, on a filesystem the scope does not trust.
#include "host/listing_scope.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "host/path_info.h"

namespace cordon {
namespace {

class ListingScopeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* base : {"/var/tmp", "/dev/shm"}) {  // ext4 here, and tmpfs
      std::string tmpl = std::string(base) + "/cordon-listing-XXXXXX";
      std::vector<char> buf(tmpl.begin(), tmpl.end());
      buf.push_back('\0');
      if (mkdtemp(buf.data())) roots_.emplace_back(buf.data());
    }
    for (const auto& r : roots_) make_tree(r);
  }
  void TearDown() override {
    for (const auto& r : roots_) (void)system(("rm -rf '" + r + "'").c_str());
  }
  static void make_tree(const std::string& r) {
    mkdir((r + "/home").c_str(), 0755);
    mkdir((r + "/home/.ssh").c_str(), 0700);
    std::ofstream(r + "/home/.ssh/id_ed25519") << "key";
    std::ofstream(r + "/home/.npmrc") << "token";
    mkdir((r + "/elsewhere").c_str(), 0755);
    std::ofstream(r + "/elsewhere/credentials") << "x";
    (void)symlink((r + "/elsewhere").c_str(), (r + "/home/.aws").c_str());
    (void)symlink("nowhere", (r + "/home/.dangling").c_str());
    std::ofstream(r + "/home/afile") << "f";
  }
  // Every path a facts pass asks about, present or not.
  static std::vector<std::string> paths(const std::string& r) {
    std::vector<std::string> out;
    for (const char* rel :
         {"/home/.ssh", "/home/.ssh/id_ed25519", "/home/.ssh/id_rsa", "/home/.npmrc",
          "/home/.netrc", "/home/.aws", "/home/.aws/credentials", "/home/.aws/config",
          "/home/.dangling", "/home/.dangling/x", "/home/afile", "/home/afile/x",
          "/home/.config/gh/hosts.yml", "/home/.config", "/nothere/a/b", "/home/.SSH",
          "/home/./.ssh", "/home/.ssh/", "/home/../home/.npmrc"})
      out.push_back(r + rel);
    return out;
  }
  std::vector<std::string> roots_;
};

void expect_same(const PathInfo& a, const PathInfo& b) {
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(a.kind, b.kind) << a.path;
  EXPECT_EQ(a.exists(), b.exists()) << a.path;
  EXPECT_EQ(a.error, b.error) << a.path;
  EXPECT_EQ(a.real, b.real) << a.path;
  EXPECT_EQ(a.real_kind, b.real_kind) << a.path;
  EXPECT_EQ(a.ino, b.ino) << a.path;
  EXPECT_EQ(a.dev, b.dev) << a.path;
  EXPECT_EQ(a.mode, b.mode) << a.path;
  EXPECT_EQ(a.link_target, b.link_target) << a.path;
  EXPECT_EQ(a.size, b.size) << a.path;
}

TEST_F(ListingScopeTest, EveryAnswerIsLstats) {  // FS-1, PERF-1
  ASSERT_FALSE(roots_.empty());
  for (const auto& r : roots_) {
    std::vector<PathInfo> plain;
    for (const auto& p : paths(r)) plain.push_back(read_path_info(p));
    ListingScope scope;
    std::vector<std::string> ps = paths(r);
    // Twice: the first pass lists the folders it finds lacking, the second is answered by them.
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < ps.size(); ++i) expect_same(read_path_info(ps[i]), plain[i]);
  }
}

// A folder lstat found lacking two names is worth listing.
void found_lacking(ListingScope& scope, const std::string& dir) {
  scope.note_missing(dir + "/a");
  scope.note_missing(dir + "/b");
}

TEST_F(ListingScopeTest, AFolderIsListedOnlyOnceNamesWereMissingInIt) {  // PERF-1
  for (const auto& r : roots_) {
    ListingScope scope;
    EXPECT_FALSE(scope.known_missing(r + "/home/.netrc")) << "not listed yet: lstat answers";
    EXPECT_FALSE(read_path_info(r + "/home/.netrc").exists());
    EXPECT_FALSE(read_path_info(r + "/home/.pgpass").exists());
    EXPECT_TRUE(scope.known_missing(r + "/home/.git-credentials")) << r;
  }
}

TEST_F(ListingScopeTest, MissingNamesAreAnsweredFromTheListing) {  // PERF-1
  for (const auto& r : roots_) {
    ListingScope scope;
    for (const char* d : {"/home", "/home/.config/gh", "/home/afile", "/home/.aws"})
      found_lacking(scope, r + d);
    EXPECT_TRUE(scope.known_missing(r + "/home/.netrc")) << r;
    EXPECT_TRUE(scope.known_missing(r + "/home/.config/gh/hosts.yml")) << r;  // no .config
    EXPECT_TRUE(scope.known_missing(r + "/home/afile/x")) << r;               // under a file
    EXPECT_FALSE(scope.known_missing(r + "/home/.npmrc")) << r;
    EXPECT_FALSE(scope.known_missing(r + "/home/.aws/credentials")) << r;  // through a link
    EXPECT_FALSE(scope.known_missing(r + "/home/./.netrc")) << r;          // not plain: lstat's
  }
}

TEST_F(ListingScopeTest, AFilesystemNotOnTheListIsNotAnswered) {  // FS-1: names may fold
  ListingScope scope;
  // procfs is not one of the filesystems that compare names byte for byte on the list.
  found_lacking(scope, "/proc/self");
  EXPECT_FALSE(scope.known_missing("/proc/self/no-such-entry"));
  EXPECT_FALSE(read_path_info("/proc/self/no-such-entry").exists());
}

TEST_F(ListingScopeTest, AListingLastsOnlyForItsScope) {  // PERF-1: no stale answer later
  for (const auto& r : roots_) {
    {
      ListingScope scope;
      found_lacking(scope, r + "/home");
      EXPECT_FALSE(read_path_info(r + "/home/.netrc").exists());
      EXPECT_TRUE(scope.known_missing(r + "/home/.netrc"));
    }
    std::ofstream(r + "/home/.netrc") << "machine x";
    ListingScope scope;
    EXPECT_TRUE(read_path_info(r + "/home/.netrc").exists()) << r;
  }
}

TEST_F(ListingScopeTest, ScopesNestAndRestoreTheOuterOne) {
  EXPECT_EQ(ListingScope::current(), nullptr);
  ListingScope outer;
  {
    ListingScope inner;
    EXPECT_EQ(ListingScope::current(), &inner);
  }
  EXPECT_EQ(ListingScope::current(), &outer);
}

}  // namespace
}  // namespace cordon
