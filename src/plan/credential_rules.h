// AUD-3: credentials a command uses without seeing them. The pure parts: the placeholder's
// shape, which hosts a credential is bound to, and a request head as the bound host gets it
// (the placeholder replaced by the real value in the configured header only) or refused (the
// placeholder going anywhere else). The proxy (net/) and the session (session/) do the I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/net_entry.h"
#include "config/policy.h"
#include "core/result.h"

namespace cordon {

// One credential as the proxy uses it. `secret` is the real value: it never goes into a plan,
// a result, a note, a message or the audit log.
struct CredentialBinding {
  std::string name;             // "github"
  std::vector<NetEntry> hosts;  // parsed `hosts`
  CredentialSend send = CredentialSend::kAuthorization;
  std::string header;  // lower-case: "authorization", or kHeader's ("x-api-key")
  std::string placeholder;
  std::string secret;
};

// The bindings of the configured credentials, given each one's placeholder and real value
// (same order as policy.credentials; an entry with no value is left out).
Result<std::vector<CredentialBinding>> credential_bindings(
    const std::vector<CredentialConfig>& config, const std::vector<std::string>& placeholders,
    const std::vector<std::optional<std::string>>& secrets);

// A placeholder of the real value's shape: its recognisable prefix kept ("ghp_", "github_pat_",
// "glpat-", "npm_", "sk-", "xoxb-"), then "cordon_" and `random` (letters and digits), as long as
// the real value when that is longer. Never the real value, never a part of it past the prefix.
// Example: credential_placeholder("ghp_" + 36 chars, "Zx12...") == "ghp_cordon_Zx12..." (40).
std::string credential_placeholder(std::string_view real, std::string_view random);

// Whether `host` (normalized) and `port` are among the credential's hosts. An entry without
// a port means 443 (the placeholder is put on the wire only inside TLS).
bool credential_bound_to(const CredentialBinding& c, const std::string& host, int port);

// Whether any credential is bound to host:port (the proxy terminates TLS for those only).
bool any_credential_bound_to(const std::vector<CredentialBinding>& all, const std::string& host,
                             int port);

// A request head (request line to the empty line) rewritten for host:port, the TLS-terminated
// connection to a bound host: the placeholder of a credential bound there is replaced by the
// real value in that credential's header; any placeholder elsewhere (another credential's,
// another header, the request target) refuses the request.
struct HeadRewrite {
  std::string head;                 // to forward (when not refused)
  std::vector<std::string> used;    // names of the credentials put on the wire
  std::optional<std::string> refusal;  // the credential whose placeholder refuses it
  // The client asked "Expect: 100-continue" (removed from `head`): the proxy answers the 100.
  bool expect_continue = false;
};
HeadRewrite rewrite_request_head(std::string_view head,
                                 const std::vector<CredentialBinding>& all,
                                 const std::string& host, int port);

// For a request the proxy reads and does not terminate TLS for (plain http://): the refusal when
// it carries any credential's placeholder (raw, or inside Authorization: Basic), else nothing.
std::optional<std::string> placeholder_refusal(std::string_view head,
                                               const std::vector<CredentialBinding>& all,
                                               const std::string& host_port);

// The refusal rule of a request that carries a placeholder where it must not go (the
// X-Cordon-Refusal header's value and the result's connection rule).
std::string placeholder_rule(const std::string& credential);

// The credential a placeholder_rule() names, or nothing when `rule` is not one.
std::optional<std::string> placeholder_rule_credential(const std::string& rule);

// What the command is told (NET-9's 403 body) about such a refusal.
std::string placeholder_refusal_body(const std::string& host_port, const std::string& credential,
                                     const std::string& config_file);

// AUD-3: what one sandbox gets for the credentials, made by the session (host paths; no
// secret). Under bubblewrap with the allowlist proxy: each variable holds its placeholder, each
// file source is covered by a placeholder file, and the CA bundle is bound read-only where it
// is (inside cordon's hidden data folder) and named by ca_bundle_variables().
struct CredentialSandbox {
  struct Item {
    std::string name;
    std::string env;               // the variable, or empty
    std::string file;              // the file source, expanded, or empty
    std::string placeholder;
    std::string placeholder_file;  // host path of the file holding the placeholder (file source)
  };
  std::vector<Item> items;
  std::string ca_bundle;
};

// The variables that make tools trust cordon's CA (AUD-3), each set to the bundle's path.
const std::vector<std::string>& ca_bundle_variables();

}  // namespace cordon
