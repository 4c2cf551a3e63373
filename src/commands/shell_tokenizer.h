// A POSIX sh tokenizer for the command policy (CMD-1). Pure: it only reads the string it is given.
//
// It splits a command line the way sh does (quotes, escapes, operators, subshells, groups,
// if/while/until/for, here-documents, command and process substitution) into the simple
// commands a shell would run, flattened in source order. It does not expand anything: an
// expansion stays in the word as written and the word is marked, so a caller can tell a literal
// path from one only known at run time.
//
// Whatever it cannot follow with confidence (an unbalanced quote, `case`, a function definition,
// `[[ ]]`, nesting deeper than the limit, a NUL byte) leaves `complete == false` with the reason;
// the commands parsed before that point are still returned, so a caller can look for denied
// commands in them, but it must never call such a line read-only.
//
//   ShellScript s = parse_shell("cd src && grep -rn 'TODO' . | wc -l > /dev/null");
//   // s.commands: [cd src] [grep -rn TODO .] [wc -l, redirection > /dev/null]
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

struct ShellWord {
  // The word after quote removal. Expansions are kept as written: "$HOME/x", "$(date)".
  std::string text;
  size_t offset = 0;                // where the word starts in the text that was parsed
  bool quoted = false;              // some part was quoted or backslash-escaped
  bool has_expansion = false;       // $VAR, ${...}, $(...), `...` or $((...)) anywhere
  bool unquoted_expansion = false;  // one of those outside double quotes (split and globbed)
  // An expansion that can evaluate code held in a variable: arithmetic ($((...)), $[...]),
  // indirection (${!x}), transformations (${x@P}), subscripts and substring offsets.
  bool risky_expansion = false;
  bool has_glob = false;              // an unquoted `*`, `?` or `[` (pathname expansion)
  bool has_brace = false;             // an unquoted {a,b} or {1..3} (brace expansion)
  bool tilde = false;                 // starts with an unquoted `~` (tilde expansion)
  bool process_substitution = false;  // holds <(...) or >(...)
  // How many leading characters of `text` came from unquoted, unexpanded source characters
  // (tells `NAME=value` assignments from arguments such as "NAME"=value).
  size_t plain_prefix = 0;
};

enum class RedirectOp {
  kIn,            // <
  kOut,           // >
  kAppend,        // >>
  kClobber,       // >|
  kReadWrite,     // <>
  kDupIn,         // <&
  kDupOut,        // >&
  kOutErr,        // &>
  kAppendOutErr,  // &>>
  kHereDoc,       // << and <<-
  kHereString,    // <<<
};

struct Redirection {
  int fd = -1;  // the explicit descriptor (2 in `2>&1`); -1 when implied
  RedirectOp op = RedirectOp::kIn;
  ShellWord target;              // a file, a descriptor ("1", "-"), a delimiter or a string
  std::string here_doc;          // the body of a here-document
  bool here_doc_quoted = false;  // the delimiter was quoted: the body is taken literally
};

struct ShellScript;

enum class CommandKind {
  kSimple,            // words, assignments and redirections
  kForList,           // `for NAME in WORDS`: assignments[0] is NAME, words are the list
  kCompoundRedirect,  // redirections applied to a `( )`, `{ }`, `if` or loop
};

struct SimpleCommand {
  CommandKind kind = CommandKind::kSimple;
  std::vector<ShellWord> assignments;  // NAME=value prefixes
  std::vector<ShellWord> words;        // argv, before expansion
  std::vector<Redirection> redirections;
  // Command and process substitutions found in the words, assignments, redirection targets and
  // unquoted here-documents of this command, each parsed as a script of its own.
  std::vector<ShellScript> substitutions;
  size_t offset = 0;
};

struct ShellScript {
  std::vector<SimpleCommand> commands;  // every simple command, flattened, in source order
  bool complete = true;                 // false: something could not be parsed with confidence
  std::string problem;                  // why not, for a person
  size_t problem_offset = 0;            // where, in the text given to parse_shell
};

struct ShellLimits {
  size_t max_bytes = 1 << 20;  // longer input is refused (the first max_bytes are still parsed)
  int max_depth = 16;          // nested substitutions, quotes within substitutions, ...
  size_t max_commands = 20000;
  size_t max_constructs = 64;  // open ( { if while for at one level
};

// Parses `text` as sh would. `depth` is the nesting the caller is already at (for `sh -c`
// strings found inside another command); the limit applies to the total.
ShellScript parse_shell(std::string_view text, int depth = 0, const ShellLimits& limits = {});

// True for a valid shell variable name ([A-Za-z_][A-Za-z0-9_]*).
bool is_shell_name(std::string_view s);

}  // namespace cordon
