// NET-6, NET-8, NET-9: the allowlist's syntax, matching and address checks, table-driven.
#include "plan/net_rules.h"

#include <gtest/gtest.h>

#include "config/config_file.h"
#include "config/net_entry.h"
#include "core/base64.h"
#include "core/env.h"
#include "plan/net_request.h"

namespace cordon {
namespace {

NetRules rules(std::vector<std::string> allow, std::vector<std::string> deny = {}) {
  auto r = parse_net_rules(allow, deny, NetUnknown::kRefuse, "~/.config/cordon/config.toml");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : NetRules{};
}

// NET-6: every spelling of an IPv4 address the C library accepts is the one canonical address.
TEST(NetRules, CanonicalAddressSpellings) {
  struct Case {
    const char* in;
    const char* out;  // nullptr: not an address
  };
  const Case cases[] = {
      {"127.0.0.1", "127.0.0.1"},
      {"127.1", "127.0.0.1"},
      {"2130706433", "127.0.0.1"},
      {"0x7f.1", "127.0.0.1"},
      {"0x7f.0.0.1", "127.0.0.1"},
      {"0177.0.0.1", "127.0.0.1"},
      {"0x7F000001", "127.0.0.1"},
      {"::ffff:127.0.0.1", "127.0.0.1"},
      {"[::ffff:127.0.0.1]", "127.0.0.1"},
      {"::ffff:7f00:1", "127.0.0.1"},
      {"::1", "::1"},
      {"[0:0:0:0:0:0:0:1]", "::1"},
      {"FE80::1", "fe80::1"},
      {"169.254.169.254", "169.254.169.254"},
      {"example.com", nullptr},
      {"127.0.0.1 x", nullptr},
      {"1.2.3.4.5", nullptr},
      {"", nullptr},
      {"deadbeef", nullptr},
  };
  for (const auto& c : cases) {
    auto got = canonical_ip(c.in);
    if (c.out) {
      ASSERT_TRUE(got.has_value()) << c.in;
      EXPECT_EQ(*got, c.out) << c.in;
    } else {
      EXPECT_FALSE(got.has_value()) << c.in << " gave " << got.value_or("");
    }
  }
}

// NET-6, NET-8: hosts as clients send them: lower-case, one trailing dot gone, malformed ones
// (control characters, NUL, `%`, spaces, non-ASCII) refused.
TEST(NetRules, NormalizeHost) {
  struct Case {
    std::string in;
    const char* out;
  };
  const Case cases[] = {
      {"Registry.NPMJS.org", "registry.npmjs.org"},
      {"registry.npmjs.org.", "registry.npmjs.org"},
      {"127.0.0.1.", "127.0.0.1"},
      {"127.1", "127.0.0.1"},
      {"xn--bcher-kva.example", "xn--bcher-kva.example"},
      {"b\xc3\xbc"
       "cher.example",
       nullptr},
      {"evil%2ecom", nullptr},
      {"a b.com", nullptr},
      {"a\tb.com", nullptr},
      {std::string("a\0b.com", 7), nullptr},
      {"a\r\nb.com", nullptr},
      {"user@host.com", nullptr},
      {"a..b.com", nullptr},
      {".a.com", nullptr},
      {"registry.npmjs.org..", nullptr},
      {std::string(64, 'a') + ".com", nullptr},
      {"", nullptr},
  };
  for (const auto& c : cases) {
    auto got = normalize_host(c.in);
    if (c.out) {
      ASSERT_TRUE(got.has_value()) << c.in;
      EXPECT_EQ(*got, c.out) << c.in;
    } else {
      EXPECT_FALSE(got.has_value()) << c.in << " gave " << got.value_or("");
    }
  }
}

// NET-6: entries that are refused at load, each with the reason.
TEST(NetRules, BadEntriesAreRefused) {
  struct Case {
    const char* entry;
    const char* words;
  };
  const Case cases[] = {
      {"*", "every host"},
      {"**", "every host"},
      {"*:443", "every host"},
      {"*.com", "public suffix \"com\""},
      {"**.com", "public suffix \"com\""},
      {"**.co.uk", "public suffix \"co.uk\""},
      {"*.github.io", "public suffix \"github.io\""},
      // The whole Public Suffix List: rarer suffixes, private ones, punycode ones, and names
      // under a wildcard rule ("*.ck").
      {"**.kyoto.jp", "public suffix \"kyoto.jp\""},
      {"**.blogspot.co.uk", "public suffix \"blogspot.co.uk\""},
      {"**.s3-eu-west-1.amazonaws.com", "public suffix \"s3-eu-west-1.amazonaws.com\""},
      {"**.xn--55qx5d.cn", "public suffix \"xn--55qx5d.cn\""},
      {"**.anything.ck", "public suffix \"anything.ck\""},
      {"foo.*.com", "whole first label"},
      {"*foo.com", "whole first label"},
      {"*.127.0.0.1", "never matches an address"},
      {"example.com:0", "port"},
      {"example.com:65536", "port"},
      {"example.com:http", "port"},
      {"b\xc3\xbc"
       "cher.example",
       "punycode"},
      {"evil%2ecom", "not a host name"},
      {"exa mple.com", "not a host name"},
      {"http://example.com", "without a scheme"},
  };
  for (const auto& c : cases) {
    auto e = parse_net_entry(c.entry);
    ASSERT_FALSE(e.ok()) << c.entry;
    EXPECT_NE(e.error().message.find(c.words), std::string::npos)
        << c.entry << ": " << e.error().message;
  }
}

// NET-6: what the good entries parse to.
TEST(NetRules, GoodEntriesParse) {
  auto e = parse_net_entry("Files.Example.org:8443");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value().kind, NetEntry::Kind::kExact);
  EXPECT_EQ(e.value().host, "files.example.org");
  EXPECT_EQ(e.value().port, 8443);
  e = parse_net_entry("**.github.com:*");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value().kind, NetEntry::Kind::kDomain);
  EXPECT_EQ(e.value().port, -1);
  e = parse_net_entry("127.1:8080");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value().kind, NetEntry::Kind::kAddress);
  EXPECT_EQ(e.value().host, "127.0.0.1");
  e = parse_net_entry("[::1]:9000");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value().host, "::1");
  EXPECT_EQ(e.value().port, 9000);
  e = parse_net_entry("::1");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value().port, 0);
  // NET-6: an exception to a wildcard rule ("!www.ck") is a registrable domain.
  EXPECT_TRUE(parse_net_entry("**.www.ck").ok());
  EXPECT_TRUE(parse_net_entry("**.city.kawasaki.jp").ok());
  e = parse_net_entry("*.example.co.uk");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value().kind, NetEntry::Kind::kSubdomains);
}

// NET-6: matching, whole labels, ports, deny over allow, literals only by address entries.
TEST(NetRules, Matching) {
  NetRules r = rules({"registry.npmjs.org", "*.sub.example.com", "**.github.com",
                      "files.example.org:8443", "any.example.net:*", "127.0.0.1:8080", "[::1]:*"},
                     {"gist.github.com", "**.evil.github.com"});
  struct Case {
    const char* host;  // normalized
    int port;
    bool allowed;
    const char* rule;
  };
  const Case cases[] = {
      {"registry.npmjs.org", 443, true, "allow registry.npmjs.org"},
      {"registry.npmjs.org", 80, true, "allow registry.npmjs.org"},
      {"registry.npmjs.org", 8443, false, "not in allow"},
      {"evilregistry.npmjs.org", 443, false, "not in allow"},
      {"x.registry.npmjs.org", 443, false, "not in allow"},
      {"a.sub.example.com", 443, true, "allow *.sub.example.com"},
      {"a.b.sub.example.com", 443, true, "allow *.sub.example.com"},
      {"sub.example.com", 443, false, "not in allow"},
      {"evilsub.example.com", 443, false, "not in allow"},
      {"github.com", 443, true, "allow **.github.com"},
      {"api.github.com", 443, true, "allow **.github.com"},
      {"notgithub.com", 443, false, "not in allow"},
      {"github.com.evil.org", 443, false, "not in allow"},
      {"gist.github.com", 443, false, "deny gist.github.com"},
      {"evil.github.com", 443, false, "deny **.evil.github.com"},
      {"a.evil.github.com", 443, false, "deny **.evil.github.com"},
      {"files.example.org", 8443, true, "allow files.example.org:8443"},
      {"files.example.org", 443, false, "not in allow"},
      {"any.example.net", 22, true, "allow any.example.net:*"},
      {"127.0.0.1", 8080, true, "allow 127.0.0.1:8080"},
      {"127.0.0.1", 8081, false, "not in allow"},
      {"::1", 5, true, "allow [::1]:*"},
      {"localhost", 8080, false, "not in allow"},
  };
  for (const auto& c : cases) {
    NetVerdict v = check_host(r, c.host, c.port);
    EXPECT_EQ(v.allowed, c.allowed) << c.host << ":" << c.port;
    EXPECT_EQ(v.rule, c.rule) << c.host << ":" << c.port;
  }
  EXPECT_TRUE(check_host(r, "127.0.0.1", 8080).names_address);
  EXPECT_FALSE(check_host(r, "api.github.com", 443).names_address);
}

// NET-6: a wildcard never matches a literal, even one whose digits end like the domain.
TEST(NetRules, WildcardNeverMatchesLiteral) {
  NetRules r = rules({"**.example.com"});
  EXPECT_FALSE(check_host(r, "93.184.216.34", 443).allowed);
}

// NET-6: a deny entry without a port denies every port of its hosts; an allow entry without
// one stays 80 and 443. (Addresses: tests/unit/net_address_test.cc.)
TEST(NetRules, DenyWithoutPortCoversEveryPort) {
  NetRules r = rules({"**.x.test:*", "127.0.0.1:*", "plain.test"},
                     {"secret.x.test", "*.deep.x.test", "127.0.0.1"});
  struct Case {
    const char* host;
    int port;
    bool allowed;
  };
  const Case cases[] = {
      {"secret.x.test", 443, false}, {"secret.x.test", 8080, false}, {"secret.x.test", 22, false},
      {"a.deep.x.test", 8443, false}, {"other.x.test", 8080, true},  {"127.0.0.1", 9999, false},
      {"plain.test", 443, true},     {"plain.test", 8080, false},
  };
  for (const auto& c : cases) {
    NetVerdict v = check_host(r, c.host, c.port);
    EXPECT_EQ(v.allowed, c.allowed) << c.host << ":" << c.port << " " << v.rule;
  }
  EXPECT_EQ(check_host(r, "secret.x.test", 8080).rule, "deny secret.x.test");
}

// NET-8: an address outside global unicast is reached through a name only when an allow entry
// names that address for that port, and no deny entry covers it.
TEST(NetRules, AnAddressListedLiterallyMayBeReachedThroughAName) {
  NetRules r = rules({"mirror.test", "10.1.2.3", "10.9.9.9:*", "10.5.5.5"}, {"10.5.5.5:443"});
  EXPECT_TRUE(address_listed(r, "10.1.2.3", 443));
  EXPECT_TRUE(address_listed(r, "10.1.2.3", 80));
  EXPECT_FALSE(address_listed(r, "10.1.2.3", 8080));  // the entry's ports only
  EXPECT_TRUE(address_listed(r, "10.9.9.9", 8080));
  EXPECT_FALSE(address_listed(r, "10.5.5.5", 443));  // denied
  EXPECT_FALSE(address_listed(r, "10.1.2.4", 443));  // another address
  EXPECT_FALSE(address_listed(r, "mirror.test", 443));  // a name is not an address
}

// NET-9: the body names the host, the rule and the file, and tells an agent not to work around.
TEST(NetRules, RefusalBody) {
  std::string b = refusal_body("example.org:443", "not in allow", "~/.config/cordon/config.toml");
  EXPECT_NE(b.find("example.org:443 is not in [network] allow (~/.config/cordon/config.toml)"),
            std::string::npos);
  EXPECT_NE(b.find("do not try to get around the proxy"), std::string::npos);
  b = refusal_body("gist.github.com:443", "deny gist.github.com", "c.toml");
  EXPECT_NE(b.find("[network] deny \"gist.github.com\""), std::string::npos);
}

// NET-6, CFG-2: the config keys, a bad entry naming file, line and entry.
TEST(NetRules, ConfigKeys) {
  auto p = parse_config(
      "[network]\nallow = [\"registry.npmjs.org\", \"**.github.com\"]\ndeny = "
      "[\"gist.github.com\"]\n",
      "c.toml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p.value().network.allow.size(), 2u);
  EXPECT_EQ(p.value().network.deny.size(), 1u);
  EXPECT_FALSE(p.value().network.ask_unknown);
  auto bad = parse_config("[network]\nallow = [\"ok.example.org\",\n  \"*.com\"]\n", "c.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("c.toml:3: [network] allow[1]: \"*.com\""), std::string::npos)
      << bad.error().message;
  bad = parse_config("[network]\nunknown = \"maybe\"\n", "c.toml");
  ASSERT_FALSE(bad.ok());
  bad = parse_config("[network]\nallowed = []\n", "c.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("known keys: allow, deny, unknown"), std::string::npos);
  // NET-10: "ask" loads, without a warning.
  auto ask = parse_config("[network]\nunknown = \"ask\"\n", "c.toml");
  ASSERT_TRUE(ask.ok());
  EXPECT_TRUE(ask.value().network.ask_unknown);
  EXPECT_TRUE(ask.value().warnings.empty());
}

// NET-10: only a host no entry names may be asked about; a denied one never is.
TEST(NetRules, OnlyUnlistedHostsMayBeAsked) {
  auto r = parse_net_rules({"**.example.org"}, {"secret.example.org"}, NetUnknown::kAsk, "c.toml");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(check_host(r.value(), "other.invalid", 443).unlisted);
  EXPECT_FALSE(check_host(r.value(), "secret.example.org", 443).unlisted);
  EXPECT_FALSE(check_host(r.value(), "a.example.org", 443).unlisted);
  std::string b = refusal_body("other.invalid:443", "asked: refused (away)", "c.toml");
  EXPECT_NE(b.find("other.invalid:443 is not in [network] allow"), std::string::npos) << b;
  EXPECT_NE(b.find("(refused (away))"), std::string::npos) << b;
  EXPECT_NE(b.find("Do not retry it"), std::string::npos) << b;
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

// NET-7, NET-8: what the proxy reads from a request's header block.
TEST(NetRequest, ConnectAndAbsoluteForm) {
  std::string why;
  auto r = parse_proxy_request("CONNECT Registry.NPMJS.org.:443 HTTP/1.1\r\nHost: x\r\n\r\n", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_TRUE(r->connect);
  EXPECT_EQ(r->host, "registry.npmjs.org");
  EXPECT_EQ(r->port, 443);
  r = parse_proxy_request("CONNECT [::1]:8080 HTTP/1.1\r\n\r\n", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->host, "::1");
  EXPECT_EQ(host_port(r->host, r->port), "[::1]:8080");
  r = parse_proxy_request("CONNECT 2130706433:80 HTTP/1.1\r\n\r\n", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->host, "127.0.0.1");
  r = parse_proxy_request(
      "GET http://127.0.0.1:8080/a/b?c=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nProxy-Connection: "
      "keep-alive\r\nProxy-Authorization: Basic eA==\r\nConnection: keep-alive\r\nAccept: "
      "*/*\r\n\r\n",
      &why);
  ASSERT_TRUE(r) << why;
  EXPECT_FALSE(r->connect);
  EXPECT_EQ(r->port, 8080);
  EXPECT_EQ(r->forward_head,
            "GET /a/b?c=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: */*\r\nConnection: "
            "close\r\n\r\n");
  r = parse_proxy_request("GET http://example.org HTTP/1.0\r\n\r\n", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->port, 80);
  EXPECT_EQ(r->forward_head.substr(0, 16), "GET / HTTP/1.0\r\n");
}

TEST(NetRequest, MalformedRequestsAreRefused) {
  const char* bad[] = {
      "CONNECT evil%2ecom:443 HTTP/1.1\r\n\r\n",
      "CONNECT example.com HTTP/1.1\r\n\r\n",
      "CONNECT example.com:99999 HTTP/1.1\r\n\r\n",
      "CONNECT ::1:443 HTTP/1.1\r\n\r\n",
      "GET /relative HTTP/1.1\r\nHost: example.com\r\n\r\n",
      "GET https://example.com/ HTTP/1.1\r\n\r\n",
      "GET http://user:pw@example.com/ HTTP/1.1\r\n\r\n",
      "GET http://exa\x01mple.com/ HTTP/1.1\r\n\r\n",
      "CONNECT example.com:443 SPDY/3\r\n\r\n",
  };
  for (const char* b : bad) {
    std::string why;
    EXPECT_FALSE(parse_proxy_request(b, &why)) << b;
    EXPECT_FALSE(why.empty()) << b;
  }
  std::string nul("CONNECT a\0b.com:443 HTTP/1.1\r\n\r\n", 33);
  std::string why;
  EXPECT_FALSE(parse_proxy_request(nul, &why));
  EXPECT_FALSE(parse_proxy_request(std::string(kProxyHeaderLimit + 1, 'a'), &why));
}

// NET-7: the variables the tools read, and JAVA_TOOL_OPTIONS extended, not replaced.
TEST(NetRules, ProxyVariables) {
  EnvMap env;
  env.set("JAVA_TOOL_OPTIONS", "-Xmx1g");
  set_proxy_variables(env, 3128);
  for (const char* n : {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                        "all_proxy", "npm_config_proxy", "npm_config_https_proxy",
                        "YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "CARGO_HTTP_PROXY"})
    EXPECT_EQ(env.get(n).value_or(""), "http://127.0.0.1:3128") << n;
  EXPECT_EQ(env.get("npm_config_noproxy").value_or(""), "localhost,127.0.0.1,::1");
  EXPECT_EQ(env.get("NODE_USE_ENV_PROXY").value_or(""), "1");
  // pip puts PIP_PROXY above NO_PROXY: the command's own index on 127.0.0.1 would go to the
  // proxy (NetTools.PipReachesTheCommandsOwnIndexDirectly); http(s)_proxy are enough for pip.
  EXPECT_FALSE(env.get("PIP_PROXY").has_value());
  EXPECT_EQ(env.get("NO_PROXY").value_or(""), "localhost,127.0.0.1,::1");
  EXPECT_EQ(env.get("no_proxy").value_or(""), "localhost,127.0.0.1,::1");
  EXPECT_EQ(env.get("JAVA_TOOL_OPTIONS").value_or(""),
            "-Xmx1g -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 "
            "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128");
}

// LL-1: with a password, every URL carries the user "cordon" and it; NO_PROXY is unchanged.
TEST(NetRules, ProxyVariablesCarryThePassword) {
  EnvMap env;
  set_proxy_variables(env, 41234, "s3cret");
  for (const char* n : {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                        "all_proxy", "npm_config_proxy", "npm_config_https_proxy",
                        "YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "CARGO_HTTP_PROXY"})
    EXPECT_EQ(env.get(n).value_or(""), "http://cordon:s3cret@127.0.0.1:41234") << n;
  EXPECT_EQ(env.get("NO_PROXY").value_or(""), "localhost,127.0.0.1,::1");
}

// LL-1: the Proxy-Authorization header is read from CONNECT and absolute-form requests, never
// passed on, and only Basic with exactly the user and password matches.
TEST(NetRules, ProxyPasswordIsReadAndChecked) {
  const std::string good = "Basic " + base64_encode("cordon:s3cret");
  auto c = parse_proxy_request("CONNECT a.com:443 HTTP/1.1\r\nHost: a.com:443\r\n"
                               "Proxy-Authorization: " + good + "\r\n\r\n", nullptr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->proxy_authorization, good);
  auto g = parse_proxy_request("GET http://a.com/x HTTP/1.1\r\nHost: a.com\r\n"
                               "proxy-authorization: " + good + "\r\n\r\n", nullptr);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->proxy_authorization, good);
  EXPECT_EQ(g->forward_head.find("s3cret"), std::string::npos);
  EXPECT_EQ(g->forward_head.find(base64_encode("cordon:s3cret")), std::string::npos);
  auto none = parse_proxy_request("CONNECT a.com:443 HTTP/1.1\r\n\r\n", nullptr);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->proxy_authorization, "");
  EXPECT_TRUE(proxy_credential_matches(good, "cordon", "s3cret"));
  EXPECT_TRUE(proxy_credential_matches("basic  " + base64_encode("cordon:s3cret") + " ",
                                       "cordon", "s3cret"));
  for (const std::string& bad :
       {std::string(""), std::string("Basic"), "Bearer " + base64_encode("cordon:s3cret"),
        "Basic " + base64_encode("cordon:s3cre"), "Basic " + base64_encode("cordon:s3cretx"),
        "Basic " + base64_encode("other:s3cret"), std::string("Basic !!!")})
    EXPECT_FALSE(proxy_credential_matches(bad, "cordon", "s3cret")) << bad;
}

// NET-9: the notes are bounded: one per refused host up to kMaxRefusalNotes, then one that
// counts the rest, the aggregated entry's connections included; upstream failures say so.
TEST(NetRules, RefusalNotesAreBounded) {
  std::vector<NetConnection> c;
  for (int i = 0; i < 50; ++i)
    c.push_back({"h" + std::to_string(i) + ".invalid:443", false, "not in allow", 0, 0, 2});
  c.push_back({kOtherHosts, false, "more", 0, 0, 5000});
  c.push_back({"ok.test:443", true, "allow ok.test", 1, 1, 1});
  auto notes = refusal_notes(c, "c.toml");
  ASSERT_EQ(notes.size(), kMaxRefusalNotes + 1);
  EXPECT_NE(notes.back().find("5060 more connections"), std::string::npos) << notes.back();
  auto one = refusal_notes({{"down.test:80", false, "unreachable: Connection refused", 0, 0, 1},
                            {"gone.test:80", false, "could not resolve gone.test", 0, 0, 1}},
                           "c.toml");
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0], "down.test:80 could not be reached: Connection refused.");
  EXPECT_NE(one[1].find("gone.test:80 could not be reached: its name could not be resolved"),
            std::string::npos);
}

// NET-8: the session's connection limit: 512, or half of what the open-files limit leaves.
TEST(NetRules, SessionConnectionLimit) {
  EXPECT_EQ(session_connection_limit(0, 1048576), kSessionConnections);
  EXPECT_EQ(session_connection_limit(0, 1024), 448u);
  EXPECT_EQ(session_connection_limit(100, 1048576), 100u);
  EXPECT_EQ(session_connection_limit(0, 100), 64u);
}

// NET-9: one note per refused host; reached hosts get none.
TEST(NetRules, RefusalNotesOncePerHost) {
  std::vector<NetConnection> c = {
      {"registry.npmjs.org:443", true, "allow registry.npmjs.org", 10, 20, 3},
      {"evil.invalid:443", false, "not in allow", 0, 0, 4}};
  auto notes = refusal_notes(c, "~/.config/cordon/config.toml");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("evil.invalid:443 is not in [network] allow", 0), 0u) << notes[0];
  EXPECT_NE(notes[0].find("(4 attempts)"), std::string::npos);
}

}  // namespace
}  // namespace cordon
