// AUD-3: a session's [credentials], made once when its first command goes through the
// allowlist proxy under bubblewrap: the real values read (the user's variables, files), a
// placeholder for each (random per session), cordon's CA opened or made, the CA bundle and the
// placeholder files written in cordon's data folder (hidden from commands).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/policy.h"
#include "core/env.h"
#include "net/credential_relay.h"
#include "plan/credential_rules.h"

namespace cordon {

struct SessionCredentials {
  std::shared_ptr<const CredentialProxying> proxying;  // null: no credential is usable
  CredentialSandbox sandbox;
  // For the first command's notices: which variables and files hold placeholders, and what
  // could not be set up (then that credential is stripped or hidden as it would be without
  // [credentials]). No value is ever in them.
  std::vector<std::string> notices;
};

// Never fails: a credential whose value cannot be read, or a CA that cannot be made, is told in
// the notices and left out. `env`: cordon's own environment (the user's variables, and the
// test-only CORDON_TEST_UPSTREAM_CA). The placeholder files go in <data>/credentials/<session>/.
SessionCredentials make_session_credentials(const Policy& policy, const EnvMap& env,
                                            const std::string& home, const std::string& data,
                                            const std::string& session_id);

// The placeholder files, at the session's end (they hold no secret; a command still running
// keeps its bound copy).
void remove_session_credentials(const SessionCredentials& c);

// The test-only variable naming one more CA the proxy trusts for the bound hosts' servers.
inline constexpr const char* kTestUpstreamCaVariable = "CORDON_TEST_UPSTREAM_CA";

}  // namespace cordon
