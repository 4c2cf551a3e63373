// PROT-6, GIT-8, PERF-3: the directory index around a command. An unchanged folder is passed
// by one stat from the project's root; what a user relies on is that a planted file is found
// wherever the command put it, however it rearranged the folders on the way (a folder swapped
// for a link, replaced by a new one, its times put back), and that nothing outside the project
// is ever taken into the index.
#include "host/dir_index.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

namespace cordon {
namespace {

namespace fs = std::filesystem;

class DirIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(project_ + "/a/b/c");
    fs::create_directories(project_ + "/d");
    fs::create_directories(outside_.path + "/b/c");
    // Past the racy window: every folder is recorded as settled, so the quick look is taken.
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    auto b = Beneath::open(project_);
    ASSERT_TRUE(b.ok());
    index_ = load_dir_index(*b, dir_.path + "/index");
    for (const auto& d : index_.dirs) ASSERT_FALSE(d.racy) << d.rel;
  }
  DirRefresh refresh() {
    auto b = Beneath::open(project_);
    EXPECT_TRUE(b.ok());
    return refresh_dir_index(*b, index_);
  }
  void plant(const std::string& path) { std::ofstream(path) << "echo ran\n"; }

  it::TempDir dir_{"cordon-dir-index"};
  it::TempDir outside_{"cordon-dir-index-outside"};
  std::string project_ = dir_.path + "/project";
  DirIndex index_;
};

std::vector<std::string> rels(const DirIndex& idx) {
  std::vector<std::string> out;
  for (const auto& d : idx.dirs) out.push_back(d.rel);
  return out;
}

// The change reported for the folder `rel`, or nullptr.
const DirChange* change_of(const DirRefresh& r, const std::string& rel) {
  for (const auto& c : r.changes)
    if (c.rel == rel) return &c;
  return nullptr;
}

bool names_envrc(const DirChange* c) {
  if (c == nullptr) return false;
  return std::any_of(c->names.begin(), c->names.end(),
                     [](const auto& n) { return n.first.name == ".envrc"; });
}

TEST_F(DirIndexTest, UnchangedFoldersAreNotListedAgain) {  // PERF-3
  DirRefresh r = refresh();
  EXPECT_FALSE(r.changed);
  EXPECT_TRUE(r.changes.empty());
  EXPECT_EQ(rels(r.index), (std::vector<std::string>{"", "a", "a/b", "a/b/c", "d"}));
}

TEST_F(DirIndexTest, APlantDeepBelowIsFound) {  // PROT-6
  plant(project_ + "/a/b/c/.envrc");
  DirRefresh r = refresh();
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(names_envrc(change_of(r, "a/b/c")));
  EXPECT_EQ(change_of(r, "a/b"), nullptr);  // its entries did not change
}

TEST_F(DirIndexTest, APlantWhoseFolderTimesWerePutBackIsFound) {  // PROT-6
  struct stat before;
  ASSERT_EQ(stat((project_ + "/a/b").c_str(), &before), 0);
  plant(project_ + "/a/b/.envrc");
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, (project_ + "/a/b").c_str(), times, 0), 0);
  EXPECT_TRUE(names_envrc(change_of(refresh(), "a/b")));
}

TEST_F(DirIndexTest, AFolderSwappedForALinkIsWalkedWhereItReallyIs) {  // PROT-6, FS-2
  // The folder moves (its inode, and its unchanged sub-folders, with it) and a link takes its
  // name: what is below is judged under its real name, never through the link.
  fs::rename(project_ + "/a", project_ + "/z");
  fs::create_directory_symlink("z", project_ + "/a");
  plant(project_ + "/z/b/c/.envrc");
  DirRefresh r = refresh();
  EXPECT_TRUE(r.changed);
  const DirChange* c = change_of(r, "z/b/c");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->fresh);
  EXPECT_TRUE(names_envrc(c));
  EXPECT_EQ(rels(r.index), (std::vector<std::string>{"", "d", "z", "z/b", "z/b/c"}));
}

TEST_F(DirIndexTest, ALinkOutOfTheProjectTakesNothingOutsideIntoTheIndex) {  // FS-2
  fs::rename(project_ + "/a", dir_.path + "/moved-away");
  fs::create_directory_symlink(outside_.path, project_ + "/a");
  plant(outside_.path + "/b/c/.envrc");
  DirRefresh r = refresh();
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(rels(r.index), (std::vector<std::string>{"", "d"}));
  for (const auto& ch : r.changes) EXPECT_FALSE(names_envrc(&ch)) << ch.rel;
}

TEST_F(DirIndexTest, AFolderReplacedByANewOneIsWalkedAfresh) {  // PROT-6
  fs::remove_all(project_ + "/a/b");
  fs::create_directories(project_ + "/a/b/c");
  plant(project_ + "/a/b/c/.envrc");
  DirRefresh r = refresh();
  // A new folder may get the old one's inode number back; its ctime is new all the same.
  EXPECT_TRUE(names_envrc(change_of(r, "a/b/c")));
}

TEST_F(DirIndexTest, TheSavedIndexReadsBackAsItWas) {  // PERF-3, PROT-6
  plant(project_ + "/a/.envrc");
  ASSERT_EQ(mkdir((project_ + "/d/.git").c_str(), 0755), 0);  // a nested repository's print
  DirRefresh r = refresh();
  const std::string file = dir_.path + "/index";
  ASSERT_TRUE(save_dir_index(file, project_, r.index).ok());
  auto b = Beneath::open(project_);
  ASSERT_TRUE(b.ok());
  bool built = true;
  DirIndex back = load_dir_index(*b, file, &built);
  EXPECT_FALSE(built);
  ASSERT_EQ(back.dirs.size(), r.index.dirs.size());
  for (size_t i = 0; i < back.dirs.size(); ++i) {
    EXPECT_EQ(back.dirs[i].rel, r.index.dirs[i].rel);
    EXPECT_EQ(back.dirs[i].ino, r.index.dirs[i].ino);
    EXPECT_EQ(back.dirs[i].ctime_ns, r.index.dirs[i].ctime_ns);
    EXPECT_EQ(back.dirs[i].racy, r.index.dirs[i].racy);
    EXPECT_EQ(back.dirs[i].names, r.index.dirs[i].names) << back.dirs[i].rel;
  }
  EXPECT_EQ(indexed_nested_git(file, project_), (std::vector<std::string>{"d/.git"}));
}

TEST_F(DirIndexTest, ADamagedIndexIsBuiltAgainNotTakenInPart) {  // PROT-6
  const std::string file = dir_.path + "/index";
  ASSERT_TRUE(save_dir_index(file, project_, index_).ok());
  std::string text;
  {
    std::ifstream in(file, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto b = Beneath::open(project_);
  ASSERT_TRUE(b.ok());
  // Cut inside the last record (a partial record would leave a folder out of the baseline,
  // and its watched files would be taken for new ones), cut by its final NUL only, then with
  // the inode number of folder `a` spoiled.
  const size_t a_ino = text.find(std::string("\0a\0", 3)) + 3;
  ASSERT_TRUE(std::isdigit(static_cast<unsigned char>(text[a_ino]))) << a_ino;
  for (const std::string& damaged :
       {text.substr(0, text.size() - 4), text.substr(0, text.size() - 1),
        std::string(text).replace(a_ino, 1, "x")}) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << damaged;
    bool built = false;
    DirIndex idx = load_dir_index(*b, file, &built);
    EXPECT_TRUE(built);
    EXPECT_EQ(rels(idx), (std::vector<std::string>{"", "a", "a/b", "a/b/c", "d"}));
  }
}

}  // namespace
}  // namespace cordon
