// SES-2, PERF-1: the leftover record a command writes before it starts keeps, for each entry
// of its snapshot, only what differs from the defaults, and reads back as it was written;
// records that spell every field out (as older cordons wrote them) read the same.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "harness.h"
#include "session/session_store.h"

namespace cordon {
namespace {

using nlohmann::json;

class LeftoverRecordTest : public ::testing::Test {
 protected:
  SessionStore store() const {
    Folders f;
    f.state = dir_.path + "/state";
    f.cache = dir_.path + "/cache";
    return SessionStore(f);
  }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static LeftoverRecord record() {
    LeftoverRecord r;
    r.session = "00000000000abcde";
    r.project = "/p";
    r.effect = 3;
    r.command = {"make", "test"};
    ProtectedSnapshot s;
    s.project = "/p";
    SnapshotEntry absent;
    absent.rel = ".envrc";
    SnapshotEntry full;
    full.rel = ".vscode";
    full.kind = Kind::kDir;
    full.link_target = "t";
    full.dev = 2049;
    full.ino = 77;
    full.tracked = true;
    full.file_by_file = true;
    full.children = {ChildFact{"tasks.json", Kind::kFile, ""}, ChildFact{"l", Kind::kSymlink, "x"}};
    full.tracked_children = {"tasks.json"};
    full.via_link = "sub";
    full.via_link_target = "elsewhere";
    s.entries = {absent, full};
    r.snapshot = s;
    return r;
  }
  it::TempDir dir_{"cordon-record"};
};

TEST_F(LeftoverRecordTest, AbsentEntriesAreWrittenShortAndEveryFieldReadsBack) {
  const LeftoverRecord r = record();
  ASSERT_TRUE(store().write_leftover(r).ok());
  const std::string path = store().leftover_path(r.session, r.effect);
  json j = json::parse(slurp(path));
  const json& entries = j.at("snapshot").at("entries");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0], (json{{"rel", ".envrc"}, {"kind", 0}}));  // nothing but the defaults
  EXPECT_EQ(entries[1].size(), 11u);                              // every field set
  auto back = read_leftover(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->snapshot);
  ASSERT_EQ(back->snapshot->entries.size(), 2u);
  EXPECT_EQ(back->snapshot->entries, r.snapshot->entries);
}

TEST_F(LeftoverRecordTest, RecordsWithEveryFieldSpelledOutReadTheSame) {
  const LeftoverRecord r = record();
  ASSERT_TRUE(store().write_leftover(r).ok());
  const std::string path = store().leftover_path(r.session, r.effect);
  json j = json::parse(slurp(path));
  json& absent = j["snapshot"]["entries"][0];
  const json defaults{{"link", ""},
                      {"dev", 0},
                      {"ino", 0},
                      {"tracked", false},
                      {"file_by_file", false},
                      {"children", json::array()},
                      {"tracked_children", json::array()},
                      {"via_link", ""},
                      {"via_link_target", ""}};
  for (const auto& [k, v] : defaults.items()) absent[k] = v;
  std::ofstream(path) << j.dump();
  auto back = read_leftover(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->snapshot);
  EXPECT_EQ(back->snapshot->entries, r.snapshot->entries);
}

}  // namespace
}  // namespace cordon
