// CMD-2, SEC-1: the read-only list as data (src/commands/data/*.txt). One test per table: its
// examples classify as written, every option it refuses asks in every spelling its parser takes
// (for an `abbrev` table, every prefix), a `%` option asks only where commands run unconfined,
// and an option that `needs` another asks without it. Then the format and the parsers.
#include "commands/program_tables.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "commands/classify.h"
#include "commands/program_args.h"
#include "commands/program_spec.h"
#include "core/strings.h"
#include "fake_expander.h"

namespace cordon {
namespace {

const CommandClassifier& classifier() {
  static const CommandClassifier c = std::move(CommandClassifier::create(CommandsConfig{})).value();
  return c;
}

Classification classify(const std::string& line, bool unconfined = false) {
  static const testing::FakeExpander fs = testing::FakeExpander::project();
  ClassifyContext ctx;
  ctx.cwd = "/home/u/proj";
  ctx.home = "/home/u";
  ctx.expander = &fs;
  ctx.unconfined = unconfined;
  return classifier().classify_line(line, ctx);
}

const char* want_name(Example::Want w) {
  return w == Example::Want::kReadOnly        ? "read-only"
         : w == Example::Want::kNeedsApproval ? "needs-approval"
                                              : "denied";
}

// The words that make a table's line reach its options: its name, and an option it requires.
std::string lead(const ProgramSpec& s) {
  std::string l = join(s.names[0], " ");
  if (!s.requires_any.empty()) l += " " + s.requires_any[0];
  return l;
}

// The word that gives option `name` of `o` its value, as its parser reads it.
std::string spelled(const ProgramSpec& s, const OptionSpec& o, const std::string& name) {
  if (name[0] == '~') return name.substr(1) + (o.arg == ArgKind::kNone ? "" : " ./x");
  if (o.arg == ArgKind::kNone) return name;
  const bool long_form = starts_with(name, "--") || s.parser != ParserStyle::kGnu;
  if (o.arg_optional) return long_form ? name + "=./x" : name + "./x";
  return long_form ? name + "=./x" : name + " ./x";
}

class Table : public ::testing::TestWithParam<size_t> {
 protected:
  const ProgramSpec& spec() const { return builtin_program_tables().specs()[GetParam()]; }
};

// CMD-2: each example classifies as the table says.
TEST_P(Table, ExamplesClassifyAsWritten) {
  const ProgramSpec& s = spec();
  bool asks = false;
  for (const auto& e : s.examples) {
    Classification c = classify(e.line);
    EXPECT_STREQ(to_string(c.cls), want_name(e.want))
        << "[" << s.display_name() << "] " << s.file << ":" << s.line << "\n  " << e.line
        << "\n  reason: " << c.reason;
    if (e.want != Example::Want::kReadOnly) asks = true;
  }
  bool refuses = !s.operands_why.empty() || !s.requires_any.empty();
  for (const auto& o : s.options) refuses = refuses || o.verdict == OptionVerdict::kRefused;
  if (refuses) {
    EXPECT_TRUE(asks) << "[" << s.display_name() << "] refuses something but has no `ask:` example";
  }
}

// CMD-2: each refused option asks, named as the reason's word, in each spelling: the short
// name, the long name, `--name=value`, and for an `abbrev` table each unambiguous prefix.
TEST_P(Table, RefusedOptionsAskInEverySpelling) {
  const ProgramSpec& s = spec();
  for (const auto& o : s.options) {
    if (o.verdict != OptionVerdict::kRefused) continue;
    for (const auto& n : o.names) {
      std::vector<std::string> forms{n};
      if (s.abbrev && starts_with(n, "--"))
        for (size_t k = 3; k < n.size(); ++k) {
          bool amb = false;
          const OptionSpec* hit = s.find(n.substr(0, k), &amb);
          if (hit && hit != &o) continue;  // an exact name of another option wins
          forms.push_back(n.substr(0, k));
        }
      for (const auto& f : forms) {
        std::string word = spelled(s, o, f);
        std::string line = lead(s) + " " + word;
        Classification c = classify(line);
        EXPECT_NE(c.cls, CommandClass::kReadOnly) << line << ": " << c.reason;
        std::string first = word.substr(0, word.find(' '));
        EXPECT_EQ(c.word, first) << line << ": " << c.reason;
      }
    }
  }
}

// CMD-3: an option that shows other processes' environments asks where commands run
// unconfined, and only there.
TEST_P(Table, SandboxOnlyOptionsAskWhenUnconfined) {
  const ProgramSpec& s = spec();
  for (const auto& o : s.options) {
    if (o.verdict != OptionVerdict::kSandboxOnly) continue;
    std::string line = lead(s) + " " + spelled(s, o, o.names[0]);
    EXPECT_EQ(classify(line, false).cls, CommandClass::kReadOnly) << line;
    Classification c = classify(line, true);
    EXPECT_EQ(c.cls, CommandClass::kNeedsApproval) << line;
    EXPECT_EQ(c.rule, "sensitive-path") << line;
  }
}

// CMD-2: an option that only reads together with another (`xz -d` with `-c`) asks alone.
TEST_P(Table, NeedsAskAlone) {
  const ProgramSpec& s = spec();
  for (const auto& o : s.options) {
    if (o.needs.empty()) continue;
    std::string alone = join(s.names[0], " ") + " " + o.names[0];
    EXPECT_NE(classify(alone).cls, CommandClass::kReadOnly) << alone;
    std::string with = alone + " " + o.needs[0];
    EXPECT_EQ(classify(with).cls, CommandClass::kReadOnly) << with << ": " << classify(with).reason;
  }
}

std::vector<size_t> all_tables() {
  std::vector<size_t> v;
  for (size_t i = 0; i < builtin_program_tables().specs().size(); ++i) v.push_back(i);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Data, Table, ::testing::ValuesIn(all_tables()),
                         [](const ::testing::TestParamInfo<size_t>& i) {
                           std::string n = builtin_program_tables().specs()[i.param].display_name();
                           std::string out;
                           for (char c : n)
                             out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return out + "_" + std::to_string(i.param);
                         });

// SEC-1: the data parses, every table says why it is there, and there are many of them.
// PERF-1: each table is parsed on its own when first needed, and reads as the whole file does.
TEST(ProgramTables, DataParsesAndEachTableSaysWhy) {
  ASSERT_EQ(builtin_program_tables_error(), "");
  const auto& t = builtin_program_tables();
  ASSERT_EQ(t.check(), "");
  EXPECT_GE(t.specs().size(), 150u);
  for (const auto& s : t.specs()) EXPECT_FALSE(s.why.empty()) << "[" << s.display_name() << "]";
}

// The format's mistakes are found, with the file and line.
TEST(ProgramTables, FormatErrorsNameTheLine) {
  struct Bad {
    const char* text;
    const char* says;
  };
  for (const Bad& b : std::vector<Bad>{
           {"[x]\n-a FROB\nok: x", "unknown argument kind"},
           {"[x]\n-a\n-a\nok: x", "listed twice"},
           {"[x]\n-a\n", "no `ok:` example"},
           {"[x]\n!-o FILE\nok: x", "needs `: what it does`"},
           {"[x]\n-d needs -c\nok: x", "names no option"},
           {"[x]\nrequires: -t\nok: x", "names no option"},
           {"-a\n", "before the first [header]"},
           {"[x]\nparser: odd\nok: x", "unknown parser"},
           {"[x]\noperands: BLOB*\nok: x", "unknown operand kind"},
           {"[x]\nuse: @none\nok: x", "names no option set"},
       }) {
    auto r = parse_program_specs("t.txt", b.text);
    ASSERT_FALSE(r.ok()) << b.text;
    EXPECT_NE(r.error().message.find(b.says), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("t.txt"), std::string::npos) << r.error().message;
  }
}

ProgramSpec one(const char* text) {
  auto r = parse_program_specs("t.txt", text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() && !r->empty() ? (*r)[0] : ProgramSpec{};
}

std::vector<ArgWord> words(const std::vector<std::string>& v) {
  std::vector<ArgWord> out;
  for (const auto& w : v) out.push_back({w, false, false});
  return out;
}

std::string problem(const ProgramSpec& s, const std::vector<std::string>& args,
                    bool unconfined = false) {
  ArgContext ctx;
  ctx.unconfined = unconfined;
  auto p = check_program_args(s, nullptr, words(args), ctx);
  return p ? p->word + " " + p->rule : "";
}

// getopt_long as the programs read it: clusters, attached values, `--`, `=value`, prefixes.
TEST(ProgramArgs, GnuParsing) {
  ProgramSpec s =
      one("[p]\nparser: gnu abbrev\noperands: FILE*\n-u --unique\n-k --key=TEXT\n-n --lines=NUM\n"
          "--check[=TEXT]\n--checkpoint\n!-o --output=FILE: writes\n--out-format=TEXT\nok: p");
  EXPECT_EQ(problem(s, {"-uk2", "f"}), "");
  EXPECT_EQ(problem(s, {"-u", "-k", "2", "f"}), "");
  EXPECT_EQ(problem(s, {"-uo", "x"}), "-uo write-option");
  EXPECT_EQ(problem(s, {"-ko", "f"}), "") << "o is -k's value";
  EXPECT_EQ(problem(s, {"--outp=x"}), "--outp=x write-option") << "the only --outp... option";
  EXPECT_EQ(problem(s, {"--out=x"}), "--out=x unknown-option") << "ambiguous";
  EXPECT_EQ(problem(s, {"--output", "x"}), "--output write-option");
  EXPECT_EQ(problem(s, {"--", "-o", "x"}), "") << "after --, operands";
  EXPECT_EQ(problem(s, {"f", "-o", "x"}), "-o write-option") << "options after operands";
  EXPECT_EQ(problem(s, {"--checkpoint"}), "") << "an exact name wins over a longer one";
  EXPECT_EQ(problem(s, {"--check=quiet"}), "");
  EXPECT_EQ(problem(s, {"-n", "five"}), "five write-option");
  EXPECT_EQ(problem(s, {"-n-5"}), "");
  EXPECT_EQ(problem(s, {"-x"}), "-x unknown-option");
  EXPECT_EQ(problem(s, {"-ux"}), "-ux unknown-option");
  EXPECT_EQ(problem(s, {"--unique=yes"}), "--unique=yes unknown-option");
  ProgramSpec exact = one("[p]\nparser: gnu\n-u --unique\nok: p");
  EXPECT_EQ(problem(exact, {"--uniq"}), "--uniq unknown-option") << "no abbreviations";
}

// An operand count is checked as POSIXLY_CORRECT would read the words too.
TEST(ProgramArgs, OperandsCountedBothWays) {
  ProgramSpec s = one("[p]\nparser: gnu\noperands: FILE?: writes\n-c\nok: p");
  EXPECT_EQ(problem(s, {"in"}), "");
  EXPECT_EQ(problem(s, {"in", "out"}), "out write-option");
  EXPECT_EQ(problem(s, {"-c", "in"}), "");
  EXPECT_EQ(problem(s, {"in", "-c"}), "-c write-option");
  ProgramSpec pattern = one("[p]\nparser: gnu\noperands: [PATTERN] FILE?: x\n-e PATTERN\nok: p");
  EXPECT_EQ(problem(pattern, {"pat", "f"}), "");
  EXPECT_EQ(problem(pattern, {"-e", "pat", "f"}), "");
  EXPECT_EQ(problem(pattern, {"-e", "pat", "f", "g"}), "g write-option");
}

// The other parsers: single-dash, whole words, posix, tar bundles, ps BSD letters, find.
TEST(ProgramArgs, OtherParsers) {
  ProgramSpec go = one("[g]\nparser: single-dash\n-l\n!-w: writes\n-r TEXT\nok: g");
  EXPECT_EQ(problem(go, {"--w"}), "--w write-option");
  EXPECT_EQ(problem(go, {"-r", "a->b", "-l"}), "");
  EXPECT_EQ(problem(go, {"-lw"}), "-lw unknown-option") << "no clusters";
  ProgramSpec npm = one("[n]\nparser: whole\n-g\n--depth=NUM\nok: n");
  EXPECT_EQ(problem(npm, {"-g", "--depth=0"}), "");
  EXPECT_EQ(problem(npm, {"-gd"}), "-gd unknown-option");
  ProgramSpec pf = one("[p]\nparser: gnu posix\noperands: TEXT*\n!-v TEXT: assigns\nok: p");
  EXPECT_EQ(problem(pf, {"%s", "-v"}), "") << "after the first operand, words are operands";
  EXPECT_EQ(problem(pf, {"-v", "x", "%s"}), "-v write-option");
  ProgramSpec tar =
      one("[t]\nparser: tar\nrequires: -t\n-t\n-v\n-f ARCHIVE\n!-I FILE: runs\nok: t");
  EXPECT_EQ(problem(tar, {"tvf", "a.tar"}), "");
  EXPECT_EQ(problem(tar, {"tIf", "./p", "a.tar"}), "-I write-option");
  EXPECT_EQ(problem(tar, {"-tf", "host:a.tar"}), "host:a.tar write-option");
  EXPECT_EQ(problem(tar, {"vf", "a.tar"}), "t write-option") << "-t is required";
  ProgramSpec ps = one("[ps]\nparser: ps\noperands: TEXT*\n~a\n~u\n~x\n~o TEXT\n%~e: env\nok: ps");
  EXPECT_EQ(problem(ps, {"aux"}), "");
  EXPECT_EQ(problem(ps, {"axo", "pid,comm"}), "");
  EXPECT_EQ(problem(ps, {"1234"}), "");
  EXPECT_EQ(problem(ps, {"axe"}), "");
  EXPECT_EQ(problem(ps, {"axe"}, true), "axe sensitive-path");
  EXPECT_EQ(problem(ps, {"axz"}), "axz unknown-option");
  ProgramSpec find =
      one("[find]\nparser: find\noperands: DIR*\n-L\n-name PATTERN\n-type TEXT\n!-delete: deletes\n"
          "ok: find");
  EXPECT_EQ(problem(find, {"-L", ".", "(", "-name", "*.c", "-o", "!", "-type", "d", ")"}), "");
  EXPECT_EQ(problem(find, {".", "-name", "x", "-delete"}), "-delete write-option");
  EXPECT_EQ(problem(find, {".", "-name", "x", "y"}), "y not-read-only");
  EXPECT_EQ(problem(find, {".", "-newer", "x"}), "-newer unknown-option");
}

// Words only known at run time: may become options, or any number of operands.
TEST(ProgramArgs, RuntimeWords) {
  ProgramSpec s = one("[p]\nparser: gnu\noperands: FILE*\n-u\nok: p");
  ArgContext ctx;
  EXPECT_TRUE(check_program_args(s, nullptr, {{"$x", true, true}}, ctx).has_value());
  EXPECT_FALSE(check_program_args(s, nullptr, {{"src/*.c", true, false}}, ctx).has_value());
  EXPECT_FALSE(check_program_args(s, nullptr, {{"--", false, false}, {"$x", true, true}}, ctx));
  ProgramSpec bounded = one("[p]\nparser: gnu\noperands: FILE?\nok: p");
  EXPECT_TRUE(check_program_args(bounded, nullptr, {{"src/*.c", true, false}}, ctx).has_value())
      << "uniq *.txt may name the output file";
  ProgramSpec echo = one("[e]\nparser: gnu\nruntime-words\noperands: TEXT*\nok: e");
  EXPECT_FALSE(check_program_args(echo, nullptr, {{"$x", true, true}}, ctx).has_value());
}

// CMD-2: the argument kinds that are checked.
TEST(ProgramArgs, ArgumentKinds) {
  EXPECT_EQ(check_arg_value(ArgKind::kNum, "10"), "");
  EXPECT_EQ(check_arg_value(ArgKind::kNum, "-5"), "");
  EXPECT_EQ(check_arg_value(ArgKind::kNum, "1.5K"), "");
  EXPECT_NE(check_arg_value(ArgKind::kNum, "1;x"), "");
  EXPECT_NE(check_arg_value(ArgKind::kSedScript, "w x"), "");
  EXPECT_NE(check_arg_value(ArgKind::kAwkProgram, "{system(\"x\")}"), "");
  EXPECT_NE(check_arg_value(ArgKind::kArchive, "host:a.tar"), "");
  EXPECT_EQ(check_arg_value(ArgKind::kArchive, "./a:b.tar"), "");
  EXPECT_NE(check_arg_value(ArgKind::kDateFormat, "010100002020"), "");
  EXPECT_NE(check_arg_value(ArgKind::kKey, "a.b=1"), "");
  EXPECT_NE(check_arg_value(ArgKind::kKey, "edit"), "");
  EXPECT_NE(check_arg_value(ArgKind::kHeader, "@/etc/passwd"), "");
  EXPECT_NE(check_arg_value(ArgKind::kChoice, "cfg=p", {"cfg", "sysroot"}), "");
}

// CMD-3: only a plain http(s) URL on this machine's loopback.
TEST(ProgramArgs, LoopbackUrls) {
  for (const char* u : {"http://127.0.0.1:8080/health", "http://localhost:3000/", "localhost:3000",
                        "https://127.0.0.1/", "http://[::1]:8000/x?y=1", "http://127.1.2.3/"})
    EXPECT_TRUE(is_loopback_url(u)) << u;
  for (const char* u :
       {"http://127.0.0.1@evil.example/", "http://localhost.evil.example/", "http://evil/",
        "file:///etc/passwd", "http://127.0.0.1/[1-9]", "http://{a,b}.example/", "http://127.1/",
        "http://0x7f.0.0.1/", "http://[::ffff:127.0.0.1]/", "gopher://127.0.0.1/",
        "http://127.0.0.1:80x/", "http://127.0.0.01/", "http://localhost\\@evil/"})
    EXPECT_FALSE(is_loopback_url(u)) << u;
}

}  // namespace
}  // namespace cordon
