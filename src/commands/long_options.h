// Long options of the programs on the read-only list, as data (CMD-2, CMD-3). GNU getopt_long,
// argp, Python's argparse and git's parse-options all accept any unambiguous prefix of a long
// option (`sort --o=f` is `sort --output=f`), so an option is found here exactly as the real
// parser finds it: an exact name first, else the one option the word is a prefix of. Pure.
//
//   const OptionTable* t = option_table("sort");
//   OptionHit h = find_option(*t, "--compress=./prog");
//   // h.match == OptionMatch::kOne, h.option->name == "compress-program", h.option->kind == kRuns
//   first_unsafe_option(*t, {"-u", "--o=out"});   // {"--o=out", "writes its output to a file"}
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/write_options.h"

namespace cordon {

enum class OptionKind {
  kSafe,      // only changes how the program reads or prints
  kWrites,    // writes a file, or changes the system
  kRuns,      // runs another program
  kFileList,  // reads the names of the files to read from a file or stdin (CMD-3)
  kScript,    // reads code (a script, a filter) from a file, which cannot be checked
};

struct LongOption {
  std::string_view name;  // without the leading "--"
  OptionKind kind = OptionKind::kSafe;
};

struct OptionTable {
  std::string_view program;  // "sort", "git grep", ...
  std::vector<LongOption> options;
  // True when `options` is every long option the program has: a word that matches none is an
  // option we do not know, so not read-only. False: only the options that matter are listed
  // (git log has hundreds); an unknown word is left alone.
  bool complete = true;
};

enum class OptionMatch { kNone, kOne, kAmbiguous };

struct OptionHit {
  OptionMatch match = OptionMatch::kNone;
  const LongOption* option = nullptr;         // kOne
  std::vector<const LongOption*> candidates;  // kAmbiguous: every option the prefix fits
};

// `word` is `--name` or `--name=value`. An exact name wins; else a prefix of exactly one option.
OptionHit find_option(const OptionTable& table, std::string_view word);

// The table for a program ("sort") or a git subcommand ("git branch"); null when none.
const OptionTable* option_table(std::string_view program);

// Every table, for the tests that walk each dangerous option's every prefix.
const std::vector<OptionTable>& option_tables();

// The first long option in `args` (before `--`) that is not read-only: one of kind other than
// kSafe, an ambiguous prefix, or, in a complete table, a word that names no option.
std::optional<WriteOption> first_unsafe_option(const OptionTable& table,
                                               const std::vector<std::string>& args);

}  // namespace cordon
