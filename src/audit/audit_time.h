// AUD-1: the audit log's times, UTC in ISO 8601 with milliseconds, and back (`cordon log
// --since`). Pure: the caller reads the clock.
//   iso_time(0) == "1970-01-01T00:00:00.000Z"
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cordon {

// UTC time as "2026-12-06T04:22:24.123Z", from milliseconds since the epoch.
std::string iso_time(int64_t unix_ms);
// The milliseconds since the epoch of an iso_time() (or a date "2026-12-06", or with seconds and
// no "Z"); nullopt when it is not one.
std::optional<int64_t> parse_iso_time(const std::string& text);

}  // namespace cordon
