// Environment stripping (ENV-1..3).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/policy.h"
#include "core/env.h"

namespace cordon {

struct EnvFilterResult {
  EnvMap kept;
  std::vector<std::string> stripped;  // names, in the order they appeared
};

// The model providers' key variables, always removed (ENV-1, ENV-3).
const std::vector<std::string>& provider_key_names();
// True when the value holds a URL with a password (scheme://user:pass@host).
bool value_has_url_password(std::string_view value);
// True when the name matches ENV-1's patterns or `extra_patterns` (case-insensitive).
bool name_is_credential(std::string_view name, const std::vector<std::string>& extra_patterns);

// ENV-1, plus ENV-3's env_pass when `external` is true (env_pass is ignored otherwise, ENV-2).
EnvFilterResult filter_env(const EnvMap& env, const Policy& policy, bool external);

}  // namespace cordon
