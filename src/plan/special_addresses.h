// NET-8, SEC-1: IANA's IPv4 and IPv6 Special-Purpose Address Registries as data, the source of
// the proxy's allowlist of addresses (globally reachable unicast only). Pure.
#pragma once

#include <vector>

#include "plan/ip_network.h"

namespace cordon {

// The registry's "Globally Reachable" column. A terminated allocation has the column empty.
enum class Reachable { kTrue, kFalse, kNotApplicable, kTerminated };

// One row: the block, the registry's name and RFC, and whether it is globally reachable.
struct SpecialBlock {
  const char* block;  // "192.0.0.0/24"
  const char* name;   // "IETF Protocol Assignments"
  const char* rfc;    // "RFC 6890"
  Reachable global;
  IpNetwork network() const;
};

// Every row of the IPv4 registry, then every row of the IPv6 one, in the registries' order
// (a row naming two blocks is two rows here).
const std::vector<SpecialBlock>& special_blocks();

// The most specific row whose block holds `a`, or nothing: the registries give a more specific
// row the last word ("192.0.0.0/24: not usable unless by virtue of a more specific
// reservation"; "2001::/23: unless allowed by a more specific allocation").
// Example: special_block_of(192.0.0.9)->name == "Port Control Protocol Anycast" (True), while
//          special_block_of(192.0.0.7)->name == "IPv4 Service Continuity Prefix" (False).
const SpecialBlock* special_block_of(const IpAddress& a);

}  // namespace cordon
