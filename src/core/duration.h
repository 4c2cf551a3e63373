// Durations as people write them: "30s", "15m", "2h", "500ms", "1h30m" is not accepted.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace cordon {

// Parses `<N>ms`, `<N>s`, `<N>m` or `<N>h` (N a non-negative integer). A bare number is seconds.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);
// Parses byte sizes: `1024`, `512K`, `512M`, `2G` (binary units, optional trailing `B`/`iB`).
std::optional<unsigned long long> parse_size(std::string_view text);
// "1.5 s", "12 ms" for messages.
std::string format_duration(std::chrono::milliseconds d);
// Milliseconds since `t0` on the steady clock (for traces and reports).
double ms_since(std::chrono::steady_clock::time_point t0);

}  // namespace cordon
