// AUD-1: the audit log's writer in-process (session/audit_log.h): a one-shot session's log is
// written by its one process alone (no lock, nothing read back), with the same chain, head per
// event and rotation as a shared one's; a log that exists already is taken over as shared.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "audit/audit_chain.h"
#include "harness.h"
#include "session/audit_log.h"

namespace cordon {
namespace {

using it::TempDir;

VerifyReport verified(const std::string& dir, const std::string& session) {
  auto files = read_audit_files(dir, session);
  EXPECT_TRUE(files.ok());
  return verify_chain(*files, read_audit_head(dir, session));
}

TEST(AuditWriter, ASoleWritersChainHeadAndRotationAreASharedOnes) {  // AUD-1
  TempDir t{"cordon-audit"};
  const std::string dir = t.path + "/audit";
  AuditLog log(dir, "s1", /*rotate_bytes=*/600);
  log.set_sole_writer();
  for (int i = 0; i < 8; ++i)
    ASSERT_TRUE(log.append(nlohmann::json{{"event", "resume"}, {"i", i}}).ok());
  VerifyReport r = verified(dir, "s1");
  EXPECT_TRUE(r.ok()) << r.problem;
  EXPECT_EQ(r.lines, 8u);
  EXPECT_EQ(r.head.seq, 8u);  // the head is written per event
  auto files = read_audit_files(dir, "s1");
  EXPECT_GT(files->size(), 1u);  // rotated, the chain going on
  // Its head is its line in one-shot.heads, not a file of its own.
  struct stat st;
  EXPECT_NE(stat((dir + "/s1.head").c_str(), &st), 0);
  EXPECT_EQ(stat((dir + "/" + kOneShotHeads).c_str(), &st), 0);
  // Another process of a named session goes on with the same log, shared.
  AuditLog other(dir, "s1", 600);
  ASSERT_TRUE(other.append(nlohmann::json{{"event", "resume"}, {"i", 8}}).ok());
  r = verified(dir, "s1");
  EXPECT_TRUE(r.ok()) << r.problem;
  EXPECT_EQ(r.lines, 9u);
}

TEST(AuditWriter, OneShotSessionsKeepALineEachInTheHeads) {  // AUD-1
  TempDir t{"cordon-audit"};
  const std::string dir = t.path + "/audit";
  AuditLog a(dir, "aaaa"), b(dir, "bbbb");
  a.set_sole_writer();
  b.set_sole_writer();
  for (int i = 0; i < 3; ++i) {  // interleaved, as runs side by side write
    ASSERT_TRUE(a.append(nlohmann::json{{"event", "resume"}, {"i", i}}).ok());
    if (i < 2) {
      ASSERT_TRUE(b.append(nlohmann::json{{"event", "resume"}, {"i", i}}).ok());
    }
  }
  EXPECT_EQ(read_audit_head(dir, "aaaa")->seq, 3u);
  EXPECT_EQ(read_audit_head(dir, "bbbb")->seq, 2u);
  EXPECT_FALSE(read_audit_head(dir, "cccc"));
  EXPECT_TRUE(verified(dir, "aaaa").ok());
  EXPECT_TRUE(verified(dir, "bbbb").ok());
  // A cut tail shows against that line, as against a .head.
  const std::string log = dir + "/aaaa.jsonl";
  auto files = read_audit_files(dir, "aaaa");
  std::string text = (*files)[0].text;
  text.erase(text.rfind('\n', text.size() - 2) + 1);
  FILE* f = fopen(log.c_str(), "w");
  fputs(text.c_str(), f);
  fclose(f);
  EXPECT_FALSE(verified(dir, "aaaa").ok());
  // Both are listed, with the sessions whose head is a file.
  AuditLog named(dir, "nnnn");
  ASSERT_TRUE(named.append(nlohmann::json{{"event", "resume"}}).ok());
  auto listed = audit_sessions(dir);
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, (std::vector<std::string>{"aaaa", "bbbb", "nnnn"}));
}

TEST(AuditWriter, ASoleWriterFindingALogTakesItOverShared) {  // AUD-1
  TempDir t{"cordon-audit"};
  const std::string dir = t.path + "/audit";
  AuditLog first(dir, "s2");
  ASSERT_TRUE(first.append(nlohmann::json{{"event", "resume"}, {"i", 0}}).ok());
  AuditLog log(dir, "s2");
  log.set_sole_writer();  // wrongly: the log was there (O_EXCL says so)
  ASSERT_TRUE(log.append(nlohmann::json{{"event", "resume"}, {"i", 1}}).ok());
  ASSERT_TRUE(first.append(nlohmann::json{{"event", "resume"}, {"i", 2}}).ok());
  VerifyReport r = verified(dir, "s2");
  EXPECT_TRUE(r.ok()) << r.problem;
  EXPECT_EQ(r.lines, 3u);
}

}  // namespace
}  // namespace cordon
