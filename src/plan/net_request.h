// NET-7, NET-8: reading what a client asks the proxy for, from an HTTP header block. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "plan/http_framing.h"

namespace cordon {

// The header block may be at most this long, and must arrive within kProxyHeaderSeconds.
constexpr size_t kProxyHeaderLimit = 16 * 1024;
constexpr int kProxyHeaderSeconds = 10;
// An upstream's response head may be at most this long.
constexpr size_t kProxyResponseHeadLimit = 64 * 1024;

struct ProxyRequest {
  bool connect = false;  // CONNECT host:port (a tunnel)
  std::string host;      // normalized (normalize_host), a canonical literal for addresses
  int port = 0;
  // Absolute form only: the request as the server gets it ("GET /path HTTP/1.1", the Host of
  // the URL, the headers without Host, the Proxy-* and hop-by-hop ones and those Connection
  // names, and "Connection: close"), and what follows it.
  std::string forward_head;
  std::string method;       // "GET"
  BodyFraming body;         // where its body ends: the next request starts there
  bool keep_alive = false;  // HTTP/1.1 without "Connection: close": another request may follow
  // LL-1: the Proxy-Authorization header's value ("Basic Y29yZG9uOnNlY3JldA=="), or empty. Never
  // in forward_head.
  std::string proxy_authorization;
};

// `head` is the header block up to and including the empty line. Nothing when it is malformed
// (the error then says why, for the 400 answer).
// Example: parse_proxy_request("CONNECT registry.npmjs.org:443 HTTP/1.1\r\n\r\n", &why)
//          gives {connect, "registry.npmjs.org", 443}.
std::optional<ProxyRequest> parse_proxy_request(std::string_view head, std::string* why);

// LL-1: whether a Proxy-Authorization value is Basic with exactly `user` and `password`.
// Example: proxy_credential_matches("Basic Y29yZG9uOnM=", "cordon", "s") is true.
bool proxy_credential_matches(std::string_view value, const std::string& user,
                              const std::string& password);

// "host:port" as shown in results and messages ("[::1]:8080" for IPv6).
std::string host_port(const std::string& host, int port);

}  // namespace cordon
