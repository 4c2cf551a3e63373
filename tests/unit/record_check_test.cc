// SES-1, SES-3: what cordon reads back from its state folder is checked field by field before
// resume acts on it.
#include "plan/record_check.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

ProtectedSnapshot good() {
  ProtectedSnapshot s;
  s.project = "/p";
  s.git_dir = "/p/.git";
  SnapshotEntry e;
  e.rel = ".vscode";
  e.kind = Kind::kDir;
  e.children = {{".vscode/tasks.json", Kind::kFile, ""}};
  e.tracked_children = {".vscode/settings.json"};
  s.entries.push_back(e);
  SnapshotEntry f;
  f.rel = ".envrc";
  s.entries.push_back(f);
  s.git_candidates = {{"/p/.git/hooks", true}};
  s.unreadable = {".vscode/x"};
  s.common_dir = "/p/.git";
  s.dir_index = "/c/index/p";
  s.identities = {IdentityEntry{"/p/.git", "config", Kind::kFile, 1, 2, "repository config"}};
  s.entries[0].via_link = "";
  return s;
}

SnapshotExpectations want() {
  return {"/p", protected_entries(Policy{}), "/p/.git", "/p/.git", "/c/index/p"};
}

TEST(RecordCheck, AGoodSnapshotFits) { EXPECT_EQ(snapshot_problem(good(), want()), ""); }

// SES-3: a record edited outside the sandbox is damaged, never acted on.
TEST(RecordCheck, EditedFieldsAreDamaged) {
  auto with = [](auto edit) {
    ProtectedSnapshot s = good();
    edit(s);
    return snapshot_problem(s, want());
  };
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.project = "/other"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.entries[1].rel = "../x"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.entries[1].rel = "/etc/passwd"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.entries[1].rel = "a.txt"; }), "")
      << "not on the protected list";
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.entries[1].rel = ".vscode/../a.txt"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.entries[1].rel = ""; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.entries[0].children[0].rel = "src/x"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.entries[0].children[0].rel = ".vscode/../../x"; }),
            "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.entries[0].tracked_children[0] = "/x"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.git_dir = "/home/u/other/.git"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.git_candidates[0].first = "rel/x"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.unreadable[0] = "../../etc"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.unreadable[0] = "/etc"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.common_dir = "/elsewhere/.git"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.dir_index = "/tmp/crafted"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.identities[0].root = "/home/u"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.identities[0].rel = "../../etc/passwd"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.identities[0].rel = "/etc/passwd"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.entries[1].via_link = "../x"; }), "");
  EXPECT_NE(with([](ProtectedSnapshot& s) { s.entries[1].via_link = "src"; }), "")
      << "not on the way to .envrc";
  EXPECT_EQ(with([](ProtectedSnapshot& s) {
              s.entries.push_back(SnapshotEntry{});
              s.entries.back().rel = ".github/workflows";
              s.entries.back().via_link = ".github";
            }),
            "")
      << "a link on the way is fine";
}

// LL-1: the bytes a resume would put back name a path beneath the project or its git folder.
TEST(RecordCheck, AGuardedPathIsBeneathTheProjectOrItsGitFolder) {  // LL-1, SES-3
  auto with = [](auto edit) {
    ProtectedSnapshot s = good();
    GuardedEntry g;
    g.root = "/p/.git";
    g.rel = "config";
    g.kind = Kind::kFile;
    g.mode = 0644;
    g.has_content = true;
    g.content = "[core]\n";
    g.size = g.content.size();
    s.guarded.push_back(g);
    edit(s.guarded.back());
    return snapshot_problem(s, want());
  };
  EXPECT_EQ(with([](GuardedEntry&) {}), "");
  EXPECT_NE(with([](GuardedEntry& g) { g.root = "/home/u"; }), "");
  EXPECT_NE(with([](GuardedEntry& g) { g.rel = "../../home/u/.bashrc"; }), "");
  EXPECT_NE(with([](GuardedEntry& g) { g.rel = "/etc/passwd"; }), "");
  EXPECT_NE(with([](GuardedEntry& g) { g.mode = 0104755; }), "");
  EXPECT_NE(with([](GuardedEntry& g) { g.size = 99; }), "");
}

TEST(RecordCheck, CleanRelativePaths) {
  EXPECT_TRUE(clean_relative_path(".github/workflows"));
  for (const char* bad : {"", "/a", "a/../b", "./a", "a//b", "a/", "..", "a/.."})
    EXPECT_FALSE(clean_relative_path(bad)) << bad;
  EXPECT_FALSE(clean_relative_path(std::string("a\0b", 3)));
}

// SES-1: a session id is 16 lowercase hex digits, wherever it is read.
TEST(RecordCheck, SessionIds) {
  EXPECT_TRUE(valid_session_id("0123456789abcdef"));
  for (const char* bad : {"", "s1", "0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0",
                          "../../../../etc/x", "0123456789abcdeg"})
    EXPECT_FALSE(valid_session_id(bad)) << bad;
}

}  // namespace
}  // namespace cordon
