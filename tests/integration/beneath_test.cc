// The resolver aftercare uses (src/host/beneath.cc) on each link shape, on real files: a parent
// that is a link, a link to `..`, a link to `/`, a folder swapped for a link while it is used.
// Nothing outside the root may be seen or moved (FS-2, PROT-7).
#include "host/beneath.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace cordon {
namespace {

class BeneathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/var/tmp/cordon-beneath-XXXXXX";
    base_ = mkdtemp(tmpl);
    root_ = base_ + "/proj";
    outside_ = base_ + "/outside";
    mkdir(root_.c_str(), 0755);
    mkdir(outside_.c_str(), 0755);
    write(outside_ + "/config.toml", "user's\n");
  }
  void TearDown() override { system(("rm -rf " + base_).c_str()); }
  static void write(const std::string& p, const std::string& s) { std::ofstream(p) << s; }
  static bool exists(const std::string& p) {
    struct stat st;
    return lstat(p.c_str(), &st) == 0;
  }
  std::string base_, root_, outside_;
};

TEST_F(BeneathTest, APlainPathIsSeenAndMoved) {  // PROT-7
  mkdir((root_ + "/.cargo").c_str(), 0755);
  write(root_ + "/.cargo/config.toml", "x");
  auto b = Beneath::open(root_);
  ASSERT_TRUE(b.ok());
  BeneathStat s = b->lstat(".cargo/config.toml");
  EXPECT_EQ(s.kind, Kind::kFile);
  EXPECT_TRUE(s.via_link.empty());
  ASSERT_TRUE(b->rename(".cargo/config.toml", ".cargo", "moved").ok());
  EXPECT_TRUE(exists(root_ + "/.cargo/moved"));
}

TEST_F(BeneathTest, AParentLinkIsNamedNeverFollowed) {  // FS-2, PROT-7
  ASSERT_EQ(symlink(outside_.c_str(), (root_ + "/.cargo").c_str()), 0);
  auto b = Beneath::open(root_);
  BeneathStat s = b->lstat(".cargo/config.toml");
  EXPECT_EQ(s.kind, Kind::kMissing);
  EXPECT_EQ(s.via_link, ".cargo");
  EXPECT_EQ(s.via_link_target, outside_);
  EXPECT_FALSE(b->rename(".cargo/config.toml", ".cargo", "moved").ok());
  EXPECT_TRUE(exists(outside_ + "/config.toml"));
  // The link itself is moved as the link.
  ASSERT_TRUE(b->rename(".cargo", "", "cargo-link").ok());
  char buf[4096] = {};
  EXPECT_GT(readlink((root_ + "/cargo-link").c_str(), buf, sizeof buf - 1), 0);
  EXPECT_EQ(std::string(buf), outside_);
  EXPECT_TRUE(exists(outside_ + "/config.toml"));
}

TEST_F(BeneathTest, LinksToDotDotAndToTheRootAreNotEntered) {  // FS-2
  ASSERT_EQ(symlink("..", (root_ + "/up").c_str()), 0);
  ASSERT_EQ(symlink("/", (root_ + "/top").c_str()), 0);
  auto b = Beneath::open(root_);
  EXPECT_EQ(b->lstat("up/outside/config.toml").via_link, "up");
  EXPECT_EQ(b->lstat("top/etc/passwd").via_link, "top");
  EXPECT_LT(b->open_dir("up").fd, 0);
  EXPECT_LT(b->open_dir("top/etc").fd, 0);
  EXPECT_FALSE(b->rename("up/outside/config.toml", "", "x").ok());
  EXPECT_FALSE(b->rename("../outside/config.toml", "", "x").ok());
  EXPECT_TRUE(exists(outside_ + "/config.toml"));
}

TEST_F(BeneathTest, AFolderSwappedForALinkAfterItWasOpenedStaysTheFolder) {  // PROT-7
  mkdir((root_ + "/.github").c_str(), 0755);
  mkdir((root_ + "/.github/workflows").c_str(), 0755);
  write(root_ + "/.github/workflows/evil.yml", "x");
  auto b = Beneath::open(root_);
  Fd dir = b->open_dir(".github/workflows");
  ASSERT_GE(dir.fd, 0);
  // A concurrent command swaps the parent for a link to another repository's .github.
  mkdir((outside_ + "/workflows").c_str(), 0755);
  write(outside_ + "/workflows/evil.yml", "other repo\n");
  ASSERT_EQ(rename((root_ + "/.github").c_str(), (root_ + "/gh-old").c_str()), 0);
  ASSERT_EQ(symlink(outside_.c_str(), (root_ + "/.github").c_str()), 0);
  // A fresh lookup refuses the link; a rename through the path refuses it too.
  EXPECT_EQ(b->lstat(".github/workflows/evil.yml").via_link, ".github");
  EXPECT_FALSE(b->rename(".github/workflows/evil.yml", "", "moved").ok());
  EXPECT_TRUE(exists(outside_ + "/workflows/evil.yml"));
  // The descriptor opened before the swap still names the project's folder.
  struct stat st;
  EXPECT_EQ(fstatat(dir.fd, "evil.yml", &st, AT_SYMLINK_NOFOLLOW), 0);
  EXPECT_TRUE(exists(root_ + "/gh-old/workflows/evil.yml"));
}

TEST_F(BeneathTest, FindsARenamedOriginalByItsIdentity) {  // GIT-9
  mkdir((root_ + "/.vscode").c_str(), 0755);
  struct stat st;
  ASSERT_EQ(lstat((root_ + "/.vscode").c_str(), &st), 0);
  ASSERT_EQ(rename((root_ + "/.vscode").c_str(), (root_ + "/.vscode-x").c_str()), 0);
  auto b = Beneath::open(root_);
  auto found = b->find_by_identity("", st.st_dev, st.st_ino);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], ".vscode-x");
}

}  // namespace
}  // namespace cordon
