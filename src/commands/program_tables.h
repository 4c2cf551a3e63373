// The read-only list of CMD-2, built from the data files (program_data.h): the tables of
// program_spec.h and the exact entries. Finds the table for a command the way the command picks
// its subcommand. Pure.
//
//   const ProgramTables& t = builtin_program_tables();        // indexed once
//   auto sel = t.select("npm", {"-g", "ls", "--depth=0"});
//   // sel.spec is [npm ls]; sel.args == {"--depth=0"}; "-g" was a global option of [npm]
//   t.is_exact({"node", "--version"});                         // true
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "commands/program_args.h"
#include "commands/program_spec.h"
#include "core/result.h"

namespace cordon {

class ProgramTables {
 public:
  // Reads the compiled-in data files' headers and exact entries; each table is parsed the
  // first time a command names its program (PERF-1: a one-shot `cordon run` parses the few it
  // needs, not all 250). An error names the file and line.
  static Result<ProgramTables> index();
  // index(), then every table parsed now: the first error found, "" when the data is sound.
  std::string check() const;

  // Every table, in file order (parses those not parsed yet). For tests and listings.
  const std::vector<ProgramSpec>& specs() const;
  const std::vector<std::vector<std::string>>& exact() const { return exact_; }
  bool is_exact(const std::vector<std::string>& argv) const;
  bool has_program(const std::string& program) const { return by_program_.count(program) > 0; }

  struct Selection {
    const ProgramSpec* spec = nullptr;    // null: the program has no table
    const ProgramSpec* parent = nullptr;  // the program's own entry, when `spec` is a child
    size_t words = 0;                     // how many words named the child (after the prefix)
    size_t prefix = 0;                    // global options of the parent before those words
    std::optional<ArgProblem> prefix_problem;
    std::string name;  // how to show it: "npm ls"
    // The program has children and the first operand names none of them: `npm install`.
    std::string unknown_child;
  };
  // `args` are the words after the program name (for git: after its global options).
  Selection select(const std::string& program, const std::vector<ArgWord>& args) const;

  ProgramTables();
  ~ProgramTables();
  ProgramTables(ProgramTables&&) noexcept;
  ProgramTables& operator=(ProgramTables&&) noexcept;

 private:
  // A table's header and where its text is; parsed on first use.
  struct Section {
    std::vector<std::vector<std::string>> names;
    std::string_view file, text;
    int line = 0;
  };
  struct Parsed;  // the tables parsed so far, behind a lock (several threads classify)
  Result<const ProgramSpec*> table(size_t i) const;
  const ProgramSpec* table_or_null(size_t i) const;

  std::vector<Section> sections_;  // tables, not option sets
  // file -> its [@name] option sets' sections
  std::map<std::string_view, std::vector<Section>, std::less<>> set_sections_;
  std::vector<std::vector<std::string>> exact_;
  std::map<std::string, std::vector<size_t>, std::less<>> exact_by_program_;
  // program -> (index in sections_, index of the name), longest names first.
  std::map<std::string, std::vector<std::pair<size_t, size_t>>, std::less<>> by_program_;
  std::unique_ptr<Parsed> parsed_;
};

// The built-in tables, indexed on first use and each parsed on first use. The data is tested
// (tests/unit/program_tables_test.cc: check() is ""); a table that does not parse asks.
const ProgramTables& builtin_program_tables();
// The parse error of the built-in data, "" when it parsed.
const std::string& builtin_program_tables_error();

}  // namespace cordon
