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
// What kind of credential the value holds whatever its name (a well-known token shape, a
// private key block, a JWT, a URL with a password, a `password=` query), or empty when none:
//   value_credential("Bearer ghp_...36 chars") == "GitHub personal token"
std::string value_credential(std::string_view value);
// True when the name matches ENV-1's patterns or `extra_patterns` (case-insensitive).
bool name_is_credential(std::string_view name, const std::vector<std::string>& extra_patterns);
// True when the name holds a certificate-bundle path (SSL_CERT_FILE, *_CA_BUNDLE): not a secret.
bool name_is_certificate_path(std::string_view name);

// ENV-1, plus ENV-3's env_pass when `external` is true (env_pass is ignored otherwise, ENV-2).
EnvFilterResult filter_env(const EnvMap& env, const Policy& policy, bool external);

}  // namespace cordon
