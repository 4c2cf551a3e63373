#include "config/net_entry.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include "config/public_suffixes.h"

namespace cordon {

namespace {

// The Public Suffix List's rules, read once from the list compiled in.
const std::unordered_set<std::string_view>& public_suffix_rules() {
  static const std::unordered_set<std::string_view> rules = [] {
    std::unordered_set<std::string_view> out;
    std::string_view all(kPublicSuffixRules);
    for (size_t at = 0; at < all.size();) {
      size_t nl = all.find('\n', at);
      if (nl == std::string_view::npos) nl = all.size();
      if (nl > at) out.insert(all.substr(at, nl - at));
      at = nl + 1;
    }
    return out;
  }();
  return rules;
}

// NET-6: whether `name` (normalized) is a public suffix, by the list's rules: every single
// label ("com", the list's implicit "*"), a listed name ("co.uk", "github.io"), or a name
// under a wildcard rule ("*.ck" makes "foo.ck" one) that no exception ("!www.ck") takes back.
bool is_public_suffix(const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return true;
  const auto& rules = public_suffix_rules();
  if (rules.count(name)) return true;
  if (rules.count("!" + name)) return false;
  return rules.count("*." + name.substr(dot + 1)) > 0;
}

bool hostname_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

// A DNS name: labels of [a-z0-9-_], 1..63 each, 253 in all.
bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  size_t label = 0;
  for (char c : s) {
    if (c == '.') {
      if (label == 0) return false;
      label = 0;
    } else if (hostname_char(c)) {
      if (++label > 63) return false;
    } else {
      return false;
    }
  }
  return label > 0;
}

std::optional<std::string> canonical_v4(std::string_view s) {
  // inet_aton's spellings (decimal, octal, hex parts; 1 to 4 parts), but only when every
  // character could belong to one: glibc's inet_aton stops at a space and accepts the rest.
  if (s.empty() || s.size() > 40) return std::nullopt;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == 'x' ||
          c == 'X' || c == '.'))
      return std::nullopt;
  if (s.front() == '.' || s.back() == '.' || s.find("..") != std::string_view::npos)
    return std::nullopt;
  std::string z(s);
  in_addr a{};
  if (inet_aton(z.c_str(), &a) == 0) return std::nullopt;
  char buf[INET_ADDRSTRLEN];
  if (!inet_ntop(AF_INET, &a, buf, sizeof buf)) return std::nullopt;
  return std::string(buf);
}

std::optional<std::string> canonical_v6(std::string_view s) {
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  if (s.empty() || s.size() > 45 || s.find(':') == std::string_view::npos) return std::nullopt;
  std::string z(s);
  in6_addr a{};
  if (inet_pton(AF_INET6, z.c_str(), &a) != 1) return std::nullopt;
  static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(a.s6_addr, kMapped, 12) == 0) {
    in_addr v4{};
    std::memcpy(&v4, a.s6_addr + 12, 4);
    char buf[INET_ADDRSTRLEN];
    if (!inet_ntop(AF_INET, &v4, buf, sizeof buf)) return std::nullopt;
    return std::string(buf);
  }
  char buf[INET6_ADDRSTRLEN];
  if (!inet_ntop(AF_INET6, &a, buf, sizeof buf)) return std::nullopt;
  return std::string(buf);
}

// "host", "host:443", "host:*", "[::1]:443", "::1" (a bare v6 literal has no port).
struct Split {
  std::string_view host;
  std::optional<std::string_view> port;
};
Split split_port(std::string_view s) {
  if (!s.empty() && s.front() == '[') {
    size_t close = s.find(']');
    if (close != std::string_view::npos && close + 1 < s.size() && s[close + 1] == ':')
      return {s.substr(0, close + 1), s.substr(close + 2)};
    return {s, std::nullopt};
  }
  size_t colon = s.rfind(':');
  if (colon == std::string_view::npos || s.find(':') != colon) return {s, std::nullopt};
  return {s.substr(0, colon), s.substr(colon + 1)};
}

}  // namespace

std::optional<std::string> canonical_ip(std::string_view host) {
  if (auto v4 = canonical_v4(host)) return v4;
  return canonical_v6(host);
}

std::optional<std::string> normalize_host(std::string_view host) {
  if (host.empty() || host.size() > 254) return std::nullopt;
  for (unsigned char c : host)
    if (c < 0x21 || c >= 0x7f || c == '%' || c == '/' || c == '\\' || c == '@') return std::nullopt;
  if (auto ip = canonical_ip(host)) return ip;
  std::string s(host);
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s.back() == '.') s.pop_back();
  // A name whose every label is digits or hex is no name: inet_aton refused it as an address,
  // and a resolver might still read it as one ("127.0.0.1.").
  if (canonical_ip(s)) return canonical_ip(s);
  if (!valid_name(s)) return std::nullopt;
  return s;
}

Result<NetEntry> parse_net_entry(std::string_view text) {
  auto bad = [&](const std::string& why) -> Error {
    return make_error(ErrorKind::kConfig, fmt::format("\"{}\": {}", text, why));
  };
  for (unsigned char c : text)
    if (c >= 0x80)
      return bad("international names are written as punycode (\"xn--...\"), as DNS sees them");
  if (text.find('/') != std::string_view::npos)
    return bad("write a host name only, without a scheme or path (\"registry.npmjs.org\")");
  NetEntry e;
  e.text = std::string(text);
  Split sp = split_port(text);
  if (sp.port) {
    if (*sp.port == "*") {
      e.port = -1;
    } else if (auto p = parse_port(*sp.port)) {
      e.port = *p;
    } else {
      return bad("the port must be a number from 1 to 65535, or * for any port");
    }
  }
  std::string_view h = sp.host;
  if (h == "*" || h == "**" || h == "*." || h == "**.")
    return bad(
        "a wildcard over every host would turn the allowlist off; use --network for one "
        "command instead");
  if (h.rfind("**.", 0) == 0) {
    e.kind = NetEntry::Kind::kDomain;
    h.remove_prefix(3);
  } else if (h.rfind("*.", 0) == 0) {
    e.kind = NetEntry::Kind::kSubdomains;
    h.remove_prefix(2);
  }
  if (h.find('*') != std::string_view::npos)
    return bad(
        "a wildcard is only allowed as a whole first label: \"*.example.com\" (its "
        "subdomains) or \"**.example.com\" (it and its subdomains)");
  bool wildcard = e.kind != NetEntry::Kind::kExact;
  if (auto ip = canonical_ip(h)) {
    if (wildcard) return bad("a wildcard never matches an address; list the address itself");
    e.kind = NetEntry::Kind::kAddress;
    e.host = *ip;
    return e;
  }
  auto n = normalize_host(h);
  if (!n)
    return bad(
        "not a host name: use letters, digits, '-' and '.', such as "
        "\"registry.npmjs.org\", \"**.github.com\" or \"files.example.org:8443\"");
  if (wildcard && is_public_suffix(*n))
    return bad(
        fmt::format("a wildcard over the public suffix \"{}\" covers other people's "
                    "domains; name a domain you mean, such as \"**.example.{}\"",
                    *n, *n));
  e.host = *n;
  return e;
}

std::optional<int> parse_port(std::string_view p) {
  if (p.empty() || p.size() > 5) return std::nullopt;
  int v = 0;
  for (char c : p) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < 1 || v > 65535) return std::nullopt;
  return v;
}

bool entry_covers(const NetEntry& wide, const NetEntry& narrow) {
  const bool port_ok = wide.port == -1 || wide.port == narrow.port;
  if (!port_ok) return false;
  auto below = [](const std::string& host, const std::string& base) {
    return host.size() > base.size() + 1 &&
           host.compare(host.size() - base.size(), base.size(), base) == 0 &&
           host[host.size() - base.size() - 1] == '.';
  };
  using K = NetEntry::Kind;
  switch (wide.kind) {
    case K::kAddress:
    case K::kExact:
      return narrow.kind == wide.kind && narrow.host == wide.host;
    case K::kSubdomains:  // strict subdomains: a name below, or a wildcard below
      return narrow.kind != K::kAddress &&
             (below(narrow.host, wide.host) ||
              (narrow.kind == K::kSubdomains && narrow.host == wide.host));
    case K::kDomain:
      return narrow.kind != K::kAddress &&
             (narrow.host == wide.host || below(narrow.host, wide.host));
  }
  return false;
}

}  // namespace cordon
