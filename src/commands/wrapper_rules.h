// The wrapper programs' rules (CMD-1), one data entry each: how a wrapper's options read, what
// the options do, and where the command it runs starts. unwrap_command (wrappers.cc) reads them.
//
//   const WrapperRule* r = find_wrapper_rule("timeout");
//   // r->syntax.with_value == "ks", r->operands == 1 (the duration comes before the command)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "commands/wrappers.h"

namespace cordon {

// getopt-style options of one wrapper. Any option not listed here makes the command a guess.
struct WrapperSyntax {
  std::string_view flags = {};       // short options without a value
  std::string_view with_value = {};  // short options with a value (attached or the next word)
  std::string_view opt_value = {};   // short options whose value can only be attached (-i[R])
  std::vector<std::string_view> long_flags = {};
  std::vector<std::string_view> long_with_value = {};  // --name=v or --name v
  std::vector<std::string_view> long_opt_value = {};   // only --name=v
  bool assignments = false;  // NAME=value words may come before the command
};

enum class WrapperEffect {
  kChdir,         // the value is a folder the command runs in (`env -C DIR`)
  kArgumentFile,  // the value is a file the arguments are read from (`xargs -a FILE`)
  kWrites,        // it writes or changes something: `text`, "{}" replaced by the value
  kLookup,        // it only looks a name up and runs nothing (`command -v`): not a wrapper
  kUnparsed,      // the command it runs cannot be known: `text` says why (`env -S`)
};

struct WrapperOption {
  std::vector<std::string_view> names = {};
  WrapperEffect effect;
  std::string_view text = {};
};

// Words rewritten before the options are read: spellings getopt would not know (`env -`).
using WrapperRewrite = std::vector<std::string> (*)(std::vector<std::string>);
// A wrapper whose command is not an operand (`su -c STRING`): read by its own function.
using WrapperReader = Unwrapped (*)(const std::vector<std::string>&);

struct WrapperRule {
  std::string_view name = {};
  WrapperSyntax syntax = {};
  std::vector<WrapperOption> options = {};  // the options that do more than change how it runs
  size_t operands = 0;               // words between the options and the command (a duration)
  bool no_options = false;           // the command is the first word, whatever it looks like
  std::string_view privileged = {};  // runs the command as another user (needs approval anyway,
                                     // so an unknown option leaves the guess good enough)
  std::string_view writes = {};      // writes a file of its own, whatever it is given
  std::string_view implied = {};     // what runs when no command is given
  bool stdin_arguments = false;      // the command gets arguments read from stdin
  WrapperRewrite rewrite = nullptr;
  WrapperReader reader = nullptr;
};

// The rule of `program`, or nullptr: not a wrapper.
const WrapperRule* find_wrapper_rule(std::string_view program);

}  // namespace cordon
