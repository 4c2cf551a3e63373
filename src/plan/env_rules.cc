#include "plan/env_rules.h"

namespace cordon {

namespace {
constexpr std::string_view kToken =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
constexpr std::string_view kAlnum =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr std::string_view kUpperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
}  // namespace

const std::vector<EnvNameRule>& credential_name_rules() {
  static const std::vector<EnvNameRule> rules = {
      // ENV-1: the specification's own patterns, from here to GPG_AGENT_INFO.
      {"*TOKEN*", "a token (GITHUB_TOKEN)"},
      {"*SECRET*", "a secret (AWS_SECRET_ACCESS_KEY)"},
      {"*_KEY", "a key (OPENAI_API_KEY)"},
      {"*CREDENTIAL*", "a credential"},
      {"*PASSWORD*", "a password"},
      {"*PASSWD*", "a password"},
      {"*_PASS", "a password (SMTP_PASS)"},
      {"*_AUTH", "an auth value (NPM_AUTH)"},
      {"*_AUTH_*", "an auth value (NPM_AUTH_TOKEN)"},
      {"*COOKIE*", "a cookie"},
      {"AWS_*", "AWS settings and keys"},
      {"SSH_AUTH_SOCK", "the SSH agent's socket"},
      {"GPG_AGENT_INFO", "the GPG agent's socket"},
      {"*PASSPHRASE*", "a passphrase (MYSQL_PWD-style names, issue 13)"},
      {"*_PWD", "a password (MYSQL_PWD); PWD and OLDPWD are not matched"},
      {"*_PW", "a password (DB_PW)"},
      {"*PRIVATE_KEY*", "a private key (PRIVATE_KEY_PEM)"},
      {"*PRIVATEKEY*", "a private key"},
      {"*APIKEY*", "an API key without an underscore (MY_APIKEY)"},
      {"*API_KEY*", "an API key (API_KEY_FILE holds one too)"},
      {"*ACCESS_KEY*", "an access key (MINIO_ACCESS_KEY_ID)"},
      {"*WEBHOOK*", "a webhook URL is its own credential (SLACK_WEBHOOK_URL)"},
  };
  return rules;
}

const std::vector<EnvNameRule>& certificate_name_rules() {
  static const std::vector<EnvNameRule> rules = {
      {"*_CA_BUNDLE", "certificate bundle path"}, {"*_CA_CERTS", "certificate bundle path"},
      {"*_CA_CERT", "certificate path"},          {"*_CA_FILE", "certificate path"},
      {"*_CA_PATH", "certificate folder"},        {"SSL_CERT_FILE", "OpenSSL's bundle"},
      {"SSL_CERT_DIR", "OpenSSL's folder"},       {"NODE_EXTRA_CA_CERTS", "Node's extra CAs"},
      {"REQUESTS_CA_BUNDLE", "Python requests"},  {"CURL_CA_BUNDLE", "curl"},
      {"GIT_SSL_CAINFO", "git's bundle"},         {"GIT_SSL_CAPATH", "git's folder"},
  };
  return rules;
}

const std::vector<ValueShape>& credential_value_shapes() {
  static const std::vector<ValueShape> shapes = {
      {"sk_live_", 10, kAlnum, "Stripe live secret key"},
      {"sk_test_", 10, kAlnum, "Stripe test secret key"},
      {"rk_live_", 10, kAlnum, "Stripe restricted key"},
      {"rk_test_", 10, kAlnum, "Stripe restricted test key"},
      {"whsec_", 20, kAlnum, "Stripe webhook secret"},
      {"sk-ant-", 20, kToken, "Anthropic key"},
      {"sk-proj-", 20, kToken, "OpenAI project key"},
      {"sk-", 40, kAlnum, "OpenAI key"},
      {"ghp_", 30, kAlnum, "GitHub personal token"},
      {"gho_", 30, kAlnum, "GitHub OAuth token"},
      {"ghu_", 30, kAlnum, "GitHub user token"},
      {"ghs_", 30, kAlnum, "GitHub app token"},
      {"ghr_", 30, kAlnum, "GitHub refresh token"},
      {"github_pat_", 22, kToken, "GitHub fine-grained token"},
      {"glpat-", 20, kToken, "GitLab personal token"},
      {"gldt-", 20, kToken, "GitLab deploy token"},
      {"glrt-", 20, kToken, "GitLab runner token"},
      {"xoxb-", 10, kToken, "Slack bot token"},
      {"xoxp-", 10, kToken, "Slack user token"},
      {"xoxa-", 10, kToken, "Slack app token"},
      {"xoxr-", 10, kToken, "Slack refresh token"},
      {"xoxs-", 10, kToken, "Slack session token"},
      {"xoxe-", 10, kToken, "Slack token"},
      {"xapp-", 10, kToken, "Slack app-level token"},
      {"AKIA", 16, kUpperAlnum, "AWS access key id"},
      {"ASIA", 16, kUpperAlnum, "AWS temporary access key id"},
      {"AIza", 35, kToken, "Google API key"},
      {"ya29.", 20, kToken, "Google OAuth token"},
      {"npm_", 36, kAlnum, "npm token"},
      {"pypi-", 50, kToken, "PyPI token"},
      {"hf_", 30, kAlnum, "Hugging Face token"},
      {"shpat_", 32, kAlnum, "Shopify token"},
      {"dop_v1_", 64, kAlnum, "DigitalOcean token"},
      {"AGE-SECRET-KEY-1", 50, kUpperAlnum, "age secret key"},
  };
  return shapes;
}

const std::vector<std::string_view>& password_query_keys() {
  static const std::vector<std::string_view> keys = {
      "password", "passwd", "pwd", "pass", "secret", "token", "apikey", "api_key", "access_token"};
  return keys;
}

}  // namespace cordon
