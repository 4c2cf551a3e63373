// CMD-2, CMD-3: long options as the real parsers read them. GNU getopt_long, argp, argparse and
// git's parse-options take any unambiguous prefix of a long option, so every prefix of every
// option that writes, runs a program or reads a list of files must stop a read-only match.
#include "commands/long_options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "commands/classify.h"
#include "commands/write_options.h"

namespace cordon {
namespace {

// The words before the option under test, so that the program's read-only entry matches.
std::vector<std::string> lead_for(std::string_view program) {
  if (program == "tar") return {"-tf", "a.tar"};
  if (program.substr(0, 4) == "git ") return {std::string(program.substr(4))};
  if (program == "git") return {"log"};
  if (program == "rustc") return {"--print"};
  return {};
}

std::string program_of(std::string_view table_name) {
  return std::string(table_name.substr(0, table_name.find(' ')));
}

class EveryPrefix : public ::testing::TestWithParam<std::string> {};

// CMD-2: for each dangerous option of the command, each prefix `--o`, `--ou`, ... `--output`
// (alone and with `=value`) is not read-only, unless the prefix is itself the full name of a
// read-only option (an exact name wins, as in getopt).
TEST_P(EveryPrefix, OfEveryDangerousOptionIsNotReadOnly) {
  const OptionTable* t = option_table(GetParam());
  ASSERT_NE(t, nullptr);
  int walked = 0;
  for (const auto& o : t->options) {
    if (o.kind == OptionKind::kSafe) continue;
    for (size_t n = 1; n <= o.name.size(); ++n) {
      std::string prefix(o.name.substr(0, n));
      OptionHit exact = find_option(*t, "--" + prefix);
      if (exact.match == OptionMatch::kOne && exact.option->name == prefix &&
          exact.option->kind == OptionKind::kSafe)
        continue;
      for (std::string word : {"--" + prefix, "--" + prefix + "=./x"}) {
        std::vector<std::string> args = lead_for(GetParam());
        args.push_back(word);
        auto w = write_option(program_of(GetParam()), args);
        EXPECT_TRUE(w.has_value()) << GetParam() << " " << word;
        ++walked;
      }
    }
  }
  EXPECT_GT(walked, 0) << "a table with nothing dangerous in it";
}

std::vector<std::string> table_names() {
  std::vector<std::string> out;
  for (const auto& t : option_tables()) out.emplace_back(t.program);
  return out;
}

INSTANTIATE_TEST_SUITE_P(LongOptions, EveryPrefix, ::testing::ValuesIn(table_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n;
                           for (char c : i.param) n += (std::isalnum(c) ? c : '_');
                           return n;
                         });

// CMD-2: the exact name wins over a longer option it is a prefix of (`--checkpoint`), and an
// ambiguous prefix is never read-only.
TEST(LongOptions, ExactNameWinsAndAmbiguousPrefixIsNotReadOnly) {
  const OptionTable& tar = *option_table("tar");
  OptionHit h = find_option(tar, "--checkpoint");
  ASSERT_EQ(h.match, OptionMatch::kOne);
  EXPECT_EQ(h.option->name, "checkpoint");
  EXPECT_EQ(find_option(tar, "--to-").match, OptionMatch::kAmbiguous);
  EXPECT_FALSE(write_option("tar", {"-tf", "a.tar", "--checkpoint=10"}).has_value());
  EXPECT_TRUE(write_option("tar", {"-tf", "a.tar", "--to-"}).has_value());
  EXPECT_FALSE(write_option("tar", {"-tf", "a.tar", "--to-stdout"}).has_value());
  // A complete table: an option the program does not have is not known to only read.
  EXPECT_TRUE(write_option("sort", {"--frobnicate"}).has_value());
  EXPECT_FALSE(write_option("sort", {"--rev", "f"}).has_value()) << "--reverse";
}

ClassifyContext ctx() {
  ClassifyContext c;
  c.cwd = "/home/u/proj";
  c.home = "/home/u";
  return c;
}

struct Case {
  const char* line;
  CommandClass cls;
};

// CMD-2: the attack pass's abbreviations, through the whole classifier.
TEST(LongOptions, AbbreviationsFromTheAttackPassNeedApproval) {
  auto cl = CommandClassifier::create(CommandsConfig{});
  ASSERT_TRUE(cl.ok());
  for (const char* line :
       {"sort --o=f x", "sort --compress=./prog x", "tar -tf a.tar --checkpoint-act=exec=./prog",
        "tar -tf a.tar --use-comp=./prog", "tar -tf a.tar --to-comm=./prog",
        "git grep --open=./prog foo", "git branch --edit-desc", "git branch --set-upstream-t=x",
        "git branch --unset-up", "date --se=2020-01-01", "yq --inpl '.a=1' f.yaml",
        "tar -tf a.tar --index-file=out", "git log --outp=x", "git diff --ext-d",
        "git config --ad x.y z", "sdiff --diff-prog=./p a b", "dmesg --cl"}) {
    Classification c = cl->classify_line(line, ctx());
    EXPECT_EQ(c.cls, CommandClass::kNeedsApproval) << line << ": " << c.reason;
  }
}

// CMD-3, CMD-5: options that read the names of the files to read from a file or stdin.
TEST(LongOptions, FileListsNeedApproval) {
  auto cl = CommandClassifier::create(CommandsConfig{});
  ASSERT_TRUE(cl.ok());
  for (const char* line :
       {"sort --files0-from=- ", "sort --files0=list", "wc --files0-from=list",
        "du --files0-from=list", "tar -tf a.tar -T list", "tar -tf a.tar --files-from=list",
        "tar -tf a.tar --files-f list", "xargs -a list cat", "xargs --arg-file=list cat",
        "file -f names", "file --files-from names", "find . -files0-from list", "nm @args",
        "objdump -d @more", "strings @list", "7z l @list", "yq --from-file=prog.yq f.yaml"}) {
    Classification c = cl->classify_line(line, ctx());
    EXPECT_EQ(c.cls, CommandClass::kNeedsApproval) << line << ": " << c.reason;
  }
  Classification c = cl->classify_line("sort --files0-from=-", ctx());
  EXPECT_EQ(c.rule, "write-option");
  EXPECT_NE(c.reason.find("names of the files"), std::string::npos) << c.reason;
}

}  // namespace
}  // namespace cordon
