// NET-8, SEC-1: the proxy connects only to globally reachable unicast addresses by IANA's
// special-purpose registries (embedded IPv4 decoded and judged), outside the machine's own
// networks and the cloud metadata addresses. Table-driven; every registry row is checked.
#include <gtest/gtest.h>

#include "plan/address_check.h"
#include "plan/ip_network.h"
#include "plan/metadata_addresses.h"
#include "plan/special_addresses.h"

namespace cordon {
namespace {

OwnNetwork own(const char* cidr, const char* iface) {
  auto n = IpNetwork::parse(cidr);
  EXPECT_TRUE(n.has_value()) << cidr;
  return {n.value_or(IpNetwork{}), iface};
}

// The last address of a network (its host bits all set).
IpAddress last_of(const IpNetwork& n) {
  IpAddress a = n.base;
  const int width = a.v6 ? 128 : 32;
  for (int bit = n.bits; bit < width; ++bit)
    a.bytes[static_cast<size_t>(bit / 8)] |= static_cast<unsigned char>(0x80 >> (bit % 8));
  return a;
}

// NET-8: every row of both registries parses, and names a network (no host bits set).
TEST(NetAddress, EveryRegistryRowParses) {
  size_t v4 = 0, v6 = 0;
  for (const auto& r : special_blocks()) {
    auto n = IpNetwork::parse(r.block);
    ASSERT_TRUE(n.has_value()) << r.block;
    auto again = IpNetwork::parse(n->text());  // the block has no host bits set
    ASSERT_TRUE(again.has_value()) << r.block;
    EXPECT_EQ(again->base, n->base) << r.block;
    EXPECT_EQ(again->bits, n->bits) << r.block;
    (n->base.v6 ? v6 : v4)++;
  }
  // As published: 25 IPv4 rows (one naming two blocks) and 25 IPv6 rows.
  EXPECT_EQ(v4, 26u);
  EXPECT_EQ(v6, 25u);
  for (const auto& m : metadata_addresses()) {
    auto a = IpAddress::parse(m.address);
    ASSERT_TRUE(a.has_value()) << m.address;
    EXPECT_EQ(a->text(), m.address);
    EXPECT_NE(std::string(m.source).find("https://"), std::string::npos) << m.address;
  }
}

// SEC-1: both ends of every block the registries do not call globally reachable are refused,
// naming the block; both ends of every block they call globally reachable are not refused by
// the registries (the proxy follows them, 192.0.0.9 and 192.0.0.10 included), where the block
// is not inside one refused for another reason.
TEST(NetAddress, EveryRegistryRowDecides) {
  for (const auto& r : special_blocks()) {
    IpNetwork n = r.network();
    for (const IpAddress& a : {n.base, last_of(n)}) {
      auto why = refused_address(a.text(), {});
      if (r.global == Reachable::kTrue) {
        // 64:ff9b::/96 carries IPv4: its ends are 0.0.0.0 and 255.255.255.255.
        if (std::string(r.block) == "64:ff9b::/96") {
          EXPECT_TRUE(why.has_value()) << a.text();
          continue;
        }
        EXPECT_FALSE(why.has_value()) << r.block << " " << a.text() << ": " << why.value_or("");
      } else {
        ASSERT_TRUE(why.has_value()) << r.block << " " << a.text();
      }
    }
  }
}

// NET-8: the attack pass's addresses and others the registries name, with the words each
// refusal holds; and ordinary public addresses, which pass.
TEST(NetAddress, RefusedAndReachable) {
  struct Case {
    const char* addr;
    const char* words;  // nullptr: may be reached
  };
  const Case cases[] = {
      {"127.0.0.1", "in 127.0.0.0/8 (Loopback, RFC 1122)"},
      {"0.0.0.0", "\"This host on this network\""},
      {"0.1.2.3", "0.0.0.0/8"},
      {"10.1.2.3", "Private-Use"},
      {"172.31.255.255", "172.16.0.0/12"},
      {"192.168.1.1", "192.168.0.0/16"},
      {"100.64.0.1", "Shared Address Space"},
      {"169.254.169.254", "metadata"},
      {"169.254.1.1", "Link Local"},
      {"192.0.2.1", "TEST-NET-1"},
      {"198.51.100.7", "TEST-NET-2"},
      {"203.0.113.9", "TEST-NET-3"},
      {"198.18.0.1", "Benchmarking"},
      {"198.19.255.255", "Benchmarking"},
      {"192.0.0.1", "IPv4 Service Continuity Prefix"},
      {"192.0.0.8", "IPv4 dummy address"},
      {"192.0.0.11", "192.0.0.0/24 (IETF Protocol Assignments"},
      {"192.0.0.170", "NAT64/DNS64 Discovery"},
      {"192.0.0.255", "192.0.0.0/24"},
      {"192.88.99.1", "Deprecated (6to4 Relay Anycast)"},
      {"192.88.99.2", "6a44-relay"},
      {"224.0.0.1", "multicast"},
      {"239.255.255.250", "multicast"},
      {"240.0.0.1", "Reserved"},
      {"255.255.255.255", "Limited Broadcast"},
      {"168.63.129.16", "Azure's wire server"},
      {"100.100.100.200", "Alibaba"},
      {"::1", "Loopback Address"},
      {"::", "Unspecified Address"},
      {"::127.0.0.1", "IPv4-compatible form of 127.0.0.1"},
      {"::8.8.8.8", "IPv4-compatible form of 8.8.8.8"},
      {"::ffff:0:127.0.0.1", "IPv4-translated form of 127.0.0.1"},
      {"::ffff:0:8.8.8.8", "IPv4-translated"},
      {"::ffff:127.0.0.1", "IPv4-mapped form of 127.0.0.1, in 127.0.0.0/8 (Loopback"},
      {"::ffff:169.254.169.254", "metadata"},
      {"::ffff:168.63.129.16", "Azure"},
      {"64:ff9b::a9fe:a9fe", "NAT64 form of 169.254.169.254"},
      {"64:ff9b::7f00:1", "NAT64 form of 127.0.0.1"},
      {"64:ff9b::a83f:8110", "NAT64 form of 168.63.129.16, 168.63.129.16 is Azure"},
      {"64:ff9b:1::808:808", "64:ff9b:1::/48"},
      {"64:ff9b:1::7f00:1", "64:ff9b:1::/48"},
      {"2002:7f00:1::", "in 2002::/16 (6to4, RFC 3056), carrying 127.0.0.1"},
      {"2002:808:808::1", "6to4"},
      {"2001::1", "TEREDO"},
      {"2001:0:4136:e378:8000:63bf:3fff:fdd2", "TEREDO"},
      {"2001:2::1", "Benchmarking"},
      {"2001:10::1", "ORCHID"},
      {"2001:db8::1", "2001:db8::/32 (Documentation"},
      {"3fff::1", "3fff::/20 (Documentation"},
      {"5f00::1", "SRv6"},
      {"100::1", "Discard-Only"},
      {"100:0:0:1::1", "Dummy IPv6 Prefix"},
      {"fe80::1", "Link-Local Unicast"},
      {"fc00::1", "Unique-Local"},
      {"fd00:ec2::254", "AWS's instance metadata service over IPv6"},
      {"fd20:ce::254", "Google Cloud"},
      {"fec0::1", "site-local"},
      {"ff02::1", "multicast"},
      {"4000::1", "outside 2000::/3"},
      {"1::1", "outside 2000::/3"},
      // Reachable: ordinary public addresses, and what the registries call globally reachable.
      {"8.8.8.8", nullptr},
      {"104.16.0.35", nullptr},
      {"172.32.0.1", nullptr},
      {"192.0.0.9", nullptr},
      {"192.0.0.10", nullptr},
      {"192.31.196.1", nullptr},
      {"::ffff:8.8.8.8", nullptr},
      {"64:ff9b::808:808", nullptr},
      {"2606:4700::6810:123", nullptr},
      {"2001:4860:4860::8888", nullptr},
      {"2001:1::1", nullptr},
      {"2001:3::1", nullptr},
      {"2001:20::1", nullptr},
      {"2620:4f:8000::1", nullptr},
  };
  for (const auto& c : cases) {
    auto why = refused_address(c.addr, {});
    if (c.words) {
      ASSERT_TRUE(why.has_value()) << c.addr;
      EXPECT_NE(why->find(c.words), std::string::npos) << c.addr << ": " << *why;
    } else {
      EXPECT_FALSE(why.has_value()) << c.addr << ": " << why.value_or("");
    }
  }
  EXPECT_EQ(refused_address("example.com", {}).value_or(""), "not an address");
}

// NET-8: the networks of the machine's interfaces are refused, not only their addresses:
// the machine's public subnet and its gateway, over IPv4, IPv6, mapped and NAT64 forms.
TEST(NetAddress, OwnNetworksAreRefused) {
  const std::vector<OwnNetwork> mine = {
      own("34.120.0.5/20", "eth0"), own("2a01:4f8:1:2::5/64", "eth0"), own("8.8.4.4/0", "odd0")};
  struct Case {
    const char* addr;
    const char* words;
  };
  const Case cases[] = {
      {"34.120.0.5", "in 34.120.0.0/20, the network of this machine's interface eth0"},
      {"34.120.0.1", "34.120.0.0/20"},
      {"34.120.15.255", "34.120.0.0/20"},
      {"::ffff:34.120.0.1", "IPv4-mapped form of 34.120.0.1, in 34.120.0.0/20"},
      {"64:ff9b::2278:1", "NAT64 form of 34.120.0.1"},
      {"2a01:4f8:1:2::1", "2a01:4f8:1:2::/64"},
      {"2a01:4f8:1:2:ffff:ffff:ffff:ffff", "2a01:4f8:1:2::/64"},
      {"8.8.4.4", "odd0"},  // a /0 network counts as its address only
      {"34.120.16.1", nullptr},
      {"2a01:4f8:1:3::1", nullptr},
      {"8.8.8.8", nullptr},
  };
  for (const auto& c : cases) {
    auto why = refused_address(c.addr, mine);
    if (c.words) {
      ASSERT_TRUE(why.has_value()) << c.addr;
      EXPECT_NE(why->find(c.words), std::string::npos) << c.addr << ": " << *why;
    } else {
      EXPECT_FALSE(why.has_value()) << c.addr << ": " << why.value_or("");
    }
  }
}

// NET-10: approving an address that is this machine itself says so; another does not.
TEST(NetAddress, OwnServiceWarning) {
  const std::vector<OwnNetwork> mine = {own("34.120.0.5/20", "eth0")};
  for (const char* host :
       {"127.0.0.1", "127.0.0.2", "0.0.0.0", "::1", "::", "34.120.0.5", "::ffff:127.0.0.1"}) {
    std::string w = own_service_warning(host, 6379, mine);
    EXPECT_NE(w.find("is this machine itself"), std::string::npos) << host << ": " << w;
    EXPECT_NE(w.find("port 6379"), std::string::npos) << host << ": " << w;
  }
  for (const char* host : {"34.120.0.6", "8.8.8.8", "example.com", "2001:db8::1"})
    EXPECT_EQ(own_service_warning(host, 80, mine), "") << host;
}

// NET-11: `cordon policy` lists the refused blocks, the rule for IPv6 and the metadata.
TEST(NetAddress, RefusedRangesForPolicy) {
  std::string all;
  for (const auto& r : refused_ranges()) all += r + "\n";
  for (const char* w : {"169.254.0.0/16 (Link Local, RFC 3927)", "198.18.0.0/15 (Benchmarking",
                        "192.0.0.0/24 (IETF Protocol Assignments", "2001::/32 (TEREDO",
                        "224.0.0.0/4 (multicast", "outside 2000::/3", "168.63.129.16",
                        "fd00:ec2::254", "networks of this machine's own interfaces"})
    EXPECT_NE(all.find(w), std::string::npos) << w << " in\n" << all;
  EXPECT_EQ(all.find("192.0.0.9/32"), std::string::npos) << "a globally reachable row is listed";
}

TEST(NetAddress, IpNetworkParsing) {
  EXPECT_FALSE(IpNetwork::parse("10.0.0.0").has_value());
  EXPECT_FALSE(IpNetwork::parse("10.0.0.0/33").has_value());
  EXPECT_FALSE(IpNetwork::parse("::/129").has_value());
  EXPECT_FALSE(IpNetwork::parse("10.0.0.0/").has_value());
  EXPECT_FALSE(IpNetwork::parse("10.0.0.0/a").has_value());
  EXPECT_FALSE(IpAddress::parse("127.1").has_value()) << "only canonical text";
  EXPECT_EQ(IpNetwork::parse("10.1.2.3/8")->text(), "10.0.0.0/8");
  EXPECT_EQ(IpNetwork::parse("2a01:4f8:1:2::5/64")->text(), "2a01:4f8:1:2::/64");
  EXPECT_TRUE(IpNetwork::parse("0.0.0.0/0")->contains(*IpAddress::parse("8.8.8.8")));
  EXPECT_FALSE(IpNetwork::parse("0.0.0.0/0")->contains(*IpAddress::parse("::1")));
}

}  // namespace
}  // namespace cordon
