// Reads a command's arguments the way its own parser does and judges them against its table
// (program_spec.h): every option must be one known to only read, every operand of the kind the
// table expects (CMD-2, SEC-1). Pure.
//
//   const ProgramSpec& sort = ...;   // [sort] from src/commands/data/coreutils.txt
//   check_program_args(sort, nullptr, words({"-uo", "out", "in"}), {});
//   // {word "-uo", why "holds -o/--output, which writes its output to a file", "write-option"}
//   check_program_args(sort, nullptr, words({"-k2,2", "-t,", "data.csv"}), {});   // nullopt
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "commands/program_spec.h"

namespace cordon {

struct ArgWord {
  std::string text;
  // Only known at run time (a glob not expanded here, an unquoted `$x`): may become any number
  // of words.
  bool many = false;
  // Only known at run time and may start with `-`: an option nobody checked.
  bool may_be_option = false;
};

struct ArgProblem {
  std::string word;  // the argument as given
  std::string why;   // "holds -o/--output, which writes its output to a file"
  // write-option (a listed option or operand that writes, runs or loads code), unknown-option
  // (an option not on the list), not-read-only (an operand the table does not take),
  // sensitive-path (shows other processes' environments where commands run unconfined).
  std::string rule;
};

struct ArgContext {
  bool unconfined = false;  // commands run without a sandbox: `%` options ask
};

// `args` are the words after those that selected `spec` (for `npm ls`: after `ls`). `parent`
// (may be null) is the program's own entry, whose global options `spec` accepts when it says
// `inherit`.
std::optional<ArgProblem> check_program_args(const ProgramSpec& spec, const ProgramSpec* parent,
                                             const std::vector<ArgWord>& args,
                                             const ArgContext& ctx);

// Only the global options of `parent` that come before a subcommand (`kubectl -n x get`):
// `end` gets the index of the first word that is not one of them.
std::optional<ArgProblem> check_global_prefix(const ProgramSpec& parent,
                                              const std::vector<ArgWord>& args, size_t& end);

// The checks of the argument kinds, exposed for the tests: "" when `value` is of the kind, else
// why not.
std::string check_arg_value(ArgKind kind, const std::string& value,
                            const std::vector<std::string>& choices = {});

// True for an http:// or https:// URL (or a bare host[:port][/path], as curl reads it) whose
// host is this machine's loopback: localhost, 127.0.0.0/8 or [::1]; no user name, no globbing.
bool is_loopback_url(std::string_view url);

}  // namespace cordon
