// The search tool's pure half: patterns (RE2), heavy folders, line matching.
#include "file_rules/search_rules.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

std::shared_ptr<const LineMatcher> must(std::string_view p, bool fixed = false,
                                        bool icase = false) {
  auto m = LineMatcher::compile(p, fixed, icase);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

TEST(SearchRules, RegexSyntaxOfRipgrep) {
  auto m = must(R"(\bfoo_\d+\b)");
  EXPECT_TRUE(m->matches("call foo_12(x)"));
  EXPECT_FALSE(m->matches("call foo_x(x)"));
  EXPECT_FALSE(m->matches("callfoo_12"));
  EXPECT_TRUE(must("(?i)todo")->matches("// TODO: later"));
  EXPECT_TRUE(must("^#include")->matches("#include <x>"));
  EXPECT_FALSE(must("^#include")->matches("  #include <x>"));
}

TEST(SearchRules, FixedStringMatchesItself) {
  auto m = must("a.b(", true);
  EXPECT_TRUE(m->matches("x = a.b(1)"));
  EXPECT_FALSE(m->matches("x = axb(1)"));
}

TEST(SearchRules, IgnoreCase) {
  EXPECT_TRUE(must("Error", false, true)->matches("an ERROR here"));
  EXPECT_FALSE(must("Error", false, false)->matches("an ERROR here"));
  EXPECT_TRUE(must("ERR.R", true, true)->matches("err.r"));
}

TEST(SearchRules, BadPatternsAreInvalid) {
  auto m = LineMatcher::compile("foo(", false, false);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, ErrorKind::kInvalid);
  EXPECT_NE(m.error().message.find("does not compile"), std::string::npos);
  EXPECT_FALSE(LineMatcher::compile("", false, false).ok());
  // Backreferences are not RE2: said clearly rather than matched slowly.
  EXPECT_FALSE(LineMatcher::compile(R"((a)\1)", false, false).ok());
}

TEST(SearchRules, PathologicalPatternsAndLinesStayLinear) {
  // std::regex crashed on this line and never finished the second pattern.
  std::string line(1000000, 'a');
  EXPECT_FALSE(must("(a|b)*c")->matches(line));
  EXPECT_FALSE(must("(a*)*c")->matches(std::string(30, 'a')));
  EXPECT_TRUE(must("a+$")->matches(line));
}

TEST(SearchRules, MatchLinesNumbersFromOneAndDropsLineEnds) {
  auto m = must("needle");
  std::vector<SearchMatch> out;
  size_t n = match_lines(*m, "hay\nneedle one\r\nhay\nlast needle", "src/a.txt", 10, out);
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(out[0].path, "src/a.txt");
  EXPECT_EQ(out[0].line, 2u);
  EXPECT_EQ(out[0].text, "needle one");
  EXPECT_EQ(out[1].line, 4u);
  EXPECT_EQ(out[1].text, "last needle");
  // `$` sees the line without its "\r".
  out.clear();
  EXPECT_EQ(match_lines(*must("one$"), "needle one\r\n", "f", 10, out), 1u);
}

// The one-pass skipping must find exactly the lines that match one by one.
TEST(SearchRules, SkippingAgreesWithLineByLine) {
  const std::vector<std::string> texts = {
      "alpha\nbeta\r\ngamma \r\n\n  delta\nfoo bar\nbar foo\nend",
      std::string(5000, '\n') + "needle\n" + std::string(3000, 'x') + "\nneedle at end",
      "a\nb\na b\r\nab\n",
      "",
      "no newline at the end",
  };
  const std::vector<std::pair<std::string, bool>> patterns = {
      {"foo", false},   {"^foo", false},   {"foo$", false},      {"a\\sb", false},
      {"a\\s", false},  {"\\s$", false},   {"(?s)a.b", false},   {"a\\nb", false},
      {"^$", false},    {"^", false},      {"\\Aa", false},      {"b\\z", false},
      {"[^x]+", false}, {"needle", false}, {"\\bfoo\\b", false}, {"a b", true},
      {"end", true},    {"\r", true},      {"x{1000}", false},
  };
  for (const auto& t : texts) {
    for (const auto& [pat, fixed] : patterns) {
      auto m = must(pat, fixed);
      ASSERT_TRUE(m) << pat;
      std::vector<SearchMatch> got;
      match_lines(*m, t, "f", 100000, got);
      // Line by line, the plain way.
      std::vector<size_t> want;
      size_t n = 0, pos = 0;
      while (pos < t.size()) {
        size_t nl = t.find('\n', pos);
        size_t end = nl == std::string::npos ? t.size() : nl;
        std::string_view line(t.data() + pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        ++n;
        if (m->matches(line)) want.push_back(n);
        pos = end + 1;
      }
      std::vector<size_t> got_lines;
      for (const auto& g : got) got_lines.push_back(g.line);
      EXPECT_EQ(got_lines, want) << "pattern " << pat;
    }
  }
}

TEST(SearchRules, MatchLinesStopsAtTheCap) {
  auto m = must("x");
  std::vector<SearchMatch> out;
  out.push_back({"earlier", 1, "x"});
  EXPECT_EQ(match_lines(*m, "x\nx\nx\nx\n", "f", 3, out), 2u);
  EXPECT_EQ(out.size(), 3u);
}

TEST(SearchRules, MatchedTextIsClippedAndValidUtf8) {
  auto m = must("needle");
  std::vector<SearchMatch> out;
  std::string long_line = "needle" + std::string(2000, 'y');
  match_lines(*m, long_line + "\nneedle \xFF\n", "f", 10, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].text.size(), kMaxMatchText);
  EXPECT_EQ(out[1].text, "needle \xEF\xBF\xBD");
}

TEST(SearchRules, HeavyFolders) {
  for (const char* n : {".git", "node_modules", "__pycache__", ".venv", "site-packages", ".tox"})
    EXPECT_TRUE(is_heavy_folder(n)) << n;
  for (const char* n : {"src", "build", "lib", "git", "modules"})
    EXPECT_FALSE(is_heavy_folder(n)) << n;
}

}  // namespace
}  // namespace cordon
