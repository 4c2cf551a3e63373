// NET-8: the cloud providers' metadata and platform addresses, refused by name even where they
// lie in public space (Azure's wire server, 168.63.129.16), so a name that resolves to one is
// refused with a reason a person recognises. Pure data, each entry with its source.
#pragma once

#include <vector>

#include "plan/ip_network.h"

namespace cordon {

struct MetadataAddress {
  const char* address;  // canonical
  const char* what;     // "Azure's wire server"
  const char* source;   // the provider's documentation
};

const std::vector<MetadataAddress>& metadata_addresses();

// The entry for `a`, or nothing. An IPv4 address is compared as itself (an embedded one is
// decoded by the caller).
const MetadataAddress* metadata_address_of(const IpAddress& a);

}  // namespace cordon
