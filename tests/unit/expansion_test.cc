// CMD-4: the deny rules judge what the shell would act on. Globs are expanded against a fake
// filesystem (the classifier calls an Expander; the host's reads folders), braces are expanded
// by the classifier itself, links are followed through the resolver.
#include "commands/expansion.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "commands/classify.h"
#include "core/paths.h"
#include "core/strings.h"

namespace cordon {
namespace {

// A fake filesystem: the folders it has, the entries of each, and those that cannot be read.
class FakeExpander : public Expander {
 public:
  std::map<std::string, std::vector<std::string>> dirs = {
      {"/", {"bin", "etc", "home", "usr", "var", "tmp"}},
      {"/home", {"u", "v"}},
      {"/home/u", {"proj", ".ssh", "notes.txt"}},
      {"/home/u/proj", {"build", "homelink", "many", "src", "a.o", "b.o"}},
      {"/home/u/proj/build", {"x.o", "y.o"}},
      {"/dev", {"sda", "sda1", "null"}},
  };
  std::vector<std::string> unreadable = {"/home/u/proj/locked"};
  // "/home/u/proj/many" holds more entries than any limit.

  Matches glob(const std::string& pattern, size_t limit) const override {
    Matches m;
    const bool dirs_only = pattern.size() > 1 && pattern.back() == '/';
    std::string p = dirs_only ? pattern.substr(0, pattern.size() - 1) : pattern;
    std::vector<std::string> now = {"/"};
    size_t start = 1;
    while (start <= p.size()) {
      size_t slash = p.find('/', start);
      std::string comp =
          p.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      std::vector<std::string> next;
      for (const auto& d : now) {
        if (d == "/home/u/proj/many" ||
            std::find(unreadable.begin(), unreadable.end(), d) != unreadable.end()) {
          m.complete = false;
          return m;
        }
        auto it = dirs.find(d);
        if (it == dirs.end()) continue;
        for (const auto& e : it->second)
          if (glob_match(comp, e)) next.push_back(path_join(d, e));
      }
      now = next;
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    for (auto& n : now) {
      if (dirs_only && !dirs.count(n) && n != "/home/u/proj/homelink") continue;
      if (m.paths.size() >= limit) {
        m.complete = false;
        break;
      }
      m.paths.push_back(dirs_only ? n + "/" : n);
    }
    return m;
  }
};

std::string fake_resolve(const std::string& p) {
  if (path_within(p, "/home/u/proj/homelink"))
    return "/home/u" + p.substr(std::string("/home/u/proj/homelink").size());
  if (p == "/home/u/proj/disk") return "/dev/sda";
  return p;
}

class Expansion : public ::testing::Test {
 protected:
  Classification classify(const std::string& line, bool with_expander = true) {
    auto cl = CommandClassifier::create(CommandsConfig{});
    EXPECT_TRUE(cl.ok());
    ClassifyContext c;
    c.cwd = "/home/u/proj";
    c.home = "/home/u";
    c.resolve = fake_resolve;
    if (with_expander) c.expander = &fs_;
    return cl->classify_line(line, c);
  }
  FakeExpander fs_;
};

// CMD-4: globs, braces and links that name the home folder or a system folder are denied.
TEST_F(Expansion, GlobsBracesAndLinksToProtectedRootsAreDenied) {
  for (const char* line :
       {"rm -rf /home/?", "rm -rf /e?c", "rm -rf /{etc,usr}", "rm -rf /*/", "rm -rf homelink/",
        "rm -rf homelink/*", "rm -rf /ho?e/u", "chmod -R 777 /e*c", "chown -R x homelink",
        "rm -rf ../../{u,v}", "rm -rf /{bin,nothing}/", "find /ho?e/u -delete",
        "cd / && rm -rf e?c"}) {
    Classification c = classify(line);
    EXPECT_EQ(c.cls, CommandClass::kDenied) << line << ": " << c.reason;
  }
}

// CMD-4: an expansion that cannot be done in full is denied for a destructive command when
// it could reach a protected root; ordinary deletions stay needs-approval.
TEST_F(Expansion, UnexpandableTargetsOfDestructiveCommandsAreDenied) {
  EXPECT_EQ(classify("rm -rf /{1..100000}").cls, CommandClass::kDenied) << "too many words";
  fs_.unreadable.push_back("/");
  EXPECT_EQ(classify("rm -rf /h*").cls, CommandClass::kDenied) << "/ cannot be read";
  // Deep patterns cannot name a protected root whatever they match.
  EXPECT_EQ(classify("rm -rf many/*").cls, CommandClass::kNeedsApproval);
  EXPECT_EQ(classify("rm -rf build/*.o").cls, CommandClass::kNeedsApproval);
  EXPECT_EQ(classify("rm -f *.o").cls, CommandClass::kNeedsApproval);
  EXPECT_EQ(classify("rm -rf build").cls, CommandClass::kNeedsApproval);
  EXPECT_EQ(classify("echo /e?c").cls, CommandClass::kReadOnly) << "not a deletion";
}

// CMD-4: redirection targets are expanded too.
TEST_F(Expansion, RedirectionsToDevicesThroughGlobsBracesAndLinksAreDenied) {
  for (const char* line : {"cat x > /dev/sd?", "cat x > /dev/sd{a,b}", "echo x > disk",
                           "cd /dev && cat x > sd?", "echo x >> /dev/[s]da"}) {
    Classification c = classify(line);
    EXPECT_EQ(c.cls, CommandClass::kDenied) << line << ": " << c.reason;
  }
  // Without an expander a glob into /dev is denied all the same: it cannot be checked.
  EXPECT_EQ(classify("cat x > /dev/sd?", false).cls, CommandClass::kDenied);
  EXPECT_EQ(classify("cat x > out.txt").cls, CommandClass::kNeedsApproval);
  EXPECT_EQ(classify("cat x > /dev/null").cls, CommandClass::kReadOnly);
}

// CMD-4: brace expansion as bash does it.
TEST(BraceExpand, ListsSequencesNestingAndLimits) {
  using V = std::vector<std::string>;
  EXPECT_EQ(brace_expand("/{etc,usr}", 10), (V{"/etc", "/usr"}));
  EXPECT_EQ(brace_expand("a{1..3}b", 10), (V{"a1b", "a2b", "a3b"}));
  EXPECT_EQ(brace_expand("{a..c}", 10), (V{"a", "b", "c"}));
  EXPECT_EQ(brace_expand("{3..1}", 10), (V{"3", "2", "1"}));
  EXPECT_EQ(brace_expand("{1..9..4}", 10), (V{"1", "5", "9"}));
  EXPECT_EQ(brace_expand("x{a,{b,c}}y", 10), (V{"xay", "xby", "xcy"}));
  EXPECT_EQ(brace_expand("{a}", 10), (V{"{a}"})) << "no comma: literal";
  EXPECT_EQ(brace_expand("{a,b", 10), (V{"{a,b"})) << "unbalanced: literal";
  EXPECT_EQ(brace_expand("{,x}", 10), (V{"", "x"}));
  EXPECT_FALSE(brace_expand("{1..100000}", 100).has_value());
  EXPECT_FALSE(brace_expand("{a,b}{a,b}{a,b}{a,b}", 10).has_value());
}

}  // namespace
}  // namespace cordon
