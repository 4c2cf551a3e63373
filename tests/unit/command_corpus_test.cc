// CMD-1..CMD-6 measured: a corpus of command lines agents and developers run, each labelled
// with the class the policy must give it (tests/data/command_corpus.tsv). A false allow (a
// line the policy calls less strict than its label) fails the test; the false-ask rate (a
// read-only line that asks) is reported, and must stay under 5%.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "commands/classify.h"
#include "fake_expander.h"
#include "test_paths.h"

namespace cordon {
namespace {

struct Line {
  CommandClass want;
  std::string command, reason;
};

std::vector<Line> corpus() {
  std::ifstream in(test_golden_dir() + "/../data/command_corpus.tsv");
  std::vector<Line> out;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    size_t a = text.find('\t'), b = text.find('\t', a + 1);
    if (a == std::string::npos || b == std::string::npos) {
      ADD_FAILURE() << "malformed corpus line: " << text;
      continue;
    }
    std::string cls = text.substr(0, a);
    CommandClass want = cls == "read-only"        ? CommandClass::kReadOnly
                        : cls == "needs-approval" ? CommandClass::kNeedsApproval
                                                  : CommandClass::kDenied;
    EXPECT_TRUE(cls == "read-only" || cls == "needs-approval" || cls == "denied") << text;
    out.push_back({want, text.substr(a + 1, b - a - 1), text.substr(b + 1)});
  }
  return out;
}

// CMD-2..CMD-5: no false allows; false asks under 5% of the read-only lines.
TEST(CommandCorpus, NoFalseAllowsAndFewFalseAsks) {
  std::vector<Line> lines = corpus();
  ASSERT_GE(lines.size(), 500u);
  auto cl = CommandClassifier::create(CommandsConfig{});
  ASSERT_TRUE(cl.ok());
  // The classifier sees the filesystem through an expander, as the server and `cordon classify`
  // do: a project with the usual files (tests/unit/fake_expander.h).
  const testing::FakeExpander fs = testing::FakeExpander::project();
  ClassifyContext ctx;
  ctx.cwd = "/home/u/proj";
  ctx.home = "/home/u";
  ctx.expander = &fs;
  int read_only = 0, false_asks = 0, false_allows = 0;
  for (const auto& l : lines) {
    Classification c = cl->classify_line(l.command, ctx);
    if (l.want == CommandClass::kReadOnly) ++read_only;
    if (static_cast<int>(c.cls) < static_cast<int>(l.want)) {
      ++false_allows;
      ADD_FAILURE() << "false allow: `" << l.command << "` is " << to_string(c.cls) << ", labelled "
                    << to_string(l.want) << " (" << l.reason << ")";
    } else if (l.want == CommandClass::kReadOnly && c.cls != l.want) {
      ++false_asks;
      std::printf("false ask: `%s` (%s)\n", l.command.c_str(), c.reason.c_str());
    }
  }
  const double rate = read_only ? 100.0 * false_asks / read_only : 0.0;
  std::printf(
      "command corpus: %zu lines, %d false allows, %d of %d read-only lines ask "
      "(false-ask rate %.1f%%)\n",
      lines.size(), false_allows, false_asks, read_only, rate);
  EXPECT_EQ(false_allows, 0);
  EXPECT_LT(rate, 5.0);
}

}  // namespace
}  // namespace cordon
