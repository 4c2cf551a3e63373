// The domain allowlist (NET-6, NET-8): matching a host and port against the parsed entries,
// and judging a resolved address. Pure: no DNS, no sockets.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/net_entry.h"
#include "core/result.h"

namespace cordon {

// NET-10: what happens to a host no entry allows.
enum class NetUnknown { kRefuse, kAsk };

// The whole allowlist, parsed.
struct NetRules {
  std::vector<NetEntry> allow, deny;
  NetUnknown unknown = NetUnknown::kRefuse;
  std::string config_file;  // as shown ("~/.config/cordon/config.toml")
  bool empty() const { return allow.empty(); }
};

// Parses the written lists; the first bad entry is an error naming it.
Result<NetRules> parse_net_rules(const std::vector<std::string>& allow,
                                 const std::vector<std::string>& deny, NetUnknown unknown,
                                 const std::string& config_file);

// What the lists say about one host and port (NET-8, steps deny then allow).
struct NetVerdict {
  bool allowed = false;
  std::string rule;            // "allow registry.npmjs.org", "deny **.example.org", "not in allow"
  bool names_address = false;  // the allowing entry is the address itself (NET-8 exception)
  bool unlisted = false;       // no entry names it: unknown = "ask" may ask (NET-10)
};
// `host` must be normalized (normalize_host).
NetVerdict check_host(const NetRules& rules, const std::string& host, int port);

// NET-8: why a resolved address may not be reached ("loopback (127.0.0.0/8)"), or nothing.
// `own` lists the machine's own interface addresses, canonical.
std::optional<std::string> refused_address(const std::string& canonical_address,
                                           const std::vector<std::string>& own);

// The refused ranges, for `cordon policy` (NET-11).
const std::vector<std::string>& refused_ranges();

// NET-9: the body and header value of a refusal, and the note, once per host. `rule` is a
// NetVerdict's, an address's ("address ..."), or a question's ("asked: refused (away)").
std::string refusal_body(const std::string& host_port, const std::string& rule,
                         const std::string& config_file);

// NET-9: one host a command reached or was refused, as its result lists it.
struct NetConnection {
  std::string host_port;  // "registry.npmjs.org:443"
  bool allowed = false;
  std::string rule;                  // "allow registry.npmjs.org", "not in allow", "address ..."
  unsigned long long bytes_out = 0;  // from the command to the host
  unsigned long long bytes_in = 0;   // from the host to the command
  unsigned count = 0;                // connections made or refused
};

// NET-9: one note per refused host, naming the rule and the fix.
std::vector<std::string> refusal_notes(const std::vector<NetConnection>& connections,
                                       const std::string& config_file);

// NET-7: the proxy variables every tool reads, pointing at the proxy on `port`.
struct EnvMap;
void set_proxy_variables(EnvMap& env, int port);

// NET-7: the port the proxy answers on inside every sandbox's own network namespace (each
// sandbox has its own loopback, so one fixed port never collides with another command's).
constexpr int kProxyPort = 3128;

}  // namespace cordon
