// JOB-3 (issue 30): the terminal stage's words, made by the launcher and read back by the stage
// inside the sandbox, and the sizes a request may ask for.
#include "render/tty_stage_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cordon {
namespace {

std::optional<TtyStageArgs> parse(std::vector<std::string> words) {
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  argv.push_back(nullptr);
  return parse_tty_stage_args(static_cast<int>(words.size()), argv.data());
}

// JOB-3
TEST(TtyStageArgs, PrefixReadsBack) {
  std::vector<std::string> words = tty_stage_prefix("/proc/self/fd/9", 9, 8, {100, 30});
  EXPECT_EQ(words, (std::vector<std::string>{"/proc/self/fd/9", "__tty-stage", "8", "9", "100",
                                             "30", "--"}));
  words.push_back("stty");
  words.push_back("size");
  auto a = parse(words);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->sock, 8);
  EXPECT_EQ(a->exe, 9);
  EXPECT_EQ(a->size, (TtySize{100, 30}));
  EXPECT_EQ(a->command_at, 7);
  EXPECT_EQ(words[static_cast<size_t>(a->command_at)], "stty");
}

// JOB-3
TEST(TtyStageArgs, WrongWordsAreRefused) {
  EXPECT_FALSE(parse({"cordon", "__tty-stage", "8", "9", "80", "24", "--"}));       // no command
  EXPECT_FALSE(parse({"cordon", "__tty-stage", "8", "9", "80", "24", "x", "sh"}));  // no --
  EXPECT_FALSE(parse({"cordon", "__net-stage", "8", "9", "80", "24", "--", "sh"}));
  EXPECT_FALSE(parse({"cordon", "__tty-stage", "8x", "9", "80", "24", "--", "sh"}));
  EXPECT_FALSE(parse({"cordon", "__tty-stage", "8", "9", "0", "24", "--", "sh"}));
  EXPECT_FALSE(parse({"cordon", "__tty-stage", "8", "9", "80", "-1", "--", "sh"}));
  EXPECT_FALSE(parse({"cordon", "__tty-stage", "8", "9", "80", "10001", "--", "sh"}));
  EXPECT_FALSE(parse({"cordon", "__tty-stage", "8", "8", "80", "24", "--", "sh"}));
  EXPECT_FALSE(parse({"cordon", "__tty-stage", "", "9", "80", "24", "--", "sh"}));
  EXPECT_FALSE(parse({"cordon", "__tty-stage", "8", "9", "80", "24", "--", ""}));
  EXPECT_TRUE(parse({"cordon", "__tty-stage", "8", "9", "1", "10000", "--", "sh"}));
}

// JOB-3
TEST(TtyStageArgs, SizeProblems) {
  EXPECT_EQ(tty_size_problem(80, 24), "");
  EXPECT_EQ(tty_size_problem(1, 10000), "");
  EXPECT_NE(tty_size_problem(0, 24), "");
  EXPECT_NE(tty_size_problem(80, 10001), "");
  EXPECT_NE(tty_size_problem(-5, 24).find("from 1 to 10000"), std::string::npos);
}

}  // namespace
}  // namespace cordon
