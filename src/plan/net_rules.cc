#include "plan/net_rules.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>

#include "core/env.h"

namespace cordon {

namespace {

bool port_matches(int entry_port, int port) {
  if (entry_port == -1) return true;
  if (entry_port == 0) return port == 80 || port == 443;
  return entry_port == port;
}

bool ends_with_label(const std::string& host, const std::string& base) {
  return host.size() > base.size() + 1 &&
         host.compare(host.size() - base.size(), base.size(), base) == 0 &&
         host[host.size() - base.size() - 1] == '.';
}

bool entry_matches(const NetEntry& e, const std::string& host, bool literal, int port) {
  if (!port_matches(e.port, port)) return false;
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

bool in_v4(uint32_t a, const char* net, int bits) {
  in_addr n{};
  inet_pton(AF_INET, net, &n);
  uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
  return (a & mask) == (ntohl(n.s_addr) & mask);
}

bool in_v6(const in6_addr& a, const char* net, int bits) {
  in6_addr n{};
  inet_pton(AF_INET6, net, &n);
  for (int i = 0; i < 16 && bits > 0; ++i, bits -= 8) {
    auto mask = static_cast<unsigned char>(bits >= 8 ? 0xff : 0xff << (8 - bits));
    if ((a.s6_addr[i] & mask) != (n.s6_addr[i] & mask)) return false;
  }
  return true;
}

struct Range {
  const char* net;
  int bits;
  const char* what;
};
constexpr Range kV4Ranges[] = {{"127.0.0.0", 8, "loopback"},
                               {"0.0.0.0", 8, "unspecified"},
                               {"169.254.0.0", 16, "link-local"},
                               {"10.0.0.0", 8, "private"},
                               {"172.16.0.0", 12, "private"},
                               {"192.168.0.0", 16, "private"},
                               {"100.64.0.0", 10, "shared (carrier-grade NAT)"},
                               {"224.0.0.0", 4, "multicast"},
                               {"240.0.0.0", 4, "reserved"}};
constexpr Range kV6Ranges[] = {{"::1", 128, "loopback"},     {"::", 128, "unspecified"},
                               {"fe80::", 10, "link-local"}, {"fc00::", 7, "private"},
                               {"ff00::", 8, "multicast"},   {"2001:db8::", 32, "documentation"}};

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
    if (entry_matches(e, host, literal, port)) return {false, "deny " + e.text, false};
  for (const auto& e : rules.allow)
    if (entry_matches(e, host, literal, port))
      return {true, "allow " + e.text, e.kind == NetEntry::Kind::kAddress};
  return {false, "not in allow", false, true};
}

std::optional<std::string> refused_address(const std::string& address,
                                           const std::vector<std::string>& own) {
  const bool mine = std::find(own.begin(), own.end(), address) != own.end();
  in_addr a4{};
  if (inet_pton(AF_INET, address.c_str(), &a4) == 1) {
    uint32_t a = ntohl(a4.s_addr);
    for (const auto& r : kV4Ranges)
      if (in_v4(a, r.net, r.bits)) return fmt::format("{} ({}/{})", r.what, r.net, r.bits);
    if (mine) return "one of this machine's own addresses";
    return std::nullopt;
  }
  in6_addr a6{};
  if (inet_pton(AF_INET6, address.c_str(), &a6) != 1) return "not an address";
  for (const auto& r : kV6Ranges)
    if (in_v6(a6, r.net, r.bits)) return fmt::format("{} ({}/{})", r.what, r.net, r.bits);
  // NAT64 (64:ff9b::/96) carries an IPv4 address: judged as that address, so a name cannot
  // reach 10.0.0.1 or the metadata address through a NAT64 gateway.
  if (mine) return "one of this machine's own addresses";
  if (in_v6(a6, "64:ff9b::", 96)) {
    char v4[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, a6.s6_addr + 12, v4, sizeof v4);
    if (auto why = refused_address(v4, own)) return fmt::format("NAT64 of {}, {}", v4, *why);
  }
  return std::nullopt;
}

const std::vector<std::string>& refused_ranges() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (const auto& r : kV4Ranges) v.push_back(fmt::format("{}/{} ({})", r.net, r.bits, r.what));
    for (const auto& r : kV6Ranges) v.push_back(fmt::format("{}/{} ({})", r.net, r.bits, r.what));
    v.push_back("this machine's own interface addresses");
    return v;
  }();
  return all;
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
  if (rule == "too many connections")
    return "cordon: this command already has 256 connections open through the proxy.";
  return fmt::format(
      "cordon: {} is not in [network] allow ({}). Ask the user to add it; do not "
      "try to get around the proxy.",
      host_port, where);
}

std::vector<std::string> refusal_notes(const std::vector<NetConnection>& connections,
                                       const std::string& config_file) {
  std::vector<std::string> out;
  for (const auto& c : connections) {
    if (c.allowed) continue;
    out.push_back(refusal_body(c.host_port, c.rule, config_file).substr(8) +
                  (c.count > 1 ? fmt::format(" ({} attempts)", c.count) : std::string()));
  }
  return out;
}

void set_proxy_variables(EnvMap& env, int port) {
  const std::string url = fmt::format("http://127.0.0.1:{}", port);
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
