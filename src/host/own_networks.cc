#include "host/own_networks.h"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <bit>
#include <cstring>

namespace cordon {

namespace {

// The prefix length of a netmask: its leading one bits (a mask with holes, which Linux does
// not make, counts to its first zero: the larger network, refused whole).
int prefix_of(const unsigned char* mask, size_t len) {
  int bits = 0;
  for (size_t i = 0; i < len; ++i) {
    int ones = std::countl_one(mask[i]);
    bits += ones;
    if (ones < 8) break;
  }
  return bits;
}

}  // namespace

std::vector<OwnNetwork> own_networks() {
  std::vector<OwnNetwork> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr) continue;
    OwnNetwork o;
    o.interface = i->ifa_name ? i->ifa_name : "";
    const int family = i->ifa_addr->sa_family;
    if (family == AF_INET) {
      std::memcpy(o.network.base.bytes.data(),
                  &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr, 4);
      o.network.bits = 32;
      if (i->ifa_netmask) {
        const auto* m = reinterpret_cast<const sockaddr_in*>(i->ifa_netmask);
        o.network.bits = prefix_of(reinterpret_cast<const unsigned char*>(&m->sin_addr), 4);
      }
    } else if (family == AF_INET6) {
      o.network.base.v6 = true;
      std::memcpy(o.network.base.bytes.data(),
                  reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr.s6_addr, 16);
      o.network.bits = 128;
      if (i->ifa_netmask)
        o.network.bits =
            prefix_of(reinterpret_cast<const sockaddr_in6*>(i->ifa_netmask)->sin6_addr.s6_addr, 16);
    } else {
      continue;
    }
    out.push_back(std::move(o));
  }
  freeifaddrs(list);
  return out;
}

}  // namespace cordon
