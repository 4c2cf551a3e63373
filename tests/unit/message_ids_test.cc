// Issue 29 item 8: messages for people name no requirement ids. Notes, refusals, errors,
// --help, the policy report and the Seatbelt profile's comments are all string literals in
// src/ (and the "why" of the read-only tables in src/commands/data/); none of them may say
// "(PROT-7)" to a user who has no specification. Code comments and tests keep the ids, so the
// scan reads string literals only and skips comments.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "test_paths.h"

namespace cordon {
namespace {

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The id prefixes of docs/requirements.ids ("CFG", "PROT", ...), as one pattern that matches
// "PROT-7" but not "TEST-NET-1" (an RFC's name for an address block) nor "UTF-8".
std::regex id_pattern() {
  std::set<std::string> prefixes;
  std::istringstream in(read_all(test_source_dir() + "/docs/requirements.ids"));
  std::string line;
  const std::regex id_line("^([A-Z]{2,6})-[0-9]{1,2} ");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, id_line)) prefixes.insert(m[1]);
  std::string alt;
  for (const auto& p : prefixes) alt += (alt.empty() ? "" : "|") + p;
  return std::regex("(^|[^-A-Za-z0-9_])(" + alt + ")-[0-9]{1,2}([^0-9]|$)");
}

struct Literal {
  int line;
  std::string text;
};

// The string literals of a C++ source (plain and raw), without its comments and character
// literals. Adjacent literals stay separate: an id split over two of them ("(PROT-" "7)") is
// not a form anyone writes.
std::vector<Literal> string_literals(const std::string& s) {
  std::vector<Literal> out;
  int line = 1;
  size_t i = 0;
  const size_t n = s.size();
  auto count_lines = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < n; ++k) line += s[k] == '\n';
  };
  while (i < n) {
    if (s.compare(i, 2, "//") == 0) {
      size_t e = s.find('\n', i);
      i = e == std::string::npos ? n : e;
      continue;
    }
    if (s.compare(i, 2, "/*") == 0) {
      size_t e = s.find("*/", i + 2);
      e = e == std::string::npos ? n : e + 2;
      count_lines(i, e);
      i = e;
      continue;
    }
    const bool word_before =
        i > 0 && (std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_');
    if (s[i] == 'R' && i + 1 < n && s[i + 1] == '"' &&
        (!word_before || s[i - 1] == '8' || s[i - 1] == 'u' || s[i - 1] == 'U' ||
         s[i - 1] == 'L')) {
      size_t open = s.find('(', i + 2);
      if (open != std::string::npos) {
        const std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
        size_t e = s.find(close, open + 1);
        e = e == std::string::npos ? n : e;
        out.push_back({line, s.substr(open + 1, e - open - 1)});
        count_lines(i, e);
        i = e + close.size();
        continue;
      }
    }
    if (s[i] == '\'' && !word_before) {  // a character literal (not a digit separator)
      size_t j = i + 1;
      while (j < n && s[j] != '\'' && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (s[i] == '"') {
      size_t j = i + 1;
      while (j < n && s[j] != '"' && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      out.push_back({line, s.substr(i + 1, j - i - 1)});
      i = j + 1;
      continue;
    }
    line += s[i] == '\n';
    ++i;
  }
  return out;
}

// The lines of the read-only tables that reach people: all but the `#` comments.
std::vector<Literal> table_lines(const std::string& s) {
  std::vector<Literal> out;
  std::istringstream in(s);
  std::string l;
  for (int line = 1; std::getline(in, l); ++line)
    if (!l.empty() && l[0] != '#') out.push_back({line, l});
  return out;
}

TEST(MessageIds, TheScanFindsIdsInLiteralsOnly) {
  const std::regex id = id_pattern();
  const std::string src =
      "// PROT-7 in a comment\n"
      "/* GIT-6 in a block\n comment */\n"
      "note(\"cordon moved it (PROT-7).\");  // PROT-7\n"
      "x = 'a'; y = 1'000;\n"
      "help(R\"(see FS-4 here)\");\n"
      "addr(\"Documentation (TEST-NET-1)\", \"UTF-8\", \"a \\\"quoted\\\" CMD-2\");\n";
  std::vector<std::string> hits;
  std::vector<int> lines;
  for (const auto& l : string_literals(src))
    if (std::regex_search(l.text, id)) {
      hits.push_back(l.text);
      lines.push_back(l.line);
    }
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0], "cordon moved it (PROT-7).");
  EXPECT_EQ(lines[0], 4);
  EXPECT_EQ(hits[1], "see FS-4 here");
  EXPECT_EQ(lines[1], 6);
  EXPECT_EQ(hits[2], "a \\\"quoted\\\" CMD-2");
  EXPECT_EQ(table_lines("# CMD-3 comment\n!-c: reads a list (CMD-3)\n").size(), 1u);
}

TEST(MessageIds, NoMessageForPeopleNamesARequirementId) {
  const std::regex id = id_pattern();
  size_t files = 0, literals = 0;
  std::vector<std::string> found;
  for (const char* dir : {"/src", "/include"})
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(test_source_dir() + dir)) {
      const auto ext = entry.path().extension();
      std::vector<Literal> texts;
      if (ext == ".cc" || ext == ".h" || ext == ".mm")
        texts = string_literals(read_all(entry.path()));
      else if (ext == ".txt")
        texts = table_lines(read_all(entry.path()));
      else
        continue;
      ++files;
      literals += texts.size();
      for (const auto& t : texts)
        if (std::regex_search(t.text, id))
          found.push_back(entry.path().string() + ":" + std::to_string(t.line) + ": " + t.text);
    }
  ASSERT_GT(files, 200u) << "the scan read too few files: check test_source_dir()";
  ASSERT_GT(literals, 5000u);
  for (const auto& f : found)
    ADD_FAILURE() << f
                  << "\n  A message for people names a requirement id. Say what happened and "
                     "what to do (a docs/ section may be named), and keep the id in a code "
                     "comment next to the string (// PROT-7).";
}

}  // namespace
}  // namespace cordon
