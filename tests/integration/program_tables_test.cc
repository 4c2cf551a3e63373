// CMD-2, SEC-1 (issue 27): the read-only tables (src/commands/data) against the programs
// installed on this machine. An option a table lists must exist as written: a name the program
// does not have is, for getopt_long, argparse and git's parse-options, an abbreviation of some
// other option, which may be one that writes. And a table that matches abbreviations (`abbrev`)
// must list every long option the program has, so that a prefix resolves here as it resolves
// there. A program's own `--help` says what it has; an option --help does not show is probed by
// running the program with it and a word that makes it stop at once (`--version`, `-h`); only
// read-only options are probed, so nothing is written or run.
#include "commands/program_tables.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/strings.h"
#include "harness.h"

namespace cordon::it {
namespace {

std::string which(const std::string& program) {
  const char* path = std::getenv("PATH");
  for (const auto& dir : split(path ? path : "/usr/local/bin:/usr/bin:/bin", ':')) {
    if (dir.empty()) continue;
    std::string p = dir + "/" + program;
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

std::map<std::string, std::string> plain_env() {
  return {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"LANG", "C"}, {"HOME", "/nonexistent"}};
}

// Every `--name` a help text shows; `--[no-]name` gives both.
std::set<std::string> long_options_in(const std::string& text) {
  std::set<std::string> out;
  // After a blank, a bracket or a comma: `rw-r--r--` in an example is no option.
  static const std::regex re("(^|[\\s\\[(,|])--(\\[no-\\])?([a-z0-9][A-Za-z0-9_.-]*)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    std::string name = (*it)[3].str();
    while (!name.empty() && (name.back() == '.' || name.back() == '-')) name.pop_back();
    out.insert("--" + name);
    if ((*it)[2].matched) out.insert("--no-" + name);
  }
  return out;
}

// --help, else -h (pstree's -h is an option of its own: -h only when --help says nothing).
std::string help_text(const std::vector<std::string>& argv) {
  for (const char* h : {"--help", "-h"}) {
    std::vector<std::string> a = argv;
    a.push_back(h);
    Proc p = run_program(a, plain_env(), "/tmp", "", 10);
    if ((p.out + p.err).find("--") != std::string::npos) return p.out + p.err;
  }
  return "";
}

bool rejected(const Proc& p) {
  const std::string s = to_lower(p.out + p.err);
  for (const char* bad :
       {"unrecognized option", "unrecognised option", "unknown option", "invalid option",
        "ambiguous", "unrecognized argument", "no such option", "illegal option"})
    if (s.find(bad) != std::string::npos) return true;
  return false;
}

std::string probe_value(const OptionSpec& o) {
  if (o.arg == ArgKind::kNum) return "1";
  if (o.arg == ArgKind::kChoice && !o.choices.empty()) return o.choices[0];
  return "x";
}

// The program accepts `name` (given a value when it takes one, as `--name=v` or `--name v`),
// then stops at `stop`.
bool accepted(const std::vector<std::string>& argv, const OptionSpec& o, const std::string& name,
              const char* stop, const std::string& cwd) {
  std::vector<std::vector<std::string>> forms;
  if (o.arg == ArgKind::kNone || o.arg_optional)
    forms.push_back({name});
  else
    forms = {{name + "=" + probe_value(o)}, {name, probe_value(o)}};
  for (const auto& f : forms) {
    std::vector<std::string> a = argv;
    a.insert(a.end(), f.begin(), f.end());
    a.push_back(stop);
    if (!rejected(run_program(a, plain_env(), cwd, "", 10))) return true;
  }
  return false;
}

bool getopt_style(const ProgramSpec& s) {
  return s.parser == ParserStyle::kGnu || s.parser == ParserStyle::kTar ||
         s.parser == ParserStyle::kPs;
}

// Two different programs share these names; their tables list what either takes, by exact name.
bool shared_name(const std::string& program) { return program == "yq" || program == "md5"; }

// CMD-2: each long option a table allows exists in the installed program as written.
TEST(ProgramTablesOnThisMachine, ListedLongOptionsExist) {
  int programs = 0;
  for (const auto& s : builtin_program_tables().specs()) {
    if (!getopt_style(s)) continue;
    for (const auto& name : s.names) {
      if (name.size() != 1 || shared_name(name[0])) continue;
      const std::string path = which(name[0]);
      if (path.empty()) continue;
      ++programs;
      const std::set<std::string> help = long_options_in(help_text({path}));
      for (const auto& o : s.options)
        for (const auto& n : o.names) {
          // A refused option the program lacks only asks for nothing; one it allows must exist.
          if (!starts_with(n, "--") || o.verdict == OptionVerdict::kRefused || help.count(n))
            continue;
          if (o.verdict == OptionVerdict::kReadOnly && accepted({path}, o, n, "--version", "/tmp"))
            continue;
          ADD_FAILURE() << "[" << s.display_name() << "] " << s.file << ": " << path
                        << " has no option " << n;
        }
    }
  }
  std::printf("checked the long options of %d installed programs\n", programs);
  EXPECT_GE(programs, 60);
}

// CMD-2: a table that matches abbreviations lists every long option the program shows.
TEST(ProgramTablesOnThisMachine, AbbreviatingTablesListEveryLongOption) {
  int programs = 0;
  for (const auto& s : builtin_program_tables().specs()) {
    if (!s.abbrev) continue;
    for (const auto& name : s.names) {
      if (name.size() != 1) continue;
      const std::string path = which(name[0]);
      if (path.empty()) continue;
      ++programs;
      for (const auto& h : long_options_in(help_text({path}))) {
        bool listed = false;
        for (const auto& o : s.options)
          for (const auto& n : o.names) listed = listed || n == h;
        if (!listed)
          ADD_FAILURE() << "[" << s.display_name() << "] " << s.file << " says abbrev, but " << path
                        << " has " << h << ", which it does not list";
      }
    }
  }
  std::printf("checked %d abbreviating tables against --help\n", programs);
  EXPECT_GE(programs, 40);
}

// CMD-2: the long options of git's tables exist in the installed git (its parse-options takes
// abbreviations; its revision parser does not): each is given to the subcommand before -h,
// which stops it with its usage, or refuses an option it does not know.
TEST(ProgramTablesOnThisMachine, GitOptionsExist) {
  const std::string git = which("git");
  if (git.empty()) GTEST_SKIP() << "git is not installed";
  World w;  // an empty repository to run in
  int checked = 0;
  for (const auto& s : builtin_program_tables().specs()) {
    for (const auto& name : s.names) {
      if (name.size() < 2 || name[0] != "git" || starts_with(name[1], "-")) continue;
      if (name[1] == "lfs" && which("git-lfs").empty()) continue;
      std::vector<std::string> argv{git};
      argv.insert(argv.end(), name.begin() + 1, name.end());
      for (const auto& o : s.options)
        for (const auto& n : o.names) {
          if (!starts_with(n, "--") || o.verdict != OptionVerdict::kReadOnly) continue;
          ++checked;
          EXPECT_TRUE(accepted(argv, o, n, "-h", w.project()))
              << "[" << s.display_name() << "] " << s.file << ": git has no option " << n;
        }
      break;  // one name of each table is enough: they share the git program
    }
  }
  std::printf("checked %d long options of git's tables\n", checked);
  EXPECT_GE(checked, 300);
}

}  // namespace
}  // namespace cordon::it
