// AUD-3: the proxy's side of [credentials]: for a CONNECT to a host a credential is bound to,
// TLS is terminated with a leaf certificate of cordon's CA, every HTTP/1.1 request on the
// connection is read, its placeholder replaced by the real value in the credential's header
// (plan/credential_rules.h), and sent on over TLS to the real host, whose certificate is
// verified against the system's trust store. Every other CONNECT stays a plain tunnel.
#pragma once

#include <asio.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/cert_authority.h"
#include "plan/credential_rules.h"

namespace cordon {

// What a proxy needs for its command's credentials.
struct CredentialProxying {
  std::vector<CredentialBinding> bindings;
  std::shared_ptr<CertAuthority> ca;
  // Test only (CORDON_TEST_UPSTREAM_CA): one more CA file the upstream's certificate may
  // chain to, besides the system's. Empty in real use.
  std::string test_upstream_ca;
};

// One credential put on the wire: to which host:port, how many requests.
struct CredentialUse {
  std::string name;
  std::string host_port;
  unsigned count = 0;
};

// What the relay tells its proxy, on the proxy's thread.
struct RelayHooks {
  std::function<void(bool outward, size_t bytes)> bytes;
  std::function<void(const std::string& credential)> used;     // one request sent with it
  std::function<void(const std::string& credential)> refused;  // its placeholder refused here
};

// Serves the client's TLS connection after CONNECT host:port (the 200 is sent here), with `up`
// connected to the checked address. Returns when either side closes or a request is refused.
// Every argument must outlive the awaiting (the caller's named locals).
asio::awaitable<void> relay_with_credentials(asio::ip::tcp::socket& client,
                                             asio::ip::tcp::socket& up, const std::string& host,
                                             int port, const CredentialProxying& creds,
                                             RelayHooks& hooks, int header_seconds,
                                             int idle_seconds, const std::string& config_file);

}  // namespace cordon
