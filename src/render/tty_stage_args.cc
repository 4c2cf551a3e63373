#include "render/tty_stage_args.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <string_view>

namespace cordon {

namespace {

// A whole decimal number from `lo` to `hi`.
std::optional<long> number(const char* s, long lo, long hi) {
  std::string_view v(s);
  long n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || v.empty() || n < lo || n > hi)
    return std::nullopt;
  return n;
}

}  // namespace

std::vector<std::string> tty_stage_prefix(const std::string& exe_path, int exe_fd, int sock_fd,
                                          TtySize size) {
  return {exe_path,
          kTtyStageWord,
          std::to_string(sock_fd),
          std::to_string(exe_fd),
          std::to_string(size.cols),
          std::to_string(size.rows),
          "--"};
}

std::optional<TtyStageArgs> parse_tty_stage_args(int argc, const char* const* argv) {
  if (argc < 8 || std::strcmp(argv[1], kTtyStageWord) != 0 || std::strcmp(argv[6], "--") != 0)
    return std::nullopt;
  auto sock = number(argv[2], 0, 1 << 20);
  auto exe = number(argv[3], 0, 1 << 20);
  auto cols = number(argv[4], 1, kMaxTtySide);
  auto rows = number(argv[5], 1, kMaxTtySide);
  if (!sock || !exe || !cols || !rows || *sock == *exe || argv[7][0] == '\0') return std::nullopt;
  TtyStageArgs a;
  a.sock = static_cast<int>(*sock);
  a.exe = static_cast<int>(*exe);
  a.size = {static_cast<uint16_t>(*cols), static_cast<uint16_t>(*rows)};
  a.command_at = 7;
  return a;
}

std::string tty_size_problem(long cols, long rows) {
  if (cols >= 1 && cols <= kMaxTtySide && rows >= 1 && rows <= kMaxTtySide) return "";
  return fmt::format("a terminal of {} columns and {} rows: give each from 1 to {}.", cols, rows,
                     kMaxTtySide);
}

}  // namespace cordon
