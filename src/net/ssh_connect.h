// NET-12: `cordon __ssh-connect HOST PORT`, the ProxyCommand of the ssh cordon gives commands:
// inside the sandbox, it opens a tunnel through the allowlist proxy the command already uses
// (HTTPS_PROXY / ALL_PROXY / HTTP_PROXY; with the password of a proxy on the machine's
// loopback, LL-1) by HTTP CONNECT, checks the 200, then copies its input to the tunnel and
// the tunnel to its output until both ends close. No netcat needed.
#pragma once

#include <optional>
#include <string>

#include "core/env.h"

namespace cordon {

// The proxy a command's environment names, as the helper reaches it.
struct ProxyAddress {
  std::string host;  // an address literal (127.0.0.1, ::1)
  int port = 0;
  std::string user, password;  // from http://user:password@host:port ("" when none)
};
// Parses `http://[user:password@]host:port[/]`; nothing for anything else (a name to resolve
// included: the sandbox has no DNS, and the proxy is always on loopback).
std::optional<ProxyAddress> parse_proxy_url(const std::string& url);
// The first of HTTPS_PROXY, https_proxy, ALL_PROXY, all_proxy, HTTP_PROXY, http_proxy set.
std::string proxy_url_of(const EnvMap& env);

// The CONNECT request for host:port, with Proxy-Authorization when the proxy has a password.
std::string connect_request(const std::string& host, int port, const ProxyAddress& proxy);

int ssh_connect_main(int argc, char** argv);

}  // namespace cordon
