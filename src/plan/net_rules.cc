#include "plan/net_rules.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/env.h"
#include "plan/credential_rules.h"

namespace cordon {

namespace {

bool port_matches(int entry_port, int port, bool deny) {
  if (entry_port == -1 || (entry_port == 0 && deny)) return true;
  if (entry_port == 0) return port == 80 || port == 443;
  return entry_port == port;
}

bool ends_with_label(const std::string& host, const std::string& base) {
  return host.size() > base.size() + 1 &&
         host.compare(host.size() - base.size(), base.size(), base) == 0 &&
         host[host.size() - base.size() - 1] == '.';
}

bool entry_matches(const NetEntry& e, const std::string& host, bool literal, int port,
                   bool deny) {
  if (!port_matches(e.port, port, deny)) return false;
  switch (e.kind) {
    case NetEntry::Kind::kAddress:
      return literal && e.host == host;
    case NetEntry::Kind::kExact:
      return !literal && e.host == host;
    case NetEntry::Kind::kSubdomains:
      return !literal && ends_with_label(host, e.host);
    case NetEntry::Kind::kDomain:
      return !literal && (host == e.host || ends_with_label(host, e.host));
  }
  return false;
}

}  // namespace

Result<NetRules> parse_net_rules(const std::vector<std::string>& allow,
                                 const std::vector<std::string>& deny, NetUnknown unknown,
                                 const std::string& config_file) {
  NetRules r;
  r.unknown = unknown;
  r.config_file = config_file;
  for (const auto& a : allow) {
    auto e = parse_net_entry(a);
    if (!e.ok()) return e.error();
    r.allow.push_back(std::move(e).value());
  }
  for (const auto& d : deny) {
    auto e = parse_net_entry(d);
    if (!e.ok()) return e.error();
    r.deny.push_back(std::move(e).value());
  }
  return r;
}

NetVerdict check_host(const NetRules& rules, const std::string& host, int port) {
  const bool literal = canonical_ip(host).has_value();
  for (const auto& e : rules.deny)
    if (entry_matches(e, host, literal, port, true)) return {false, "deny " + e.text, false};
  for (const auto& e : rules.allow)
    if (entry_matches(e, host, literal, port, false))
      return {true, "allow " + e.text, e.kind == NetEntry::Kind::kAddress};
  return {false, "not in allow", false, true};
}

bool address_listed(const NetRules& rules, const std::string& canonical_address, int port) {
  return check_host(rules, canonical_address, port).names_address;
}

std::string refusal_body(const std::string& host_port, const std::string& rule,
                         const std::string& config_file) {
  std::string where = config_file.empty() ? "~/.config/cordon/config.toml" : config_file;
  if (rule.rfind("deny ", 0) == 0)
    return fmt::format(
        "cordon: {} is refused by [network] deny \"{}\" ({}). Ask the user; do "
        "not try to get around the proxy.",
        host_port, rule.substr(5), where);
  if (rule.rfind("address ", 0) == 0)
    return fmt::format(
        "cordon: {} resolves to {}, which sandboxed commands may not reach "
        "unless [network] allow lists that address literally ({}). Ask the "
        "user; do not try to get around the proxy.",
        host_port, rule.substr(8), where);
  if (rule == "malformed")
    return fmt::format(
        "cordon: the proxy could not read this request for {}. Do not try to "
        "get around the proxy.",
        host_port);
  if (rule.rfind("asked: ", 0) == 0)  // NET-10
    return fmt::format(
        "cordon: {} is not in [network] allow, and asking about it got no yes ({}). Do not "
        "retry it or try to get around the proxy; carry on without it, or ask the user to add "
        "it to [network] allow ({}).",
        host_port, rule.substr(7), where);
  if (rule.rfind("too many connections", 0) == 0)
    return fmt::format(
        "cordon: a connection through the proxy was refused: {}. Close connections the "
        "command no longer needs, or run fewer commands at once.",
        rule);
  if (rule == kNoProxyPassword)  // LL-1
    return fmt::format(
        "cordon: a request for {} came to the proxy without its password (the user and "
        "password in HTTPS_PROXY and HTTP_PROXY), and was refused. Use a program that sends a "
        "proxy URL's user and password (curl, git, pip and npm do); do not try to get around "
        "the proxy.",
        host_port);
  if (auto name = placeholder_rule_credential(rule))  // AUD-3
    return placeholder_refusal_body(host_port, *name, config_file);
  if (rule.rfind("unreachable: ", 0) == 0)
    return fmt::format("cordon: {} could not be reached: {}.", host_port, rule.substr(13));
  if (rule.rfind("could not resolve ", 0) == 0)
    return fmt::format("cordon: {} could not be reached: its name could not be resolved.",
                       host_port);
  return fmt::format(
      "cordon: {} is not in [network] allow ({}). Ask the user to add it; do not "
      "try to get around the proxy.",
      host_port, where);
}

std::vector<std::string> refusal_notes(const std::vector<NetConnection>& connections,
                                       const std::string& config_file) {
  std::vector<std::string> out;
  unsigned long long more = 0;  // refused connections past the notes' limit, or aggregated
  for (const auto& c : connections) {
    if (c.allowed) continue;
    if (c.host_port == kOtherHosts || out.size() >= kMaxRefusalNotes) {
      more += c.count;
      continue;
    }
    out.push_back(refusal_body(c.host_port, c.rule, config_file).substr(8) +
                  (c.count > 1 ? fmt::format(" ({} attempts)", c.count) : std::string()));
  }
  if (more > 0)
    out.push_back(fmt::format(
        "{} more connection{} through the proxy {} refused or failed, to hosts not named in "
        "these notes; the result's connections list them.",
        more, more == 1 ? "" : "s", more == 1 ? "was" : "were"));
  return out;
}

unsigned session_connection_limit(unsigned requested, unsigned long long open_files) {
  constexpr unsigned long long kReserve = 128;  // cordon's own files, pipes, the commands'
  const unsigned long long want = requested ? requested : kSessionConnections;
  const unsigned long long room = open_files > kReserve * 2 ? (open_files - kReserve) / 2 : 64;
  return static_cast<unsigned>(std::min(want, room));
}

void set_proxy_variables(EnvMap& env, int port, const std::string& password) {
  const std::string url =
      password.empty() ? fmt::format("http://127.0.0.1:{}", port)
                       : fmt::format("http://{}:{}@127.0.0.1:{}", kProxyUser, password, port);
  for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                           "all_proxy", "npm_config_proxy", "npm_config_https_proxy",
                           "YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "CARGO_HTTP_PROXY"})
    env.set(name, url);
  // No PIP_PROXY: pip reads http(s)_proxy and honours NO_PROXY, but puts PIP_PROXY above
  // NO_PROXY, which would send an index the command serves itself on 127.0.0.1 to the proxy.
  const std::string none = "localhost,127.0.0.1,::1";
  env.set("NO_PROXY", none);
  env.set("no_proxy", none);
  env.set("npm_config_noproxy", none);
  // Node 24+ (and 22.21+) honours the variables for fetch and https when asked to.
  env.set("NODE_USE_ENV_PROXY", "1");
  std::string java = fmt::format(
      "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort={0} -Dhttps.proxyHost=127.0.0.1 "
      "-Dhttps.proxyPort={0}",
      port);
  auto old = env.get("JAVA_TOOL_OPTIONS");
  env.set("JAVA_TOOL_OPTIONS", old && !old->empty() ? *old + " " + java : java);
}

}  // namespace cordon
