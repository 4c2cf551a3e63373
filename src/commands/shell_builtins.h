// The shell builtins whose words are not options and operands (CMD-1, CMD-2): `test`/`[` (an
// expression), `set` (shell options and positional parameters), `export`, `declare`, `typeset`,
// `local`, `readonly` (assignments), and the parameter expansions that assign (`${X:=v}`). Each
// is read-only only when what it sets is known to be harmless (SEC-1). Pure.
//
//   shell_builtin_problem("set", words_of("set -a"));        // {"-a", "exports every ...", ...}
//   assigning_expansions(": ${GIT_DIR:=x} ${n:=1}");         // {"GIT_DIR", "n"}
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/shell_tokenizer.h"

namespace cordon {

struct BuiltinProblem {
  std::string word;
  std::string why;   // "exports every variable set after it (allexport)"
  std::string rule;  // write-option, environment, expansion, unknown-option
};

// True for test, [, set, export, declare, typeset, local, readonly.
bool is_judged_builtin(std::string_view program);

// `words[0]` is the builtin. nullopt: read-only.
std::optional<BuiltinProblem> shell_builtin_problem(std::string_view program,
                                                    std::span<const ShellWord> words);

// The names `${NAME=...}`, `${NAME:=...}` (and with a subscript) assign, anywhere in `text`
// (quoted or not: a stricter answer), with the value as written up to the first `}`.
std::vector<std::pair<std::string, std::string>> assigning_expansions(std::string_view text);

// Environment a command may be given without changing what it runs or reads (LANG, TZ, ...).
bool harmless_environment(std::string_view name, std::string_view value);
// A shell variable set on its own: lowercase names are the script's own (except zsh's ties to
// the search paths), and the harmless environment.
bool harmless_variable(std::string_view name, std::string_view value);

}  // namespace cordon
