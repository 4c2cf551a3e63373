#include "core/duration.h"

#include <cctype>
#include <limits>

namespace cordon {

namespace {
std::optional<unsigned long long> parse_uint(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  unsigned long long v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + static_cast<unsigned long long>(c - '0');
  }
  return v;
}
}  // namespace

std::optional<std::chrono::milliseconds> parse_duration(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  auto n = parse_uint(t.substr(0, i));
  if (!n) return std::nullopt;
  std::string_view unit = t.substr(i);
  unsigned long long mult;
  if (unit.empty() || unit == "s")
    mult = 1000;
  else if (unit == "ms")
    mult = 1;
  else if (unit == "m")
    mult = 60'000;
  else if (unit == "h")
    mult = 3'600'000;
  else
    return std::nullopt;
  if (*n > std::numeric_limits<long long>::max() / mult / 2) return std::nullopt;
  return std::chrono::milliseconds(static_cast<long long>(*n * mult));
}

std::optional<unsigned long long> parse_size(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  auto n = parse_uint(t.substr(0, i));
  if (!n) return std::nullopt;
  std::string unit;
  for (char c : t.substr(i)) unit += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  unsigned long long mult;
  if (unit.empty() || unit == "B")
    mult = 1;
  else if (unit == "K" || unit == "KB" || unit == "KIB")
    mult = 1ULL << 10;
  else if (unit == "M" || unit == "MB" || unit == "MIB")
    mult = 1ULL << 20;
  else if (unit == "G" || unit == "GB" || unit == "GIB")
    mult = 1ULL << 30;
  else if (unit == "T" || unit == "TB" || unit == "TIB")
    mult = 1ULL << 40;
  else
    return std::nullopt;
  if (*n > std::numeric_limits<unsigned long long>::max() / mult) return std::nullopt;
  return *n * mult;
}

std::string format_duration(std::chrono::milliseconds d) {
  auto ms = d.count();
  if (ms < 1000) return std::to_string(ms) + " ms";
  if (ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms / 1000) + "." + std::to_string((ms % 1000) / 100) + " s";
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace cordon
