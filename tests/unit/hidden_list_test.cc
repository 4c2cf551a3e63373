// FS-4: every row of the hidden list, and every file seen as a copy without its credentials,
// planned one by one (a test per entry).
#include "plan/hidden_list.h"

#include <gtest/gtest.h>

#include <set>

#include "core/strings.h"
#include "fake_facts.h"
#include "plan/config_copy_rules.h"
#include "plan/planner.h"

namespace cordon {
namespace {

using testing::FakeWorld;
using testing::file_info;

using testing::cmd;

const MountOp* find_dest(const Plan& p, const std::string& dest) {
  for (const auto& m : p.mounts)
    if (m.dest == dest) return &m;
  return nullptr;
}

class HiddenRow : public ::testing::TestWithParam<HiddenHomeRow> {};

// FS-4: the entry, where it exists, reads as an empty file or folder.
TEST_P(HiddenRow, IsHiddenWhereItExists) {
  const HiddenHomeRow& row = GetParam();
  FakeWorld w;
  std::string rel = row.rel;
  std::string path = "/home/u/" + rel;
  // A glob entry hides each match.
  if (size_t star = rel.find('*'); star != std::string::npos)
    path = "/home/u/" + rel.substr(0, star) + ".toml";
  w.exists_hidden("~/" + rel, file_info(path, row.folder ? Kind::kDir : Kind::kFile));
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  const MountOp* m = find_dest(p, path);
  ASSERT_NE(m, nullptr) << rel;
  EXPECT_EQ(m->kind, MountKind::kRoBind);
  EXPECT_EQ(m->src, row.folder ? w.facts.empty_dir : w.facts.empty_file) << rel;
  EXPECT_GT(std::string(row.holds).size(), 10u) << rel << ": say what holds it";
}

// PERF-1: an entry that does not exist costs no mount.
TEST_P(HiddenRow, CostsNothingWhereItIsMissing) {
  FakeWorld w;
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  EXPECT_EQ(find_dest(p, std::string("/home/u/") + GetParam().rel), nullptr);
}

std::string row_name(const ::testing::TestParamInfo<HiddenHomeRow>& info) {
  std::string n;
  for (char c : std::string(info.param.rel))
    n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(FS4, HiddenRow, ::testing::ValuesIn(hidden_home_rows()), row_name);

TEST(HiddenList, RowsAreUniqueAndTheListFollowsThem) {  // FS-4
  std::set<std::string> seen;
  for (const auto& r : hidden_home_rows()) EXPECT_TRUE(seen.insert(r.rel).second) << r.rel;
  EXPECT_EQ(default_hidden_home_entries().size(), hidden_home_rows().size());
  EXPECT_TRUE(hidden_home_entry_is_folder(".config/github-copilot"));
  EXPECT_FALSE(hidden_home_entry_is_folder(".pgpass"));
  // A file seen as a sanitized copy is not also hidden whole.
  for (const auto& r : sanitized_home_rows()) EXPECT_FALSE(seen.count(r.rel)) << r.rel;
}

class SanitizedRow : public ::testing::TestWithParam<SanitizedHomeRow> {};

// A line that holds a credential in this row's own syntax.
std::string secret_line(ConfigFormat f) {
  const std::string tok = "ghp_" + std::string("A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
  switch (f) {
    case ConfigFormat::kShell:
      return "export SOME_NAME=" + tok;
    case ConfigFormat::kIni:
      return "index-url = https://me:" + tok + "@pypi.example.com/simple";
    case ConfigFormat::kYaml:
      return "npmAuthToken: " + tok;
    case ConfigFormat::kToml:
      return "token = \"" + tok + "\"";
  }
  return "";
}

// FS-4: each sanitized file, holding a credential, is bound as a copy over its real path.
TEST_P(SanitizedRow, IsSeenAsACopyWithoutTheCredential) {
  const SanitizedHomeRow& row = GetParam();
  SanitizedText s = sanitize_config_text("# mine\n" + secret_line(row.format) + "\n", row.format);
  ASSERT_FALSE(s.removed.empty()) << row.rel;
  EXPECT_EQ(s.text.find("ghp_"), std::string::npos) << s.text;
  EXPECT_EQ(s.text.rfind("# mine\n", 0), 0u);
  FakeWorld w;
  std::string path = std::string("/home/u/") + row.rel;
  w.facts.home_config_copies.push_back({path, std::string("~/") + row.rel, "/c/copy", s.removed});
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  const MountOp* m = find_dest(p, path);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->src, "/c/copy");
  EXPECT_EQ(m->kind, MountKind::kRoBind);
  EXPECT_GT(std::string(row.holds).size(), 10u) << row.rel << ": say what reads it";
}

std::string sanitized_name(const ::testing::TestParamInfo<SanitizedHomeRow>& info) {
  std::string n;
  for (char c : std::string(info.param.rel))
    n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(FS4, SanitizedRow, ::testing::ValuesIn(sanitized_home_rows()),
                         sanitized_name);

TEST(HiddenList, ACopyWithoutAFileToBindHidesTheFileWhole) {  // FS-4
  FakeWorld w;
  w.facts.home_config_copies.push_back({"/home/u/.bashrc", "~/.bashrc", "", {"the whole file"}});
  Plan p = make_plan(w.policy, w.facts, cmd({"true"}));
  const MountOp* m = find_dest(p, "/home/u/.bashrc");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->src, w.facts.empty_file);
}

}  // namespace
}  // namespace cordon
