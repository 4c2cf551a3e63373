// A successful start-up probe, kept for this boot (PROBE-1): the file and key are the
// backend's (bwrap: its file and cordon's; Seatbelt: sandbox-exec's), the format is one. Also
// ProbeReport::message, which every backend's report uses.
//
// Example:
//   if (use_cache && load_probe_cache(file, key, r)) return r;   // r.cached == true
//   ...run the checks...;  if (r.ok) save_probe_cache(file, key, r);
#pragma once

#include <string>

#include "launch/linux/probe.h"

namespace cordon {

// True (and `r` filled, cached) when `file` holds a success under exactly `key`.
bool load_probe_cache(const std::string& file, const std::string& key, ProbeReport& r);

void save_probe_cache(const std::string& file, const std::string& key, const ProbeReport& r);

// "dev:ino:size:ctime" of a file, or "missing": a program replaced since the probe changes it.
std::string probe_file_stamp(const std::string& path);

}  // namespace cordon
