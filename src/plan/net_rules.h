// The domain allowlist (NET-6, NET-8): matching a host and port against the parsed entries,
// and judging a resolved address. Pure: no DNS, no sockets.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/net_entry.h"
#include "plan/address_check.h"
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
// `host` must be normalized (normalize_host). An allow entry without a port covers 80 and 443;
// a deny entry without a port covers every port of its hosts (what is denied stays denied).
NetVerdict check_host(const NetRules& rules, const std::string& host, int port);

// NET-8's exception: an allow entry names `canonical_address` itself (and no deny entry covers
// it) for `port`, so a name that resolves to it may be reached there even when the address is
// outside global unicast (a company mirror on 10.x, a split-horizon resolver): the user listed
// that address as reachable.
bool address_listed(const NetRules& rules, const std::string& canonical_address, int port);

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

// NET-9: the result's list is bounded: the first kMaxConnectionEntries host:ports each have
// an entry; every later one is counted in one last entry named kOtherHosts (connections, bytes,
// refused when any of them was), so 50,000 refused names cost one entry, not 50,000.
constexpr size_t kMaxConnectionEntries = 100;
inline constexpr const char* kOtherHosts = "(other hosts)";
// The entry of the connections refused at once for the limit of NET-8 (no host is read).
inline constexpr const char* kOverTheLimit = "(over the connection limit)";

// NET-9: one note per refused host, naming the rule and the fix; past kMaxRefusalNotes hosts
// (and for kOtherHosts) one note counts the rest.
constexpr size_t kMaxRefusalNotes = 20;
std::vector<std::string> refusal_notes(const std::vector<NetConnection>& connections,
                                       const std::string& config_file);

// NET-7: the proxy variables every tool reads, pointing at the proxy on `port`. LL-1: with a
// `password` (the proxy on the machine's shared loopback asks for one), the URLs carry it as
// http://cordon:PASSWORD@127.0.0.1:PORT.
struct EnvMap;
void set_proxy_variables(EnvMap& env, int port, const std::string& password = "");

// LL-1: the user name in the proxy's URL when it asks for a password, and the rule of a
// request that came without it (the connections list and the note name it).
inline constexpr const char* kProxyUser = "cordon";
inline constexpr const char* kNoProxyPassword = "no proxy password";

// NET-8: the connections one session's commands may hold through their proxies at once:
// `requested` (0: kSessionConnections), and never more than half the descriptors left under
// cordon's open-files limit (each connection is two descriptors in cordon).
// Example: session_connection_limit(0, 1048576) == 512; session_connection_limit(0, 1024) == 448.
constexpr unsigned kSessionConnections = 512;
unsigned session_connection_limit(unsigned requested, unsigned long long open_files);

// NET-7: the port the proxy answers on inside every sandbox's own network namespace (each
// sandbox has its own loopback, so one fixed port never collides with another command's).
constexpr int kProxyPort = 3128;

}  // namespace cordon
