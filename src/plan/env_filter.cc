#include "plan/env_filter.h"

#include <algorithm>
#include <cctype>

#include "core/strings.h"
#include "plan/env_rules.h"

namespace cordon {

const std::vector<std::string>& provider_key_names() {
  static const std::vector<std::string> names = {
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "GEMINI_API_KEY",
      "GOOGLE_API_KEY",
      "AZURE_OPENAI_API_KEY",
      "MISTRAL_API_KEY",
      "GROQ_API_KEY",
      "DEEPSEEK_API_KEY",
      "XAI_API_KEY",
      "OPENROUTER_API_KEY",
      "COHERE_API_KEY",
      "HF_TOKEN",
      "TOGETHER_API_KEY",
      "FIREWORKS_API_KEY",
      "ANTHROPIC_AUTH_TOKEN",
      "CLAUDE_CODE_OAUTH_TOKEN",
      "HUGGING_FACE_HUB_TOKEN",
      "REPLICATE_API_TOKEN",
      "PERPLEXITY_API_KEY",
  };
  return names;
}

namespace {

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// `prefix` starts a token at `pos`: nothing token-like right before it.
bool at_boundary(std::string_view v, size_t pos) { return pos == 0 || !is_token_char(v[pos - 1]); }

size_t run_of(std::string_view v, size_t pos, std::string_view allowed) {
  size_t n = 0;
  while (pos + n < v.size() && allowed.find(v[pos + n]) != std::string_view::npos) ++n;
  return n;
}

bool has_shape(std::string_view v, const ValueShape& s) {
  for (size_t pos = v.find(s.prefix); pos != std::string_view::npos;
       pos = v.find(s.prefix, pos + 1)) {
    if (at_boundary(v, pos) && run_of(v, pos + s.prefix.size(), s.tail) >= s.min_tail) return true;
  }
  return false;
}

constexpr std::string_view kBase64Url =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

// header.payload.signature, each base64url; header and payload are JSON objects ("eyJ").
bool has_jwt(std::string_view v) {
  for (size_t pos = v.find("eyJ"); pos != std::string_view::npos; pos = v.find("eyJ", pos + 1)) {
    if (!at_boundary(v, pos)) continue;
    size_t h = run_of(v, pos, kBase64Url);
    size_t dot = pos + h;
    if (h < 10 || dot >= v.size() || v[dot] != '.') continue;
    if (v.substr(dot + 1, 2) != "ey") continue;
    size_t p = run_of(v, dot + 1, kBase64Url);
    if (p >= 10 && dot + 1 + p < v.size() && v[dot + 1 + p] == '.') return true;
  }
  return false;
}

bool has_private_key_block(std::string_view v) {
  size_t begin = v.find("-----BEGIN ");
  return begin != std::string_view::npos && v.find("PRIVATE KEY", begin) != std::string_view::npos;
}

// `password=VALUE` in a query or a connection string (jdbc:...?password=x, Password=x;).
bool has_password_query(std::string_view value) {
  std::string v = to_lower(value);
  for (std::string_view key : password_query_keys()) {
    std::string needle = std::string(key) + "=";
    for (size_t pos = v.find(needle); pos != std::string::npos; pos = v.find(needle, pos + 1)) {
      bool boundary = pos == 0 || std::string_view("?&; ,").find(v[pos - 1]) != std::string::npos;
      size_t after = pos + needle.size();
      bool filled =
          after < v.size() && std::string_view("&;#, ").find(v[after]) == std::string::npos;
      if (boundary && filled) return true;
    }
  }
  return false;
}

bool matches_any(const std::vector<EnvNameRule>& rules, const std::string& upper) {
  for (const auto& r : rules)
    if (glob_match(r.pattern, upper)) return true;
  return false;
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

std::string value_credential(std::string_view v) {
  for (const auto& s : credential_value_shapes())
    if (has_shape(v, s)) return std::string(s.what);
  if (has_private_key_block(v)) return "private key";
  if (has_jwt(v)) return "JSON web token";
  if (value_has_url_password(v)) return "URL with a password";
  if (has_password_query(v)) return "password in a query or connection string";
  return "";
}

bool name_is_credential(std::string_view name, const std::vector<std::string>& extra) {
  std::string upper = to_upper(name);
  if (matches_any(credential_name_rules(), upper)) return true;
  for (const auto& p : extra)
    if (glob_match(to_upper(p), upper)) return true;
  return false;
}

bool name_is_certificate_path(std::string_view name) {
  return matches_any(certificate_name_rules(), to_upper(name));
}

namespace {
// ENV-1's order: providers always; env_pass (external only) next; then a credential-shaped
// value whatever the name; the user's env_hide; certificate paths pass; the name patterns.
bool should_strip(const std::string& name, const std::string& value, const Policy& policy,
                  bool external) {
  const auto& providers = provider_key_names();
  if (std::find(providers.begin(), providers.end(), to_upper(name)) != providers.end())
    return true;  // ENV-3: never passed, not even in external mode
  if (external &&
      std::find(policy.env_pass.begin(), policy.env_pass.end(), name) != policy.env_pass.end())
    return false;  // ENV-3: exact, case-sensitive names only
  if (!value_credential(value).empty()) return true;
  for (const auto& c : policy.credentials)  // AUD-3: a placeholder, or nothing, stands for it
    if (c.env == name) return true;
  std::string upper = to_upper(name);
  for (const auto& p : policy.env_hide)
    if (glob_match(to_upper(p), upper)) return true;
  if (name_is_certificate_path(name)) return false;
  return name_is_credential(name, {});
}
}  // namespace

EnvFilterResult filter_env(const EnvMap& env, const Policy& policy, bool external) {
  EnvFilterResult r;
  for (const auto& [name, value] : env.vars) {
    if (should_strip(name, value, policy, external))
      r.stripped.push_back(name);
    else
      r.kept.vars.emplace_back(name, value);
  }
  return r;
}

}  // namespace cordon
