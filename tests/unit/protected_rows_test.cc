// PROT-1, PROT-6: each row of the protected list, planned at the root and judged below it
// (a test per entry).
#include <gtest/gtest.h>

#include <set>

#include "core/strings.h"
#include "fake_facts.h"
#include "plan/planner.h"
#include "plan/planted_rules.h"
#include "plan/protected_list.h"

namespace cordon {
namespace {

using testing::FakeWorld;
using testing::file_info;

Request cmd() {
  Request r;
  r.argv = {"true"};
  return r;
}

const MountOp* find_dest(const Plan& p, const std::string& dest) {
  for (const auto& m : p.mounts)
    if (m.dest == dest) return &m;
  return nullptr;
}

struct Parsed {
  std::string rel;
  bool folder, anywhere;
};

Parsed parse(const ProtectedRow& r) {
  std::string e = r.entry;
  bool anywhere = starts_with(e, "**/");
  if (anywhere) e = e.substr(3);
  bool folder = ends_with(e, "/");
  while (ends_with(e, "/")) e.pop_back();
  return {e, folder, anywhere};
}

class ProtectedRowTest : public ::testing::TestWithParam<ProtectedRow> {};

// PROT-1, PROT-2: at the root, the entry is protected, and an untracked one is read-only.
TEST_P(ProtectedRowTest, IsReadOnlyAtTheRoot) {
  const ProtectedRow& row = GetParam();
  Parsed e = parse(row);
  EXPECT_GT(std::string(row.read_by).size(), 10u) << row.entry << ": say what reads it";
  auto entries = protected_entries(Policy{});
  if (e.anywhere) {  // FILE-6 only: the file tools ask, the sandbox leaves it writable
    EXPECT_TRUE(is_protected_path(entries, "sub/dir/" + e.rel)) << row.entry;
    return;
  }
  EXPECT_TRUE(is_protected_path(entries, e.rel)) << row.entry;
  if (e.folder) {
    EXPECT_TRUE(is_protected_path(entries, e.rel + "/x")) << row.entry;
  }
  FakeWorld w;
  ProtectedFact f;
  f.rel = e.rel;
  f.folder = e.folder;
  f.why = "default list";
  f.info = file_info(w.project + "/" + e.rel, e.folder ? Kind::kDir : Kind::kFile);
  w.facts.protected_paths.push_back(f);
  Plan p = make_plan(w.policy, w.facts, cmd());
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  const MountOp* m = find_dest(p, w.project + "/" + e.rel);
  ASSERT_NE(m, nullptr) << row.entry;
  EXPECT_EQ(m->kind, MountKind::kRoBind) << row.entry;
}

// PROT-6: below the root, a new one is found where the tools read it there, and only there.
TEST_P(ProtectedRowTest, BelowTheRootIsWatchedWhereToolsReadIt) {
  const ProtectedRow& row = GetParam();
  Parsed e = parse(row);
  std::string rel = "pkg/app/" + e.rel;
  bool exact = false;
  const ProtectedRow* found = planted_protected_row(rel, &exact);
  if (!row.below_root || e.anywhere) {
    EXPECT_EQ(found, nullptr) << row.entry;
    return;
  }
  ASSERT_NE(found, nullptr) << row.entry;
  EXPECT_TRUE(exact);
  EXPECT_EQ(std::string(found->entry), row.entry);
  EXPECT_EQ(planted_protected_row(e.rel), nullptr) << "the root is PROT-1's own";
  EXPECT_EQ(planted_protected_row(".claude/" + e.rel), nullptr) << "inside a root entry";
  EXPECT_EQ(planted_protected_row("node_modules/p/" + e.rel), nullptr);
  if (e.folder) {
    EXPECT_NE(planted_protected_row(rel + "/x", &exact), nullptr);
    EXPECT_FALSE(exact);
  }
  // The directory index records it, and a command that creates it has it found.
  std::string dir = path_parent("/" + rel).substr(1), name = path_base("/" + rel);
  EXPECT_TRUE(watched_entry(dir, name)) << rel;
  std::vector<DirChange> changes = {
      {dir, true, {{Watched{name, ""}, e.folder ? Kind::kDir : Kind::kFile}}}};
  auto plants = new_plants({}, changes);
  ASSERT_EQ(plants.size(), 1u) << rel;
  EXPECT_EQ(plants[0].rel, rel);
}

std::string row_name(const ::testing::TestParamInfo<ProtectedRow>& info) {
  std::string n;
  for (char c : std::string(info.param.entry))
    n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(PROT1, ProtectedRowTest, ::testing::ValuesIn(protected_rows()), row_name);

TEST(ProtectedRows, AreUnique) {  // PROT-1
  std::set<std::string> seen;
  for (const auto& r : protected_rows()) EXPECT_TRUE(seen.insert(r.entry).second) << r.entry;
}

Watched w(const char* name) { return Watched{name, ""}; }

// PROT-6: in a folder that was there, a new entry inside an existing one is found alone; the
// user's own entries stay; a fresh one is found whole, nothing inside it apart.
TEST(ProtectedRows, InsideAnExistingEntryEachNewOneIsFound) {  // PROT-6
  std::vector<DirRecord> before = {{"sub/.vscode", 2, 1, false, {w("settings.json")}},
                                   {"sub", 3, 1, false, {w(".vscode")}}};
  std::vector<DirChange> changes = {
      {"sub/.vscode", false, {{w("settings.json"), Kind::kFile}, {w("tasks.json"), Kind::kFile}}},
      {"pkg", false, {{w(".vscode"), Kind::kDir}}},
      {"pkg/.vscode", true, {{w("launch.json"), Kind::kFile}}},
      {".claude/worktrees/wt", true, {{w(".claude"), Kind::kDir}}},
      {".claude/worktrees/wt/.claude", true, {{w("settings.json"), Kind::kFile}}}};
  auto found = new_plants(before, changes);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].rel, ".claude/worktrees/wt/.claude");
  EXPECT_EQ(found[1].rel, "pkg/.vscode");
  EXPECT_EQ(found[2].rel, "sub/.vscode/tasks.json");
}

TEST(ProtectedRows, WorktreesInANestedClaudeFolderAreKept) {  // PROT-1, PROT-6
  EXPECT_EQ(planted_protected_row("sub/.claude/worktrees/wt/src/a.c"), nullptr);
  EXPECT_FALSE(watched_entry("sub/.claude", "worktrees"));
  std::vector<DirChange> changes = {{"sub", false, {{w(".claude"), Kind::kDir}}},
                                    {"sub/.claude", true, {}},
                                    {"sub/.claude/worktrees", true, {}}};
  EXPECT_TRUE(new_plants({{"sub", 3, 1, false, {}}}, changes).empty());
  // With anything else in it, the new .claude is moved aside.
  changes[1].names = {{w("settings.json"), Kind::kFile}};
  EXPECT_EQ(new_plants({{"sub", 3, 1, false, {}}}, changes).size(), 1u);
}

TEST(ProtectedRows, TheIndexRecordsOnlyWhatItMust) {  // PROT-6, PERF-3
  EXPECT_TRUE(watched_entry("src", ".github"));       // on the way to .github/instructions/
  EXPECT_TRUE(watched_entry("src/.github", "instructions"));
  EXPECT_TRUE(watched_entry("src/.github", "copilot-instructions.md"));
  EXPECT_FALSE(watched_entry("src/.github", "workflows"));  // CI reads the root's only
  EXPECT_FALSE(watched_entry("src", "main.c"));
  EXPECT_FALSE(watched_entry("", ".vscode"));  // the root: PROT-1's own
  EXPECT_TRUE(watched_entry("", ".git"));      // planted names as before
  EXPECT_FALSE(watched_entry("node_modules/x/.vscode", "settings.json"));
}

TEST(ProtectedRows, WhatIsMovedOnceIsNotMovedAgain) {  // PROT-6, PROT-7
  // Cordon's own move, in a watched folder.
  EXPECT_EQ(planted_protected_row("sub/.vscode/tasks.json.cordon-quarantined-0123456789abcdef"),
            nullptr);
  // Inside a PROT-1 entry at the root: PROT-1's aftercare judges it, once.
  EXPECT_EQ(planted_protected_row(".claude/.mcp.json"), nullptr);
  EXPECT_EQ(planted_protected_row(".config/mise.toml"), nullptr);
  EXPECT_EQ(planted_protected_row(".vscode/sub/.claude"), nullptr);
  // But inside .claude/worktrees/ (not protected at the root) it is watched.
  EXPECT_NE(planted_protected_row(".claude/worktrees/wt/.mcp.json"), nullptr);
}

}  // namespace
}  // namespace cordon
