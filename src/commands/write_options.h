// Arguments that make a program on the read-only list write, run something, or otherwise stop
// being read-only (CMD-2): `sort -o`, `find -delete`, `git branch -D`, `sed -i`, `awk 'system()'`.
// Pure. Conservative: an argument that could write counts as writing.
//
//   write_option("sort", {"-u", "-o", "out.txt", "in.txt"});
//   // {"-o", "writes its output to a file"}
//   write_option("git", {"branch", "--list"});   // nullopt
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

struct WriteOption {
  std::string word;  // the argument concerned
  std::string why;   // "writes its output to a file"
};

// `args` are the arguments after the program name (for git: after its global options, so
// args[0] is the subcommand).
std::optional<WriteOption> write_option(std::string_view program,
                                        const std::vector<std::string>& args);

// True when a sed script only reads: no w, W, r, R or e commands, no s///w or s///e, nothing
// it does not know. Exposed for tests.
bool sed_script_is_safe(std::string_view script);
// True when an awk program cannot run commands, write files or read files it was not given.
bool awk_program_is_safe(std::string_view program);

}  // namespace cordon
