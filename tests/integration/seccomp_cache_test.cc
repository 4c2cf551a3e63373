// PROC-7, PERF-1: the compiled seccomp program is kept per process and in the cache folder, by
// a key of what it depends on (the rules, not why each is there). What a user relies on: the
// program used is always the one compiled from the rules given; two rule sets never share a
// file; a rule that only says why differently shares it.
#include <gtest/gtest.h>
#include <sys/types.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "harness.h"
#include "launch/linux/launcher.h"
#include "plan/seccomp_rules.h"
#include "render/linux/seccomp_bpf.h"

namespace cordon {
namespace {

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(SeccompCache, EachRuleSetGetsItsOwnProgramAndAWhyAloneSharesIt) {
  it::TempDir dir("cordon-seccomp-cache");
  const std::vector<SeccompRule> base = default_seccomp_rules(false);
  std::vector<SeccompRule> other = base;
  other.push_back(SeccompRule{"mknod", EPERM, {}, "a rule more"});
  std::vector<SeccompRule> arg = base;
  arg.push_back(SeccompRule{"socket", EPERM, {{0, SeccompOp::kMaskedEq, 0xff, 7}}, "x"});
  std::vector<SeccompRule> arg2 = arg;
  arg2.back().args[0].value = 8;  // the same rule but one value
  std::vector<SeccompRule> why = base;
  why.front().why = "said otherwise";

  const std::vector<const std::vector<SeccompRule>*> in_turn{&base, &other, &arg, &arg2, &base};
  for (const auto* rules : in_turn) {
    auto got = cached_filter(*rules, dir.path);
    ASSERT_TRUE(got.ok()) << got.error().message;
    auto want = compile_seccomp(*rules);
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(*got, *want);  // the program of exactly these rules, from memory or the folder
  }
  EXPECT_EQ(files_in(dir.path), 4u);
  ASSERT_TRUE(cached_filter(why, dir.path).ok());
  EXPECT_EQ(files_in(dir.path), 4u);  // why each rule is there is not part of the program
}

}  // namespace
}  // namespace cordon
