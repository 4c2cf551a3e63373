// The programs of sed and awk given on a command line, judged before they run (CMD-2): the
// argument kinds SEDSCRIPT and AWKPROG of the read-only tables (program_spec.h). Pure and
// conservative: whatever they do not understand is unsafe.
//
//   sed_script_is_safe("1,20p")          // true
//   sed_script_is_safe("s/a/b/w out")    // false: writes a file
//   awk_program_is_safe("{print $1}")     // true
//   awk_program_is_safe("{system(\"id\")}")  // false: runs a command
#pragma once

#include <string_view>

namespace cordon {

// True when a sed script only reads: no w, W, r, R or e commands, no s///w or s///e, nothing
// it does not know.
bool sed_script_is_safe(std::string_view script);
// True when an awk program cannot run commands, write files or read files it was not given.
bool awk_program_is_safe(std::string_view program);

}  // namespace cordon
