#include "launch/probe_cache.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "sys/fs_util.h"

namespace cordon {

std::string ProbeReport::message() const {
  if (ok) return "the sandbox holds";
  return fmt::format("the sandbox is unavailable: {}. Fix: {}.", cause, fix);
}

bool load_probe_cache(const std::string& file, const std::string& key, ProbeReport& r) {
  // Read whole, then parsed: nlohmann's stream reader takes a character at a time (PERF-1).
  auto text = read_file(file, 1 << 20);
  if (!text.ok()) return false;
  try {
    nlohmann::json j = nlohmann::json::parse(*text);
    if (j.value("key", "") != key || !j.value("ok", false)) return false;
    r.ok = true;
    r.cached = true;
    r.total_ms = j.value("total_ms", 0.0);
    r.bwrap_version = j.value("bwrap_version", "");
    for (const auto& c : j.at("checks")) {
      r.checks.push_back(ProbeCheck{c.value("name", ""), c.value("ok", false), c.value("ms", 0.0),
                                    c.value("detail", "")});
    }
    return true;
  } catch (...) {
    return false;
  }
}

void save_probe_cache(const std::string& file, const std::string& key, const ProbeReport& r) {
  nlohmann::json j;
  j["key"] = key;
  j["ok"] = r.ok;
  j["total_ms"] = r.total_ms;
  j["bwrap_version"] = r.bwrap_version;
  j["checks"] = nlohmann::json::array();
  for (const auto& c : r.checks)
    j["checks"].push_back({{"name", c.name}, {"ok", c.ok}, {"ms", c.ms}, {"detail", c.detail}});
  (void)write_file_atomic(file, j.dump() + "\n", /*sync=*/false);
}

std::string probe_file_stamp(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "missing";
  return fmt::format("{}:{}:{}:{}", st.st_dev, st.st_ino, st.st_size, st.st_ctime);
}

}  // namespace cordon
