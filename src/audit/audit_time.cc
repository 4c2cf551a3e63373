#include "audit/audit_time.h"

#include <fmt/format.h>

#include <cstdio>

namespace cordon {

namespace {

// Days since 1970-01-01 of a civil date, and back (H. Hinnant's algorithms).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

std::string iso_time(int64_t unix_ms) {
  const int64_t days = floor_div(unix_ms, 86400000);
  const int64_t rest = unix_ms - days * 86400000;
  int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", y, m, d, rest / 3600000,
                     rest / 60000 % 60, rest / 1000 % 60, rest % 1000);
}

std::optional<int64_t> parse_iso_time(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0, n = 0;
  const int got = std::sscanf(text.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n);
  if (got != 3 || mo < 1 || mo > 12 || d < 1 || d > 31) return std::nullopt;
  std::string rest = text.substr(static_cast<size_t>(n));
  if (!rest.empty()) {
    if (rest[0] != 'T' && rest[0] != ' ') return std::nullopt;
    int k = 0;
    if (std::sscanf(rest.c_str() + 1, "%2d:%2d%n", &h, &mi, &k) != 2) return std::nullopt;
    rest = rest.substr(1 + static_cast<size_t>(k));
    if (!rest.empty() && rest[0] == ':') {
      if (std::sscanf(rest.c_str() + 1, "%2d%n", &s, &k) != 1) return std::nullopt;
      rest = rest.substr(1 + static_cast<size_t>(k));
    }
    if (!rest.empty() && rest[0] == '.') {
      if (std::sscanf(rest.c_str() + 1, "%3d%n", &ms, &k) != 1) return std::nullopt;
      rest = rest.substr(1 + static_cast<size_t>(k));
    }
    if (rest == "Z") rest.clear();
    if (!rest.empty() || h > 23 || mi > 59 || s > 60) return std::nullopt;
  }
  const int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return ((days * 24 + h) * 60 + mi) * 60000 + s * 1000 + ms;
}

}  // namespace cordon
