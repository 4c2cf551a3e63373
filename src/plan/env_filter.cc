#include "plan/env_filter.h"

#include <algorithm>
#include <cctype>

#include "core/strings.h"

namespace cordon {

const std::vector<std::string>& provider_key_names() {
  static const std::vector<std::string> names = {
      "ANTHROPIC_API_KEY", "OPENAI_API_KEY",    "GEMINI_API_KEY",    "GOOGLE_API_KEY",
      "AZURE_OPENAI_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY",     "DEEPSEEK_API_KEY",
      "XAI_API_KEY",       "OPENROUTER_API_KEY", "COHERE_API_KEY",   "HF_TOKEN",
      "TOGETHER_API_KEY",  "FIREWORKS_API_KEY",  "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
      "HUGGING_FACE_HUB_TOKEN", "REPLICATE_API_TOKEN", "PERPLEXITY_API_KEY",
  };
  return names;
}

namespace {
// ENV-1's name patterns, matched case-insensitively against the upper-cased name.
const std::vector<std::string>& credential_patterns() {
  static const std::vector<std::string> p = {
      "*TOKEN*", "*SECRET*", "*_KEY",  "*CREDENTIAL*", "*PASSWORD*", "*PASSWD*",
      "*_PASS",  "*_AUTH",   "*_AUTH_*", "*COOKIE*",   "AWS_*",      "SSH_AUTH_SOCK",
      "GPG_AGENT_INFO",
  };
  return p;
}
}  // namespace

bool value_has_url_password(std::string_view v) {
  size_t pos = 0;
  while ((pos = v.find("://", pos)) != std::string_view::npos) {
    // The scheme must be letters, digits, '+', '-', '.' starting with a letter.
    size_t s = pos;
    while (s > 0) {
      char c = v[s - 1];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.')
        --s;
      else
        break;
    }
    bool scheme_ok = s < pos && std::isalpha(static_cast<unsigned char>(v[s]));
    size_t auth_start = pos + 3;
    size_t auth_end = v.find_first_of("/?# \t\n", auth_start);
    if (auth_end == std::string_view::npos) auth_end = v.size();
    std::string_view authority = v.substr(auth_start, auth_end - auth_start);
    size_t at = authority.rfind('@');
    if (scheme_ok && at != std::string_view::npos) {
      std::string_view userinfo = authority.substr(0, at);
      size_t colon = userinfo.find(':');
      if (colon != std::string_view::npos && colon + 1 < userinfo.size()) return true;
    }
    pos += 3;
  }
  return false;
}

bool name_is_credential(std::string_view name, const std::vector<std::string>& extra) {
  std::string upper = to_upper(name);
  for (const auto& p : credential_patterns())
    if (glob_match(p, upper)) return true;
  for (const auto& p : extra)
    if (glob_match(to_upper(p), upper)) return true;
  return false;
}

EnvFilterResult filter_env(const EnvMap& env, const Policy& policy, bool external) {
  EnvFilterResult r;
  const auto& providers = provider_key_names();
  for (const auto& [name, value] : env.vars) {
    bool provider = std::find(providers.begin(), providers.end(), to_upper(name)) != providers.end();
    bool strip;
    if (provider) {
      strip = true;  // ENV-3: never passed, not even in external mode
    } else if (external && std::find(policy.env_pass.begin(), policy.env_pass.end(), name) !=
                               policy.env_pass.end()) {
      strip = false;  // ENV-3: exact, case-sensitive names only
    } else {
      strip = name_is_credential(name, policy.env_hide) || value_has_url_password(value);
    }
    if (strip)
      r.stripped.push_back(name);
    else
      r.kept.vars.emplace_back(name, value);
  }
  return r;
}

}  // namespace cordon
