#include <gtest/gtest.h>

#include "core/paths.h"
#include "core/strings.h"

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
  EXPECT_EQ(expand_home("~/.ssh", "/home/u"), "/home/u/.ssh");
  EXPECT_EQ(tilde_path("/home/u/.ssh", "/home/u"), "~/.ssh");
}

TEST(Strings, ShellQuote) {
  EXPECT_EQ(shell_quote("abc"), "abc");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

}  // namespace
}  // namespace cordon
