// A background job's output log (issue 30, core/output_log.h): one offset over both streams,
// nothing lost or repeated between reads, and each stream's oldest bytes dropped and counted.
#include "core/output_log.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

TEST(OutputLog, ReadsFromAnOffsetGetWhatCameAfterIt) {  // issue 30
  OutputLog log(100);
  log.add(1, "a\n");
  log.add(2, "oops\n");
  log.add(1, "b\n");
  auto s = log.since(0);
  EXPECT_EQ(s.out, "a\nb\n");
  EXPECT_EQ(s.err, "oops\n");
  EXPECT_EQ(s.offset, 9u);
  EXPECT_EQ(s.dropped, 0u);
  log.add(1, "c\n");
  auto t = log.since(s.offset);
  EXPECT_EQ(t.out, "c\n");
  EXPECT_EQ(t.err, "");
  EXPECT_EQ(t.offset, 11u);
  EXPECT_EQ(log.since(4).out, "b\nc\n");  // mid-piece: "oops\n" from its 3rd byte
  EXPECT_EQ(log.since(4).err, "ps\n");
  EXPECT_EQ(log.since(1000).offset, 11u);  // past the end: the end
}

TEST(OutputLog, EachStreamKeepsItsLastBytesAndCountsTheDropped) {  // issue 30
  OutputLog log(10);
  log.add(2, "E");
  log.add(1, "0123456789");
  log.add(1, "abcde");
  auto s = log.since(0);
  EXPECT_EQ(s.out, "56789abcde");
  EXPECT_EQ(s.err, "E");  // the other stream keeps its own
  EXPECT_EQ(s.dropped, 5u);
  EXPECT_EQ(s.offset, 16u);
  EXPECT_EQ(log.since(3).dropped, 3u);
  EXPECT_EQ(log.since(3).out, "56789abcde");
}

}  // namespace
}  // namespace cordon
