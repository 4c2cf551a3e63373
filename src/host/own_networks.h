// NET-8: the networks of this machine's interfaces (each address with its prefix), which the
// proxy refuses: the machine's own subnet and its gateway are not "the internet", whatever
// the registries call their range.
#pragma once

#include <vector>

#include "plan/address_check.h"

namespace cordon {

// Every IPv4 and IPv6 address of every interface, with its netmask as a prefix length and the
// interface's name. Empty when the list cannot be read (the registries still refuse loopback,
// private and link-local ranges).
// Example: {{192.168.1.23/24, "eth0"}, {127.0.0.1/8, "lo"}, {::1/128, "lo"}}.
std::vector<OwnNetwork> own_networks();

}  // namespace cordon
