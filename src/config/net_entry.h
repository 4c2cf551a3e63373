// One `[network] allow`/`deny` entry and host names as compared (NET-6): the syntax, parsed
// where the config is loaded. Pure: no DNS, no sockets. Matching lives in plan/net_rules.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace cordon {

// One entry of `[network] allow` or `deny`, as parsed.
//   "registry.npmjs.org"      kExact, ports 80 and 443
//   "*.example.com"           kSubdomains (strict: not example.com itself)
//   "**.example.com:8443"     kDomain (example.com and its subdomains), port 8443 only
//   "127.0.0.1:*"             kAddress, any port
struct NetEntry {
  enum class Kind { kExact, kSubdomains, kDomain, kAddress };
  Kind kind = Kind::kExact;
  std::string host;  // lower-case name without trailing dot, or a canonical address
  int port = 0;      // 0: 80 and 443; -1: any port; else that port
  std::string text;  // as written, for messages ("**.github.com")

  bool operator==(const NetEntry&) const = default;
};

// NET-6: one entry, or an error sentence saying what is wrong and how to write it.
// Example: parse_net_entry("*.com") fails ("a wildcard over the public suffix com ...").
Result<NetEntry> parse_net_entry(std::string_view text);

// NET-6: the canonical text of an IP literal, or nothing when `host` is not one. Accepts every
// spelling the C library's resolvers accept for IPv4 ("127.1", "2130706433", "0x7f.0.0.1",
// "0177.0.0.1") and IPv6 with or without brackets; an IPv4-mapped IPv6 address is the IPv4 one.
// Example: canonical_ip("::ffff:127.0.0.1") == "127.0.0.1".
std::optional<std::string> canonical_ip(std::string_view host);

// AUD-3: whether every host and port `narrow` names is also named by `wide` (a credential's
// host must be one the allowlist reaches). Ports: `wide`'s any port covers every one; its
// default (80 and 443) covers the default; else the same port.
// Example: entry_covers(**.npmjs.org, registry.npmjs.org) is true; (api.github.com,
//          **.github.com) is false.
bool entry_covers(const NetEntry& wide, const NetEntry& narrow);

// NET-6, NET-8: a host as a client sent it, made comparable: lower-case, one trailing dot
// removed, an IP literal canonical. Nothing when it is malformed (empty, control characters,
// NUL, `%`, spaces, non-ASCII, a label longer than 63 or a name longer than 253 characters).
std::optional<std::string> normalize_host(std::string_view host);

// A TCP port in decimal, 1 to 65535, digits only ("08" is 8; "+1", "1e3", "" are nothing).
std::optional<int> parse_port(std::string_view text);

}  // namespace cordon
