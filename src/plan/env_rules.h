// The environment rules of ENV-1 as data: which names are credentials, which names are known
// not to be (certificate bundles), and which values are credentials whatever their name.
#pragma once

#include <string_view>
#include <vector>

namespace cordon {

// A name pattern (`*` and `?`, matched against the upper-cased name) and why it is listed.
struct EnvNameRule {
  std::string_view pattern;
  std::string_view why;
};

// A credential shape: `prefix` at the start of the value or after a character that cannot be
// part of a token, followed by at least `min_tail` characters from `tail` ("A-Za-z0-9_-" style
// classes are spelled out as the characters allowed).
struct ValueShape {
  std::string_view prefix;
  size_t min_tail;
  std::string_view tail;
  std::string_view what;  // "Stripe live key", for tests and messages
};

// Names stripped by pattern (ENV-1), case-insensitively.
const std::vector<EnvNameRule>& credential_name_rules();
// Names that hold certificate-bundle paths and must reach commands (TLS works inside), even
// where a credential pattern also matches (AWS_CA_BUNDLE under AWS_*).
const std::vector<EnvNameRule>& certificate_name_rules();
// Well-known token shapes.
const std::vector<ValueShape>& credential_value_shapes();
// Query or connection-string keys whose non-empty value is a password (`password=`).
const std::vector<std::string_view>& password_query_keys();

}  // namespace cordon
