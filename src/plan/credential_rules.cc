#include "plan/credential_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/base64.h"
#include "core/strings.h"
#include "plan/http_framing.h"

namespace cordon {

namespace {

// Replaces every `from` in `s` by `to`; how many.
size_t cred_replace_all(std::string& s, const std::string& from, const std::string& to) {
  size_t n = 0;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
    ++n;
  }
  return n;
}

bool cred_contains(std::string_view s, const std::string& what) {
  return !what.empty() && s.find(what) != std::string_view::npos;
}

// "Basic <base64>" decoded ("user:password"), or nothing.
std::optional<std::string> cred_basic_of(std::string_view value) {
  if (value.size() < 6 || to_lower(value.substr(0, 6)) != "basic ") return std::nullopt;
  std::string_view b = value.substr(6);
  while (!b.empty() && b.front() == ' ') b.remove_prefix(1);
  while (!b.empty() && b.back() == ' ') b.remove_suffix(1);
  return base64_decode(b);
}

// The credential whose placeholder a header value carries (raw or in Basic), or nullptr.
const CredentialBinding* cred_carried(std::string_view value,
                                 const std::vector<CredentialBinding>& all) {
  auto decoded = cred_basic_of(value);
  for (const auto& c : all)
    if (cred_contains(value, c.placeholder) || (decoded && cred_contains(*decoded, c.placeholder)))
      return &c;
  return nullptr;
}

// The value with `c`'s placeholder replaced, as `c.send` says; nothing when the placeholder is
// not where that way of sending puts it.
std::optional<std::string> cred_replaced(std::string value, const CredentialBinding& c) {
  auto decoded = cred_basic_of(value);
  if (c.send != CredentialSend::kBasic && cred_contains(value, c.placeholder)) {
    cred_replace_all(value, c.placeholder, c.secret);
    return value;
  }
  if (c.send == CredentialSend::kHeader || !decoded) return std::nullopt;
  const size_t colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string user = decoded->substr(0, colon), password = decoded->substr(colon + 1);
  if (cred_contains(user, c.placeholder)) return std::nullopt;  // only the password carries it
  if (c.send == CredentialSend::kBasic && password != c.placeholder) return std::nullopt;
  cred_replace_all(password, c.placeholder, c.secret);
  return "Basic " + base64_encode(user + ":" + password);
}

bool cred_prefix_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

Result<std::vector<CredentialBinding>> credential_bindings(
    const std::vector<CredentialConfig>& config, const std::vector<std::string>& placeholders,
    const std::vector<std::optional<std::string>>& secrets) {
  std::vector<CredentialBinding> out;
  for (size_t i = 0; i < config.size() && i < placeholders.size() && i < secrets.size(); ++i) {
    if (!secrets[i] || secrets[i]->empty()) continue;
    CredentialBinding b;
    b.name = config[i].name;
    b.send = config[i].send;
    b.header = config[i].send == CredentialSend::kHeader ? to_lower(config[i].header)
                                                         : std::string("authorization");
    b.placeholder = placeholders[i];
    b.secret = *secrets[i];
    for (const auto& h : config[i].hosts) {
      auto e = parse_net_entry(h);
      if (!e.ok()) return e.error();
      b.hosts.push_back(std::move(e).value());
    }
    out.push_back(std::move(b));
  }
  return out;
}

std::string credential_placeholder(std::string_view real, std::string_view random) {
  // The prefix: letters and digits up to the first '_' or '-' within the first 12 characters
  // ("ghp_", "glpat-", "npm_"), and GitHub's two-part "github_pat_".
  std::string prefix;
  if (real.rfind("github_pat_", 0) == 0) {
    prefix = "github_pat_";
  } else {
    size_t i = 0;
    while (i < real.size() && i < 12 && cred_prefix_char(real[i])) ++i;
    if (i > 0 && i < real.size() && i < 12 && (real[i] == '_' || real[i] == '-'))
      prefix = std::string(real.substr(0, i + 1));
    if (real.rfind("sk-ant-", 0) == 0) prefix = "sk-ant-";
  }
  std::string out = prefix + "cordon_" + std::string(random);
  // The real value's length when it is longer (tools may check it), padded from `random`.
  for (size_t k = 0; out.size() < real.size() && !random.empty(); ++k)
    out += random[k % random.size()];
  return out;
}

bool credential_bound_to(const CredentialBinding& c, const std::string& host, int port) {
  const bool literal = canonical_ip(host).has_value();
  for (const auto& e : c.hosts) {
    const bool port_ok = e.port == -1 || (e.port == 0 ? port == 443 : e.port == port);
    if (!port_ok) continue;
    NetEntry asked{literal ? NetEntry::Kind::kAddress : NetEntry::Kind::kExact, host, e.port, ""};
    if (entry_covers(e, asked)) return true;
  }
  return false;
}

bool any_credential_bound_to(const std::vector<CredentialBinding>& all, const std::string& host,
                             int port) {
  return std::any_of(all.begin(), all.end(), [&](const CredentialBinding& c) {
    return credential_bound_to(c, host, port);
  });
}

HeadRewrite rewrite_request_head(std::string_view head, const std::vector<CredentialBinding>& all,
                                 const std::string& host, int port) {
  HeadRewrite r;
  const size_t line_end = head.find("\r\n");
  std::string_view request_line = head.substr(0, line_end);
  for (const auto& c : all)
    if (cred_contains(request_line, c.placeholder)) {  // in the URL: never rewritten
      r.refusal = c.name;
      return r;
    }
  auto fields = header_fields(head);
  if (!fields) {  // the proxy's own parse refuses it first; never forwarded with a placeholder
    r.refusal = placeholder_refusal(head, all, "");
    r.head = std::string(head);
    return r;
  }
  r.head = std::string(request_line) + "\r\n";
  for (const auto& f : *fields) {
    std::string line(f.line);
    if (f.name == "expect") {  // the proxy answers 100 Continue itself
      r.expect_continue = to_lower(f.value) == "100-continue";
      continue;
    }
    if (const CredentialBinding* c = cred_carried(f.value, all)) {
      std::optional<std::string> v;
      if (f.name == c->header && credential_bound_to(*c, host, port)) v = cred_replaced(f.value, *c);
      if (!v || cred_carried(*v, all)) {
        r.refusal = c->name;
        return r;
      }
      line = std::string(f.line.substr(0, f.line.find(':'))) + ": " + *v;
      if (std::find(r.used.begin(), r.used.end(), c->name) == r.used.end())
        r.used.push_back(c->name);
    }
    r.head += line + "\r\n";
  }
  r.head += "\r\n";
  return r;
}

std::optional<std::string> placeholder_refusal(std::string_view head,
                                               const std::vector<CredentialBinding>& all,
                                               const std::string& /*host_port*/) {
  for (const auto& c : all)
    if (cred_contains(head, c.placeholder)) return c.name;
  if (auto fields = header_fields(head))
    for (const auto& f : *fields)
      if (const CredentialBinding* c = cred_carried(f.value, all)) return c->name;
  return std::nullopt;
}

std::string placeholder_rule(const std::string& credential) {
  return fmt::format("placeholder of credential {} (not bound to this host)", credential);
}

std::optional<std::string> placeholder_rule_credential(const std::string& rule) {
  static const std::string head = "placeholder of credential ", tail = " (not bound to this host)";
  if (rule.size() <= head.size() + tail.size() || rule.rfind(head, 0) != 0 ||
      rule.compare(rule.size() - tail.size(), tail.size(), tail) != 0)
    return std::nullopt;
  return rule.substr(head.size(), rule.size() - head.size() - tail.size());
}

std::string placeholder_refusal_body(const std::string& host_port, const std::string& credential,
                                     const std::string& config_file) {
  return fmt::format(
      "cordon: this request to {} carries the placeholder of the credential \"{}\", which "
      "cordon puts on the wire only to the hosts of [credentials.{}] ({}), over https, in the "
      "header it names. The request was not sent. Send it to one of those hosts, or ask the "
      "user to add this host to that entry.",
      host_port, credential, credential,
      config_file.empty() ? std::string("~/.config/cordon/config.toml") : config_file);
}

const std::vector<std::string>& ca_bundle_variables() {
  static const std::vector<std::string> v = {"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS",
                                             "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO",
                                             "CURL_CA_BUNDLE",
                                             // npm's own: Debian's npm names the system bundle
                                             // in its global npmrc, which NODE_EXTRA_CA_CERTS
                                             // does not extend
                                             "npm_config_cafile"};
  return v;
}

}  // namespace cordon
