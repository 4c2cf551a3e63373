// NET-8, SEC-1: which resolved addresses the proxy may connect to. An allowlist: only
// addresses that IANA's special-purpose registries leave globally reachable unicast
// (plan/special_addresses.h), with an embedded IPv4 address decoded and judged, outside the
// networks of this machine's own interfaces and not a cloud metadata address
// (plan/metadata_addresses.h). Everything else is refused. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/ip_network.h"

namespace cordon {

// One network of this machine's interfaces (host/own_networks.h reads them).
struct OwnNetwork {
  IpNetwork network;      // 192.168.1.0/24: the interface's address and prefix
  std::string interface;  // "eth0"
};

// Why `address` (canonical text) may not be reached, or nothing when it may.
// Examples: "in 10.0.0.0/8 (Private-Use, RFC 1918)"; "fd00:ec2::254 is AWS's instance metadata
// service over IPv6"; "in 192.168.1.0/24, the network of this machine's interface eth0".
std::optional<std::string> refused_address(const std::string& address,
                                           const std::vector<OwnNetwork>& own);

// NET-10: when `host` is an IP literal that is this machine itself (loopback, the unspecified
// address, one of its own interface addresses), the words a question adds; else empty.
std::string own_service_warning(const std::string& host, int port,
                                const std::vector<OwnNetwork>& own);

// NET-11: what `cordon policy` shows under "refused": each block of the registries that is not
// globally reachable, multicast, the IPv6 rule, the metadata addresses, the machine's networks.
const std::vector<std::string>& refused_ranges();

}  // namespace cordon
