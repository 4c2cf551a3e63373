// CMD-1, CMD-2: common read-only commands are read-only (a policy that nags pushes people to
// approve-all), and their writing variants still ask.
#include <gtest/gtest.h>

#include "commands/classify.h"
#include "commands/script_checks.h"
#include "fake_expander.h"

namespace cordon {
namespace {

Classification classify(const std::string& line) {
  auto cl = CommandClassifier::create(CommandsConfig{});
  EXPECT_TRUE(cl.ok());
  static const testing::FakeExpander fs = testing::FakeExpander::project();
  ClassifyContext c;
  c.cwd = "/home/u/proj";
  c.home = "/home/u";
  c.expander = &fs;
  return cl->classify_line(line, c);
}

// CMD-2: each of these is read-only.
TEST(DoNotNag, ReadOnlyCommandsAreReadOnly) {
  for (const char* line : {"git config user.name",
                           "git config --get user.email",
                           "git config get user.name",
                           "git log --author=\"$(git config user.email)\" --oneline",
                           "awk 'NR>1' f",
                           "awk '$3 > 100 {print}' f",
                           "awk 'length($0) > 80' f",
                           "awk '{ if ($2 > 3) print $1 }' f",
                           "awk '$1 ~ /x|y/ {print}' f",
                           "awk 'a || b' f",
                           "for f in *.txt; do wc -l \"$f\"; done",
                           "for f in a.txt b.txt; do head -3 $f; done",
                           "npm ls",
                           "npm view react version",
                           "rustc --print sysroot",
                           "rustc --print cfg",
                           "ip addr",
                           "ip -br a",
                           "ip route show",
                           "echo $(( 3 + 4 ))",
                           "yarn --version",
                           "pnpm --version"}) {
    Classification c = classify(line);
    EXPECT_EQ(c.cls, CommandClass::kReadOnly) << line << ": " << c.reason;
  }
}

// CMD-2, CMD-3: the variants that write, run or reach other files still ask.
TEST(DoNotNag, WritingVariantsStillAsk) {
  for (const char* line : {"git config user.name x",
                           "git config --unset user.name",
                           "git config set user.name x",
                           "git config --global core.pager 'less'",
                           "awk '{print > \"out\"}' f",
                           "awk '{print $1 > $2}' f",
                           "awk '{print | \"sh\"}' f",
                           "awk '{system(\"id\")}' f",
                           "awk '{\"date\" | getline d}' f",
                           "awk '@load \"x\"'",
                           "ip addr add 10.0.0.1/24 dev x",
                           "ip link set x down",
                           "ip -batch cmds",
                           "ip netns exec n sh",
                           "rustc --print sysroot x.rs",
                           "for f in a; do f=~/.ssh/id_rsa; cat \"$f\"; done",
                           "for f in $(cat list); do cat \"$f\"; done",
                           "for f in 'a b'; do cat $f; done",
                           "echo $(( x[$(id)] ))",
                           "git log --author=$(cat ~/.ssh/id_rsa)"}) {
    Classification c = classify(line);
    EXPECT_NE(c.cls, CommandClass::kReadOnly) << line << ": " << c.reason;
  }
}

// CMD-2: the awk reader tells a comparison from a redirection.
TEST(DoNotNag, AwkComparisonIsNotARedirection) {
  EXPECT_TRUE(awk_program_is_safe("$3 > 100 {print}"));
  EXPECT_TRUE(awk_program_is_safe("{print ($1 > 2)}"));
  EXPECT_TRUE(awk_program_is_safe("{print \"a > b\"}"));
  EXPECT_TRUE(awk_program_is_safe("/a>b/ {print}"));
  EXPECT_FALSE(awk_program_is_safe("{print > \"f\"}"));
  EXPECT_FALSE(awk_program_is_safe("{printf(\"%s\", $1) >> \"f\"}"));
  EXPECT_FALSE(awk_program_is_safe("{print \"x\" | \"cat\"}"));
  EXPECT_FALSE(awk_program_is_safe("BEGIN { getline < \"/etc/shadow\" }"));
  EXPECT_FALSE(awk_program_is_safe("{print \"unterminated}"));
}

}  // namespace
}  // namespace cordon
