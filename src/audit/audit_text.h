// AUD-1: the audit log's events as `cordon log` shows them, one line each. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace cordon {

// One event as a line for a person: "2026-12-06T04:22:24.123Z  command_start  #3 ...".
std::string readable_event(const nlohmann::json& event);

}  // namespace cordon
