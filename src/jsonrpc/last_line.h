// The last line a running command printed, for MCP's progress notifications (issue 30 item 4):
// output is added as it comes (only its tail is kept); line() is the last line that holds
// anything, cut to a length a client shows in one line. Not thread-safe.
//
//   LastLine l;
//   l.add("compiling a.c\ncompiling b");
//   l.line();   // "compiling b"
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cordon::rpc {

class LastLine {
 public:
  static constexpr size_t kMaxLength = 200;

  void add(std::string_view data);
  // The last line that is not blank (a "\r" starts a line too: progress bars), without its
  // surrounding blanks, at most kMaxLength bytes (cut at a character, ending in "..."); "" when
  // nothing was printed.
  std::string line() const;

 private:
  std::string tail_;  // the last bytes of the output
};

}  // namespace cordon::rpc
