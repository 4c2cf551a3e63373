// Renders a Plan as a Seatbelt (SBPL) profile for macOS's sandbox-exec (MAC-1). Pure: the
// profile is text, written here and read by `cordon policy --seatbelt` on any system (MAC-4).
//
// Example:
//   Plan p = make_plan(policy, facts, request, {.backend = Backend::kSeatbelt, ...});
//   SeatbeltProfile prof = render_seatbelt_profile(p, facts);
//   // prof.text starts "(version 1)\n(deny default)\n..."; prof.filters.total() <= 1000
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plan/budget.h"
#include "plan/facts.h"
#include "plan/plan.h"

namespace cordon {

// An SBPL string literal holding exactly the bytes of `s`. SBPL is read by a TinyScheme reader:
// inside "...", `\` starts an escape (\n \t \r \" \xHH; any other character stands for itself,
// so `\\` is a backslash) and every other byte is taken as it is, non-ASCII included. Only `"`
// and `\` must be escaped; newline, tab and carriage return are written as \n \t \r so a
// profile stays one rule per line for the eye.
//   sbpl_string("/a \"b\"") == "\"/a \\\"b\\\"\""
std::string sbpl_string(std::string_view s);

// A POSIX extended regular expression matching the bytes of `s` literally; ASCII letters match
// in either case ([aA]), as macOS's default volumes fold case.
//   regex_literal("/a.b") == "/[aA]\\.[bB]"
std::string regex_literal(std::string_view s);

// The regular expression for a path whose last component holds a glob (`*` any run of
// characters but `/`, `?` one), matching the paths it names and everything below them.
//   glob_path_regex("/h/.c*") == "^/[hH]/\\.[cC][^/]*(/|$)"
std::string glob_path_regex(std::string_view pattern);

// macOS places that hold credentials and private data beyond FS-4's list (home-relative).
const std::vector<std::string>& macos_hidden_home_entries();

struct SeatbeltProfile {
  std::string text;
  BudgetCounts filters;  // path filters (literal, subpath, regex) per list (MAC-2)
};

// The profile for a sandboxed plan made with Backend::kSeatbelt. The rules, in the order they
// are written (for one operation and path, Seatbelt applies the last rule that matches):
//   deny everything by default; processes, system information and pseudo-terminals a shell
//   needs; the network only when the plan shares it (NET-3), never loopback alone;
//   read everything (FS-1); write the plan's writable binds, then deny writes to its read-only
//   binds inside them (protected paths, git's auto-run files, cordon's folders), in the plan's
//   own order so a later bind wins as it does under bwrap; hidden paths and a networked
//   command's credential files can be neither read, written nor run; and no writable root, nor
//   a folder on the way to a read-only or hidden path inside one, can be renamed or removed.
// `terminals`: the terminals cordon's own output goes to (ttyname of its standard output and
// error), which the command inherits: it may write there and ask their size, never read them.
SeatbeltProfile render_seatbelt_profile(const Plan& plan, const Facts& facts,
                                        const std::vector<std::string>& terminals = {});

}  // namespace cordon
