// GIT-8, PROT-6: what may not be planted below the project root, judged from the directory
// index (rows of the table, new names, submodule checkouts, git configs that run programs).
#include "plan/planted_rules.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

TEST(PlantedNames, EachRowNamesTheToolThatReadsIt) {  // GIT-8, PROT-6
  for (const char* n : {".git", ".envrc", "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md",
                        "AGENTS.override.md", "GEMINI.md", ".cursor"}) {
    const PlantedName* row = planted_name(n);
    ASSERT_NE(row, nullptr) << n;
    EXPECT_NE(std::string(row->why), "") << n;
  }
  EXPECT_EQ(planted_name("README.md"), nullptr);
  EXPECT_EQ(planted_name("claude.md"), nullptr);  // the tools read these exact names
}

Watched w(const char* name, const char* print = "") { return Watched{name, print}; }

TEST(PlantedNames, NewNamesInChangedFoldersAreFound) {  // GIT-8, PROT-6
  std::vector<DirRecord> before = {{"", 1, 1, false, {w(".git", "d1/-/-")}},
                                   {"src", 2, 1, false, {}},
                                   {"packages/app", 3, 1, false, {w("AGENTS.md")}}};
  std::vector<DirChange> changes = {
      {"src", false, {{w("CLAUDE.md"), Kind::kFile}}},
      {"packages/app", false, {{w("AGENTS.md"), Kind::kFile}, {w(".envrc"), Kind::kFile}}},
      {"lib/x", true, {{w(".git", "d9/-/-"), Kind::kDir}}},
      {"", false, {{w(".git", "d1/-/-"), Kind::kDir}, {w("CLAUDE.md"), Kind::kFile}}}};
  auto found = new_plants(before, changes);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].rel, "lib/x/.git");
  EXPECT_EQ(found[0].kind, Kind::kDir);
  EXPECT_FALSE(found[0].changed);
  EXPECT_EQ(found[1].rel, "packages/app/.envrc");  // AGENTS.md was there before
  EXPECT_EQ(found[2].rel, "src/CLAUDE.md");
  // The root is the protected list's (PROT-6) and the git facts' business.
}

// Issue 30, PROT-7: when another command (a background job) was in flight at the start, the
// root's new watched names are judged too, never the project's own `.git`.
TEST(PlantedNames, WithAnotherCommandInFlightTheRootIsJudgedToo) {  // PROT-7, GIT-8
  std::vector<DirRecord> before = {{"", 1, 1, false, {w("AGENTS.md")}}};
  std::vector<DirChange> changes = {{"",
                                     false,
                                     {{w(".git", "d1/-/-"), Kind::kDir},
                                      {w("AGENTS.md"), Kind::kFile},
                                      {w(".envrc"), Kind::kFile}}}};
  EXPECT_TRUE(new_plants(before, changes).empty());
  auto found = new_plants(before, changes, true);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rel, ".envrc");  // AGENTS.md was there before
}

TEST(PlantedNames, AFolderReplacedMakesEverythingInItNew) {  // GIT-8
  std::vector<DirRecord> before = {{"lib", 2, 1, false, {w(".git", "f5.1.1")}}};
  std::vector<DirChange> changes = {{"lib", true, {{w(".git", "f5.1.1"), Kind::kFile}}}};
  auto found = new_plants(before, changes);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rel, "lib/.git");
}

TEST(PlantedNames, AnExistingGitWithAnotherPrintIsJudgedAgain) {  // GIT-8, GIT-2
  // A submodule's `gitdir:` file rewritten; a nested repository's config changed.
  std::vector<DirRecord> before = {{"lib/sub", 2, 1, false, {w(".git", "f5.1.1")}},
                                   {"vendor/x", 3, 1, false, {w(".git", "d7/8.1.1/9.1.1")}},
                                   {"docs", 4, 1, false, {w("AGENTS.md")}}};
  std::vector<DirChange> changes = {
      {"lib/sub", false, {{w(".git", "f5.2.2"), Kind::kFile}}},
      {"vendor/x", false, {{w(".git", "d7/8.3.3/9.1.1"), Kind::kDir}}},
      {"docs", false, {{w("AGENTS.md"), Kind::kFile}}}};
  auto found = new_plants(before, changes);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].rel, "lib/sub/.git");
  EXPECT_TRUE(found[0].changed);
  EXPECT_EQ(found[1].rel, "vendor/x/.git");
  EXPECT_TRUE(found[1].changed);
}

}  // namespace
}  // namespace cordon
