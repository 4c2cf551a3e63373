// FILE-4 and NET-3: which files are credentials, judged by name alone (pure).
#pragma once

#include <string_view>
#include <vector>

namespace cordon {

// One row of FILE-4's list of credential file names: a glob on the name (lower case, `*` and
// `?`), and the tool that writes such a file with a secret in it.
struct CredentialNameRow {
  const char* pattern;
  const char* written_by;
};

// FILE-4's list as data (tested row by row). `.env` and `.env.*` are judged apart (their
// example/sample/template copies are not credentials).
const std::vector<CredentialNameRow>& credential_name_rows();

// FILE-4: `.env`, `.env.*` (but not .example/.sample/.template), and a name matching a row
// (*.pem, *.key, .npmrc, .netrc, credentials.json, service-account*.json, *.tfvars, ...), in
// any case (`server.PEM`, `b.Key`).
// is_credential_name(".env.local") == true; is_credential_name(".env.example") == false.
bool is_credential_name(std::string_view name);

// NET-3: the text (a file's first bytes) holds a private key block (`-----BEGIN … PRIVATE
// KEY-----`: PKCS#1, PKCS#8, OpenSSH, EC, DSA, encrypted), whatever the file is named.
bool holds_private_key(std::string_view text);

// FILE-4: a credential name, or anything inside a `.secrets` folder (any component of the
// path, which may be absolute or relative). is_credential_path("/p/.secrets/db.txt") == true.
bool is_credential_path(std::string_view path);

// `.secrets` in any case (FILE-4, NET-3 compare names case-insensitively).
bool is_secrets_folder(std::string_view name);
// `*.pem` in any case (a public-certificate bundle may stay visible, NET-3).
bool is_pem_name(std::string_view name);

// True when some component of `path` is `.secrets` (the path is, or is inside, such a folder).
bool has_secrets_component(std::string_view path);

// True when the PEM text holds only public certificates (no private key, nothing else).
bool pem_is_public_only(std::string_view text);

}  // namespace cordon
