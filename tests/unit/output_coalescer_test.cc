// `exec` with "stream": true (issue 30 item 4, SRV-1): the output gathered between two
// `exec/output` notifications, taken in order as pieces of one stream of at most 64 KiB that
// never end within a UTF-8 character.
#include "jsonrpc/output_coalescer.h"

#include <gtest/gtest.h>

#include <string>

namespace cordon::rpc {
namespace {

TEST(OutputCoalescer, JoinsWhatComesOfOneStreamAndKeepsTheOrder) {  // issue 30
  OutputCoalescer c;
  EXPECT_TRUE(c.empty());
  EXPECT_FALSE(c.take(false));
  c.add(1, "hel");
  c.add(1, "lo\n");
  c.add(2, "oops\n");
  c.add(1, "again\n");
  auto a = c.take(false);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->stream, 1);
  EXPECT_EQ(a->data, "hello\n");
  auto b = c.take(false);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->stream, 2);
  EXPECT_EQ(b->data, "oops\n");
  auto d = c.take(false);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->data, "again\n");
  EXPECT_TRUE(c.empty());
}

TEST(OutputCoalescer, APieceHoldsAtMostTheLimit) {  // issue 30: each notification <= 64 KiB
  OutputCoalescer c(4);
  c.add(1, "abcdefghij");
  std::string all;
  while (auto p = c.take(false)) {
    EXPECT_LE(p->data.size(), 4u);
    all += p->data;
  }
  EXPECT_EQ(all, "abcdefghij");
  OutputCoalescer big;
  big.add(1, std::string(200 << 10, 'x'));
  auto p = big.take(false);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->data.size(), size_t{64} << 10);
}

TEST(OutputCoalescer, NeverCutsACharacterInTwo) {  // issue 30: each piece is valid text
  OutputCoalescer c(5);
  c.add(1, "ab\xc3\xa9\xe2\x82\xac");  // "abé€": the limit falls inside "€"
  auto p = c.take(false);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->data, "ab\xc3\xa9");
  EXPECT_EQ(c.take(false)->data, "\xe2\x82\xac");
  // Half a character at the end waits for the rest, unless nothing more will come.
  c.add(1, "x\xe2\x82");
  EXPECT_EQ(c.take(false)->data, "x");
  EXPECT_FALSE(c.take(false));
  c.add(1, "\xac");
  EXPECT_EQ(c.take(false)->data, "\xe2\x82\xac");
  c.add(1, "\xe2\x82");
  EXPECT_FALSE(c.take(false));
  EXPECT_EQ(c.take(true)->data, "\xe2\x82");
  EXPECT_TRUE(c.empty());
}

}  // namespace
}  // namespace cordon::rpc
