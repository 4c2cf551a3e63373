#include "plan/address_check.h"

#include <fmt/format.h>

#include "plan/metadata_addresses.h"
#include "plan/special_addresses.h"

namespace cordon {

namespace {

struct Forms {
  IpNetwork mapped = *IpNetwork::parse("::ffff:0:0/96");
  IpNetwork compatible = *IpNetwork::parse("::/96");
  IpNetwork translated = *IpNetwork::parse("::ffff:0:0:0/96");
  IpNetwork nat64 = *IpNetwork::parse("64:ff9b::/96");
  IpNetwork six_to_four = *IpNetwork::parse("2002::/16");
  IpNetwork v4_multicast = *IpNetwork::parse("224.0.0.0/4");
  IpNetwork v6_multicast = *IpNetwork::parse("ff00::/8");
  IpNetwork site_local = *IpNetwork::parse("fec0::/10");
  IpNetwork global_unicast = *IpNetwork::parse("2000::/3");
  IpNetwork loopback4 = *IpNetwork::parse("127.0.0.0/8");
  IpNetwork this_network4 = *IpNetwork::parse("0.0.0.0/8");
};

const Forms& forms() {
  static const Forms f;
  return f;
}

std::string row_text(const SpecialBlock& r) {
  return fmt::format("in {} ({}, {})", r.block, r.name, r.rfc);
}

std::optional<std::string> judge(const IpAddress& a, const std::vector<OwnNetwork>& own);

// NET-8: an IPv6 address that carries an IPv4 one. Mapped and NAT64 (64:ff9b::/96, which the
// registry calls globally reachable) reach the IPv4 address: judged as it. The deprecated
// forms are refused outright, naming what they carry: IPv4-compatible (::a.b.c.d),
// IPv4-translated (::ffff:0:a.b.c.d) and 6to4 (2002::/16, "N/A" in the registry).
// `embedded` is set when `a` is one of these forms.
std::optional<std::string> judge_embedded(const IpAddress& a, const std::vector<OwnNetwork>& own,
                                          bool* embedded) {
  const Forms& f = forms();
  *embedded = true;
  if (f.mapped.contains(a) || f.nat64.contains(a)) {
    IpAddress v4 = a.low_v4();
    if (auto why = judge(v4, own))
      return fmt::format("the {} form of {}, {}", f.mapped.contains(a) ? "IPv4-mapped" : "NAT64",
                         v4.text(), *why);
    return std::nullopt;
  }
  if (f.translated.contains(a))
    return fmt::format("the IPv4-translated form of {}, in ::ffff:0:0:0/96 (RFC 2765)",
                       a.low_v4().text());
  if (f.six_to_four.contains(a))
    return fmt::format("in 2002::/16 (6to4, RFC 3056), carrying {}", a.v4_at(2).text());
  // :: and ::1 are rows of their own, judged by the registries.
  if (f.compatible.contains(a) && !special_block_of(a))
    return fmt::format("the IPv4-compatible form of {}, in ::/96 (deprecated by RFC 4291)",
                       a.low_v4().text());
  *embedded = false;
  return std::nullopt;
}

std::optional<std::string> judge_registries(const IpAddress& a) {
  const Forms& f = forms();
  if (!a.v6 && f.v4_multicast.contains(a)) return "in 224.0.0.0/4 (multicast, RFC 5771)";
  if (const SpecialBlock* row = special_block_of(a); row && row->global != Reachable::kTrue)
    return row_text(*row);
  if (!a.v6) return std::nullopt;
  if (f.v6_multicast.contains(a)) return "in ff00::/8 (multicast, RFC 4291)";
  if (f.site_local.contains(a)) return "in fec0::/10 (site-local, deprecated by RFC 3879)";
  if (!f.global_unicast.contains(a) && !f.nat64.contains(a))
    return "outside 2000::/3, the global unicast range (RFC 4291)";
  return std::nullopt;
}

// An interface network of /0 would be every address: only the interface's own address counts.
bool in_own(const OwnNetwork& o, const IpAddress& a) {
  if (o.network.bits == 0) return o.network.base == a;
  return o.network.contains(a);
}

std::optional<std::string> judge(const IpAddress& a, const std::vector<OwnNetwork>& own) {
  if (const MetadataAddress* m = metadata_address_of(a))
    return fmt::format("{} is {}", m->address, m->what);
  bool embedded = false;
  if (a.v6)
    if (auto why = judge_embedded(a, own, &embedded); why || embedded) return why;
  if (auto why = judge_registries(a)) return why;
  for (const auto& o : own)
    if (in_own(o, a))
      return fmt::format("in {}, the network of this machine's interface {}", o.network.text(),
                         o.interface.empty() ? std::string("(unnamed)") : o.interface);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> refused_address(const std::string& address,
                                           const std::vector<OwnNetwork>& own) {
  auto a = IpAddress::parse(address);
  if (!a) return "not an address";
  return judge(*a, own);
}

std::string own_service_warning(const std::string& host, int port,
                                const std::vector<OwnNetwork>& own) {
  auto a = IpAddress::parse(host);
  if (!a) return "";
  const Forms& f = forms();
  IpAddress v4 = a->low_v4();
  bool mapped = a->v6 && f.mapped.contains(*a);
  const IpAddress& x = mapped ? v4 : *a;
  bool self = x.v6 ? (x == *IpAddress::parse("::1") || x == *IpAddress::parse("::"))
                   : (f.loopback4.contains(x) || f.this_network4.contains(x));
  for (const auto& o : own) self = self || o.network.base == x;
  if (!self) return "";
  return fmt::format(
      "{} is this machine itself: a yes lets the command reach whatever service of this machine "
      "listens on port {}, outside the sandbox",
      x.text(), port);
}

const std::vector<std::string>& refused_ranges() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (const auto& r : special_blocks())
      if (r.global != Reachable::kTrue)
        v.push_back(row_text(r).substr(3) + (r.global == Reachable::kNotApplicable
                                                 ? ", reachability N/A"
                                             : r.global == Reachable::kTerminated ? ", terminated"
                                                                                  : ""));
    v.push_back("224.0.0.0/4 (multicast, RFC 5771)");
    v.push_back("IPv6 outside 2000::/3 (ff00::/8 multicast, fec0::/10 site-local, ...)");
    v.push_back(
        "IPv4 inside IPv6: mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) judged as the IPv4 "
        "address; IPv4-compatible (::/96), IPv4-translated (::ffff:0:0:0/96) and 6to4 "
        "(2002::/16) refused");
    for (const auto& m : metadata_addresses())
      v.push_back(fmt::format("{} ({})", m.address, m.what));
    v.push_back("the networks of this machine's own interfaces (address and prefix)");
    return v;
  }();
  return all;
}

}  // namespace cordon
