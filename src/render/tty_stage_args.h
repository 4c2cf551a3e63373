// JOB-3: the words of the terminal stage, the first stage that runs inside the sandbox before a
// `tty: true` command (`<cordon> __tty-stage <unix fd> <exe fd> <cols> <rows> -- command...`,
// run by launch/linux/tty_stage.cc), and the sizes a request may ask for. Pure: the words are
// made here for the launcher and read back here by the stage.
//
//   tty_stage_prefix("/proc/self/fd/9", 9, 8, {100, 30})
//     == {"/proc/self/fd/9", "__tty-stage", "8", "9", "100", "30", "--"}
//   parse_tty_stage_args(argv) -> {sock 8, exe 9, size 100x30, command at argv[7]}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cordon {

inline constexpr const char* kTtyStageWord = "__tty-stage";

// A terminal's size in character cells.
struct TtySize {
  uint16_t cols = 80;
  uint16_t rows = 24;
  bool operator==(const TtySize&) const = default;
};

// The largest side a request may ask for (a window size beyond it is a mistake, not a screen).
inline constexpr long kMaxTtySide = 10000;

// The stage's words before the command's own: run from cordon's binary at `exe_path` (its
// descriptor `exe_fd`, inherited by the sandbox), told the socket `sock_fd` to send the
// terminal over.
std::vector<std::string> tty_stage_prefix(const std::string& exe_path, int exe_fd, int sock_fd,
                                          TtySize size);

struct TtyStageArgs {
  int sock = -1;
  int exe = -1;
  TtySize size;
  int command_at = 0;  // the index in argv of the command's first word
};

// `cordon __tty-stage SOCK EXE COLS ROWS -- command...`; nullopt when the words are not the
// stage's (a number that is not one, a size out of range, no `--`, no command).
std::optional<TtyStageArgs> parse_tty_stage_args(int argc, const char* const* argv);

// What is wrong with a size a request asks for ("" when nothing): each side from 1 to
// kMaxTtySide.
std::string tty_size_problem(long cols, long rows);

}  // namespace cordon
