// Parsing config.toml into a Policy (CFG-2..4, CMD config, APR config).
#pragma once

#include <string>
#include <string_view>

#include "config/policy.h"
#include "core/result.h"

namespace cordon {

// Parses the TOML text of `file_name`. Errors name the file, the line and the key, and say
// how to fix it (CFG-2). Unknown top-level tables become warnings in Policy::warnings.
Result<Policy> parse_config(std::string_view text, const std::string& file_name);

}  // namespace cordon
