// The rows are IANA's, as published (each block, its name, its RFC and the "Globally Reachable"
// column), from:
//   IANA IPv4 Special-Purpose Address Registry
//     https://www.iana.org/assignments/iana-ipv4-special-registry/iana-ipv4-special-registry.xhtml
//   IANA IPv6 Special-Purpose Address Registry
//     https://www.iana.org/assignments/iana-ipv6-special-registry/iana-ipv6-special-registry.xhtml
// (their CSV forms: .../iana-ipv4-special-registry-1.csv and .../iana-ipv6-special-registry-1.csv;
// this copy has every row up to the IPv6 registry's 100:0:0:1::/64, RFC 9780, 2025-04).
// A new row IANA adds after that is unknown here: a block it marks not globally reachable is
// only refused once it is copied in. Rows are never judged by hand: where the registry says
// True for something that is no ordinary host (192.0.0.9 and 192.0.0.10, the PCP and TURN
// anycast addresses; 2001:1::1..3; AS112; AMT), the registry is followed and the address may be
// reached. "N/A" (Teredo, 6to4) and a terminated row's empty column are not True: refused.
#include "plan/special_addresses.h"

namespace cordon {

namespace {

constexpr Reachable T = Reachable::kTrue;
constexpr Reachable F = Reachable::kFalse;
constexpr Reachable NA = Reachable::kNotApplicable;
constexpr Reachable GONE = Reachable::kTerminated;

const SpecialBlock kRows[] = {
    // IPv4.
    {"0.0.0.0/8", "\"This network\"", "RFC 791", F},
    {"0.0.0.0/32", "\"This host on this network\"", "RFC 1122", F},
    {"10.0.0.0/8", "Private-Use", "RFC 1918", F},
    {"100.64.0.0/10", "Shared Address Space", "RFC 6598", F},
    {"127.0.0.0/8", "Loopback", "RFC 1122", F},
    {"169.254.0.0/16", "Link Local", "RFC 3927", F},
    {"172.16.0.0/12", "Private-Use", "RFC 1918", F},
    {"192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890", F},
    {"192.0.0.0/29", "IPv4 Service Continuity Prefix", "RFC 7335", F},
    {"192.0.0.8/32", "IPv4 dummy address", "RFC 7600", F},
    {"192.0.0.9/32", "Port Control Protocol Anycast", "RFC 7723", T},
    {"192.0.0.10/32", "Traversal Using Relays around NAT Anycast", "RFC 8155", T},
    {"192.0.0.170/32", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050", F},
    {"192.0.0.171/32", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050", F},
    {"192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737", F},
    {"192.31.196.0/24", "AS112-v4", "RFC 7535", T},
    {"192.52.193.0/24", "AMT", "RFC 7450", T},
    {"192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526", GONE},
    {"192.88.99.2/32", "6a44-relay anycast address", "RFC 6751", F},
    {"192.168.0.0/16", "Private-Use", "RFC 1918", F},
    {"192.175.48.0/24", "Direct Delegation AS112 Service", "RFC 7534", T},
    {"198.18.0.0/15", "Benchmarking", "RFC 2544", F},
    {"198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737", F},
    {"203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737", F},
    {"240.0.0.0/4", "Reserved", "RFC 1112", F},
    {"255.255.255.255/32", "Limited Broadcast", "RFC 8190, RFC 919", F},
    // IPv6.
    {"::1/128", "Loopback Address", "RFC 4291", F},
    {"::/128", "Unspecified Address", "RFC 4291", F},
    {"::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291", F},
    {"64:ff9b::/96", "IPv4-IPv6 Translat.", "RFC 6052", T},
    {"64:ff9b:1::/48", "IPv4-IPv6 Translat.", "RFC 8215", F},
    {"100::/64", "Discard-Only Address Block", "RFC 6666", F},
    {"100:0:0:1::/64", "Dummy IPv6 Prefix", "RFC 9780", F},
    {"2001::/23", "IETF Protocol Assignments", "RFC 2928", F},
    {"2001::/32", "TEREDO", "RFC 4380, RFC 8190", NA},
    {"2001:1::1/128", "Port Control Protocol Anycast", "RFC 7723", T},
    {"2001:1::2/128", "Traversal Using Relays around NAT Anycast", "RFC 8155", T},
    {"2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", "RFC 9665", T},
    {"2001:2::/48", "Benchmarking", "RFC 5180", F},
    {"2001:3::/32", "AMT", "RFC 7450", T},
    {"2001:4:112::/48", "AS112-v6", "RFC 7535", T},
    {"2001:10::/28", "Deprecated (previously ORCHID)", "RFC 4843", GONE},
    {"2001:20::/28", "ORCHIDv2", "RFC 7343", T},
    {"2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", "RFC 9374", T},
    {"2001:db8::/32", "Documentation", "RFC 3849", F},
    {"2002::/16", "6to4", "RFC 3056", NA},
    {"2620:4f:8000::/48", "Direct Delegation AS112 Service", "RFC 7534", T},
    {"3fff::/20", "Documentation", "RFC 9637", F},
    {"5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602", F},
    {"fc00::/7", "Unique-Local", "RFC 4193, RFC 8190", F},
    {"fe80::/10", "Link-Local Unicast", "RFC 4291", F},
};

struct Parsed {
  IpNetwork net;
  const SpecialBlock* row;
};

const std::vector<Parsed>& parsed() {
  static const std::vector<Parsed> all = [] {
    std::vector<Parsed> v;
    for (const auto& r : kRows) v.push_back({r.network(), &r});
    return v;
  }();
  return all;
}

}  // namespace

IpNetwork SpecialBlock::network() const { return IpNetwork::parse(block).value_or(IpNetwork{}); }

const std::vector<SpecialBlock>& special_blocks() {
  static const std::vector<SpecialBlock> all(std::begin(kRows), std::end(kRows));
  return all;
}

const SpecialBlock* special_block_of(const IpAddress& a) {
  const Parsed* best = nullptr;
  for (const auto& p : parsed())
    if (p.net.contains(a) && (!best || p.net.bits > best->net.bits)) best = &p;
  return best ? best->row : nullptr;
}

}  // namespace cordon
