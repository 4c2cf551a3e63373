// The read-only commands as data (CMD-2, SEC-1): for each program (or subcommand) on the
// read-only list, every option known to only read, with the kind of argument it takes, the
// operands it accepts, and the options known to write or run something (listed so that an
// abbreviation resolves as the program's own parser resolves it, and so that the refusal can say
// why). Anything not listed makes the line need approval. Pure.
//
// The tables are text files in src/commands/data/ (the format is described in
// src/commands/data/README.md), compiled into the library at build time: nothing is read at run
// time. This file holds their model and the parser of that text.
//
//   auto specs = parse_program_specs("coreutils.txt", text);   // Result<std::vector<...>>
//   const ProgramSpec& sort = (*specs)[0];                      // [sort]
//   sort.find_long("--o")                                       // the --output entry (abbrev)
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"

namespace cordon {

// What an option's argument or an operand is. The first group is only documentation (any word
// will do; paths are checked by the classifier whatever the kind); the second is checked.
enum class ArgKind {
  kNone,         // the option takes no argument
  kText,         // TEXT: a word the program does not open (a format, a name, a list)
  kPattern,      // PATTERN: a search pattern
  kFile,         // FILE: a file the program reads
  kDir,          // DIR: a folder the program reads
  kNum,          // NUM: a number, signed, with an optional unit suffix (10, -5, +3, 1K, 2.5M)
  kSedScript,    // SEDSCRIPT: a sed script that must only read (no w, r, e, ...)
  kAwkProgram,   // AWKPROG: an awk program that must only read (no system, getline, > file)
  kArchive,      // ARCHIVE: an archive file; `host:path` (a remote archive) is refused
  kLoopbackUrl,  // URL: an http(s) URL whose host is this machine's loopback
  kDateFormat,   // DATEFMT: `+FORMAT` (date: anything else would set the clock)
  kKey,          // KEY: a name without `=` (sysctl: `a.b=c` would set it)
  kHeader,       // HEADER: a word that does not start with `@` (curl reads `@file`)
  kJqProgram,    // JQPROG: a jq or yq program that reads no other file (import, include, load)
  kChoice,       // {a|b|c}: one of these words, exactly
};

// "TEXT" -> kText, "{a|b}" -> kChoice with {"a", "b"}; false when the word is not a kind.
bool parse_arg_kind(std::string_view word, ArgKind& out,
                    std::vector<std::string>* choices = nullptr);
const char* to_string(ArgKind k);

enum class OptionVerdict {
  kReadOnly,     // a plain line: only changes how the program reads or prints
  kRefused,      // `!`: writes, runs or loads code, reads a list of files: never read-only
  kSandboxOnly,  // `%`: read-only inside a sandbox; asks when commands run unconfined
};

struct OptionSpec {
  // As written: "-o", "--output", "-name" (a single-dash long option), "~e" (a ps BSD letter),
  // "-NUM" (a number as an option: `head -20`).
  std::vector<std::string> names;
  ArgKind arg = ArgKind::kNone;
  bool arg_optional = false;         // `--color[=WHEN]`: the value only attached
  std::vector<std::string> choices;  // kChoice: the words allowed
  OptionVerdict verdict = OptionVerdict::kReadOnly;
  std::string why;                 // for the refused and sandbox-only ones: what it does
  std::vector<std::string> needs;  // read-only only when one of these options is given too
  bool global = false;             // a parent's option that may come before its subcommand
  bool operands_free = false;      // `patterns`: with it, any operands (git branch --list PAT)
  std::string display() const;     // "-o/--output"
};

struct OperandSpec {
  ArgKind kind = ArgKind::kFile;
  std::vector<std::string> choices;  // kChoice
  size_t min = 0, max = 0;           // max == kMany: no limit
  // `[KIND]`: present only when no option took an argument of that kind (grep's pattern when
  // -e is given, sed's script when -e is given).
  bool unless_option = false;
  static constexpr size_t kMany = static_cast<size_t>(-1);
};

enum class ParserStyle {
  kGnu,         // getopt_long: clusters (-rn), attached values (-n5), --opt=v, --opt v, `--`
  kSingleDash,  // -name / --name, -name=v or -name v, no clusters (Go's flag, java, xmllint)
  kWhole,       // each option is a whole word as listed, --opt=v allowed, no clusters (npm)
  kFind,        // find: -H/-L/-P, start points, then the expression (predicates and operators)
  kTar,         // GNU tar: gnu, plus a first word without a dash that bundles letters (tvf a)
  kPs,          // procps ps: gnu, plus BSD letters without a dash (aux, e) and pid lists
};

struct Example {
  enum class Want { kReadOnly, kNeedsApproval, kDenied } want = Want::kReadOnly;
  std::string line;
};

struct ProgramSpec {
  // The names of this entry: each a program and the words that select it
  // ({"npm", "ls"}, {"npm", "list"}).
  std::vector<std::vector<std::string>> names;
  std::string why;
  ParserStyle parser = ParserStyle::kGnu;
  // Long options by unambiguous prefix, as the parser accepts them. Only for a table that lists
  // every long option the program has (checked against the program's --help where installed).
  bool abbrev = false;
  // Options end at the first operand (POSIX getopt without GNU's permutation: printf, the
  // shell's builtins): a later word starting with `-` is an operand.
  bool stops_at_operand = false;
  // Options may come anywhere and no setting stops that (Go's pflag, cobra): the POSIXLY_CORRECT
  // reading of getopt does not apply.
  bool interspersed = false;
  bool inherit = false;  // the parent entry's global options are accepted here too
  // Words only known at run time (`$x`, a glob) are fine here: whatever option they become only
  // reads (echo, which, basename: `runtime-words`).
  bool runtime_words = false;
  // `@FILE` reads more arguments (file names, options) from a file (binutils, 7-Zip): refused.
  bool at_files = false;
  std::vector<OptionSpec> options;
  std::vector<OperandSpec> operands;      // in order; empty: no operands at all
  std::string operands_why;               // why operands other than these are refused
  std::vector<std::string> requires_any;  // read-only only when one of these options is given
  std::string requires_why;
  // Read-only only when none of these names exists in the working folder or a folder above it,
  // up to the home folder (files that make the program run the project's code).
  std::vector<std::string> unless_upward;
  // The same for the working folder alone, with globs (`*.py`: `python -m` imports from it).
  std::vector<std::string> unless_here;
  std::vector<Example> examples;
  // `use: @set`: the options of an option set (`[@git-diff]`) of the same file, added here.
  std::vector<std::string> uses;
  std::string file;  // where it was defined, for messages and tests
  int line = 0;

  // Option names to their index in `options` (index_options() builds it; find() uses it).
  std::unordered_map<std::string, size_t> index;
  void index_options();

  std::string display_name() const;  // "npm ls"
  // The option a word names, or null: an exact name, else (with `abbrev`) the one long option
  // the word is a prefix of. `ambiguous` is set when several fit.
  const OptionSpec* find(std::string_view name, bool* ambiguous = nullptr) const;
};

// Parses one data file. Errors name the file and the line.
Result<std::vector<ProgramSpec>> parse_program_specs(std::string_view file, std::string_view text);

// The names of a header line, trimmed: `[npm ls | npm list]` -> {{"npm", "ls"}, {"npm", "list"}}.
Result<std::vector<std::vector<std::string>>> parse_table_header(std::string_view line);

// One `[header]` section of a data file on its own (its header line first, `first_line` the
// line number of that header in `file`): the table, its `use:` lines resolved against `sets`
// (the file's option sets); or, for a `[@name]` header, that option set. Errors name the line.
Result<ProgramSpec> parse_program_section(std::string_view file, std::string_view text,
                                          int first_line, const std::vector<ProgramSpec>& sets);

// The exact entries (exact.txt): a program followed by the whole of its arguments
// (`node --version`), read-only only when given exactly.
Result<std::vector<std::vector<std::string>>> parse_exact_entries(std::string_view file,
                                                                  std::string_view text);

}  // namespace cordon
