#include "core/strings.h"

#include <gtest/gtest.h>

#include "core/paths.h"

namespace cordon {
namespace {

TEST(Strings, GlobMatch) {
  EXPECT_TRUE(glob_match("*TOKEN*", "GITHUB_TOKEN"));
  EXPECT_TRUE(glob_match("AWS_*", "AWS_PROFILE"));
  EXPECT_FALSE(glob_match("*_KEY", "KEYBOARD"));
  EXPECT_TRUE(glob_match("credentials*", "credentials.toml"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "ac"));
}

TEST(Paths, NormalizeAndWithin) {
  EXPECT_EQ(normalize_path("/a//b/./c/../d"), "/a/b/d");
  EXPECT_EQ(normalize_path("/.."), "/");
  EXPECT_TRUE(path_within("/a/b", "/a"));
  EXPECT_TRUE(path_within("/a", "/a"));
  EXPECT_FALSE(path_within("/ab", "/a"));
  EXPECT_TRUE(path_within("/x", "/"));
  EXPECT_EQ(path_relative("/a/b/c", "/a"), "b/c");
}

// PERF-1: a path already normal is returned as it is; every other spelling is still rewritten.
TEST(Paths, NormalizeKeepsNormalPathsAndRewritesTheRest) {
  for (const char* same : {"/", ".", "a", "/a", "/a/b.c", "a/b", "/.ssh", "/a/..b", "/a/b.."})
    EXPECT_EQ(normalize_path(same), same);
  const std::pair<const char*, const char*> rewritten[] = {
      {"a/", "a"},     {"/a/", "/a"},  {"//a", "/a"},     {"/a//b", "/a/b"}, {"./a", "a"},
      {"a/.", "a"},    {"/a/./b", "/a/b"}, {"/a/../b", "/b"}, {"..", ".."},   {"../a", "../a"},
      {"a/..", "."},   {"/..", "/"},   {"//", "/"},        {"./", "."}};
  for (const auto& [in, out] : rewritten) EXPECT_EQ(normalize_path(in), out) << in;
}

// GIT-2: path_relative of a path not below the root (shorter, beside it, a shared prefix)
// returns the path itself; it never slices past the end (std::out_of_range aborted cordon).
TEST(Paths, RelativeOfAPathOutsideTheRootIsThePath) {
  EXPECT_EQ(path_relative("/r/.git", "/r/.claude/worktrees/agent-1"), "/r/.git");
  EXPECT_EQ(path_relative("/ab", "/a"), "/ab");
  EXPECT_EQ(path_relative("/a", "/a/b"), "/a");
  EXPECT_EQ(path_relative("", "/a"), "");
  EXPECT_EQ(path_relative("/a", "/a"), "");
  EXPECT_EQ(path_relative("/a/b", "/"), "a/b");
  EXPECT_EQ(tilde_path("/home/user2/x", "/home/user"), "/home/user2/x");
  EXPECT_EQ(expand_home("~/.ssh", "/home/u"), "/home/u/.ssh");
  EXPECT_EQ(tilde_path("/home/u/.ssh", "/home/u"), "~/.ssh");
}

TEST(Strings, ShellQuote) {
  EXPECT_EQ(shell_quote("abc"), "abc");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_join({"git", "commit", "-m", "a b"}), "git commit -m 'a b'");
  EXPECT_EQ(shell_join({}), "");
}

}  // namespace
TEST(Strings, PrintableEscapesControlsAndKeepsText) {  // issue 13 item 12
  EXPECT_EQ(printable("plain/path name.json"), "plain/path name.json");
  EXPECT_EQ(printable("a\nb"), "a\\x0ab");
  EXPECT_EQ(printable("x\x1b[2K\x1b]0;t\a.json"), "x\\x1b[2K\\x1b]0;t\\x07.json");
  EXPECT_EQ(printable("\r\tz\x7f"), "\\x0d\\x09z\\x7f");
  EXPECT_EQ(printable(std::string("n\0ul", 4)), "n\\x00ul");
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");  // UTF-8 stays
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\xc2\\x9b2J");  // C1 CSI
  EXPECT_EQ(printable("\x9b"
                      "2J"),
            "\\x9b2J");  // a lone byte
  EXPECT_EQ(printable("a\xe2\x80\xae"
                      "b"),
            "a\\xe2\\x80\\xaeb");                  // right-to-left override
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");  // overlong
  EXPECT_EQ(printable("back\\slash"), "back\\slash");
  std::string twice = printable("x\ny\x1b");
  EXPECT_EQ(printable(twice), twice);  // idempotent
  EXPECT_EQ(twice.find('\n'), std::string::npos);
}

}  // namespace cordon
