// The file tools' text operations: line slices (read_file), UTF-8 repair, exact replacement
// (edit_file).
#include "file_rules/text_rules.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

TEST(TextRules, CountLines) {
  EXPECT_EQ(count_lines(""), 0u);
  EXPECT_EQ(count_lines("a"), 1u);
  EXPECT_EQ(count_lines("a\n"), 1u);
  EXPECT_EQ(count_lines("a\nb"), 2u);
  EXPECT_EQ(count_lines("\n\n"), 2u);
}

TEST(TextRules, SliceLines) {
  const std::string t = "one\ntwo\nthree\nfour";
  LineSlice s = slice_lines(t, 1, std::nullopt);
  EXPECT_EQ(s.text, t);
  EXPECT_EQ(s.line_count, 4u);
  EXPECT_EQ(s.total_lines, 4u);
  EXPECT_FALSE(s.more);
  s = slice_lines(t, 2, 2);
  EXPECT_EQ(s.text, "two\nthree\n");
  EXPECT_EQ(s.first_line, 2u);
  EXPECT_EQ(s.line_count, 2u);
  EXPECT_TRUE(s.more);
  s = slice_lines(t, 4, 10);
  EXPECT_EQ(s.text, "four");
  EXPECT_FALSE(s.more);
  s = slice_lines(t, 0, 1);  // 0 counts as 1
  EXPECT_EQ(s.text, "one\n");
  EXPECT_EQ(s.first_line, 1u);
  s = slice_lines(t, 9, std::nullopt);
  EXPECT_EQ(s.text, "");
  EXPECT_EQ(s.line_count, 0u);
  EXPECT_EQ(s.total_lines, 4u);
  s = slice_lines(t, 2, 0);
  EXPECT_EQ(s.text, "");
  EXPECT_TRUE(s.more);
  s = slice_lines("", 1, std::nullopt);
  EXPECT_EQ(s.text, "");
  EXPECT_EQ(s.total_lines, 0u);
}

TEST(TextRules, BinaryIsANulByte) {
  EXPECT_FALSE(looks_binary("plain text\n"));
  EXPECT_TRUE(looks_binary(std::string("ELF\0\1", 5)));
}

TEST(TextRules, ValidUtf8IsLeftAlone) {
  std::string s = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";
  std::string before = s;
  EXPECT_EQ(make_valid_utf8(s), 0u);
  EXPECT_EQ(s, before);
}

TEST(TextRules, InvalidUtf8IsReplaced) {
  std::string s = "a\xFFz";
  EXPECT_EQ(make_valid_utf8(s), 1u);
  EXPECT_EQ(s, "a\xEF\xBF\xBDz");
  s = "latin1 caf\xE9!";  // a Latin-1 e-acute
  EXPECT_EQ(make_valid_utf8(s), 1u);
  EXPECT_EQ(s, "latin1 caf\xEF\xBF\xBD!");
  s = "\xC0\xAF";  // overlong "/"
  EXPECT_EQ(make_valid_utf8(s), 1u);
  s = "\xED\xA0\x80";  // a surrogate
  EXPECT_EQ(make_valid_utf8(s), 1u);
  s = "\xF4\x90\x80\x80";  // past U+10FFFF
  EXPECT_EQ(make_valid_utf8(s), 1u);
  s = "cut \xE2\x82";  // a sequence cut at the end
  EXPECT_EQ(make_valid_utf8(s), 1u);
  EXPECT_EQ(s, "cut \xEF\xBF\xBD");
}

TEST(TextRules, Utf8PrefixDoesNotCutASequence) {
  std::string s = "ab\xE2\x82\xAC";  // "ab€"
  EXPECT_EQ(utf8_prefix(s, 10), s);
  EXPECT_EQ(utf8_prefix(s, 5), s);
  EXPECT_EQ(utf8_prefix(s, 4), "ab");
  EXPECT_EQ(utf8_prefix(s, 3), "ab");
  EXPECT_EQ(utf8_prefix(s, 2), "ab");
  EXPECT_EQ(utf8_prefix(s, 1), "a");
}

TEST(TextRules, CountOccurrencesDoesNotOverlap) {
  EXPECT_EQ(count_occurrences("aaaa", "aa"), 2u);
  EXPECT_EQ(count_occurrences("abc", "x"), 0u);
  EXPECT_EQ(count_occurrences("abc", ""), 0u);
}

TEST(TextRules, ReplaceExactlyOnce) {
  auto r = replace_exact("int x = 1;\nint y = 2;\n", "x = 1", "x = 10", false, "a.cc");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->text, "int x = 10;\nint y = 2;\n");
  EXPECT_EQ(r->count, 1u);
}

TEST(TextRules, ReplaceWithNoMatchSaysSo) {
  auto r = replace_exact("int x = 1;\n", "x = 2", "x = 3", false, "a.cc");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorKind::kInvalid);
  EXPECT_NE(r.error().message.find("old_string was not found in a.cc"), std::string::npos);
}

TEST(TextRules, ReplaceWithTwoMatchesNeedsReplaceAll) {
  auto r = replace_exact("f();\nf();\n", "f()", "g()", false, "a.cc");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("occurs 2 times in a.cc"), std::string::npos);
  EXPECT_NE(r.error().message.find("replace_all"), std::string::npos);
  r = replace_exact("f();\nf();\n", "f()", "g()", true, "a.cc");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->text, "g();\ng();\n");
  EXPECT_EQ(r->count, 2u);
}

TEST(TextRules, ReplaceAllDoesNotRescanTheReplacement) {
  auto r = replace_exact("a a", "a", "aa", true, "x");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->text, "aa aa");
  EXPECT_EQ(r->count, 2u);
}

TEST(TextRules, ReplaceRefusesEmptyAndNoOpEdits) {
  EXPECT_FALSE(replace_exact("abc", "", "x", false, "a").ok());
  auto r = replace_exact("abc", "b", "b", false, "a");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("the same"), std::string::npos);
}

TEST(TextRules, ReplaceIsByteExact) {
  // CRLF files keep their line ends; a LF-only old_string does not match across "\r\n".
  EXPECT_FALSE(replace_exact("a\r\nb\r\n", "a\nb", "x", false, "f").ok());
  auto r = replace_exact("a\r\nb\r\n", "a\r\nb", "x", false, "f");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->text, "x\r\n");
}

}  // namespace
}  // namespace cordon
