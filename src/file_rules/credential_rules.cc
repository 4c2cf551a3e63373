#include "file_rules/credential_rules.h"

#include "core/strings.h"

namespace cordon {

// NET-3, FILE-4: names are compared without regard to case (`server.PEM`, `b.Key`, `.ENV`): a
// file's type does not change with the case of its name, and some file systems fold case.
bool is_secrets_folder(std::string_view part) { return to_lower(part) == ".secrets"; }

bool is_pem_name(std::string_view name) { return ends_with(to_lower(name), ".pem"); }

const std::vector<CredentialNameRow>& credential_name_rows() {
  // `?*` before an extension: a name that is only the extension (`.pem`) is not one.
  static const std::vector<CredentialNameRow> rows = {
      {"?*.pem", "TLS and SSH tools: keys and certificates (public ones pass)"},  // NET-3
      {"?*.key", "TLS tools, Rails (config/master.key): private keys"},
      {"?*.p12", "PKCS#12 bundles: a certificate with its private key"},
      {"?*.pfx", "PKCS#12 bundles (Windows): a certificate with its private key"},
      {"?*.p8", "PKCS#8 private keys (App Store Connect's AuthKey_*.p8)"},
      {"?*.ppk", "PuTTY: private keys"},
      {"?*.jks", "Java keytool: keystores with private keys"},
      {"?*.keystore", "Java keytool, Android: keystores with signing keys"},
      {"?*.kdbx", "KeePass: password databases"},
      {"id_rsa", "ssh-keygen: a private key copied into the project"},
      {"id_dsa", "ssh-keygen: a private key"},
      {"id_ecdsa", "ssh-keygen: a private key"},
      {"id_ed25519", "ssh-keygen: a private key"},
      {"id_ecdsa_sk", "ssh-keygen: a security-key handle"},
      {"id_ed25519_sk", "ssh-keygen: a security-key handle"},
      {".npmrc", "npm: `//registry/:_authToken` (docs.npmjs.com/cli/configuring-npm/npmrc)"},
      {".yarnrc.yml", "Yarn 2 and on: npmAuthToken (yarnpkg.com/configuration/yarnrc)"},
      {".pypirc", "twine: upload passwords (packaging.python.org/specifications/pypirc)"},
      {".netrc", "curl, git, pip: passwords per host (netrc(5))"},
      {"_netrc", "curl on Windows: the same as .netrc"},
      {".git-credentials", "git credential-store: passwords (git-credential-store(1))"},
      {".pgpass", "libpq: passwords (PostgreSQL docs, The Password File)"},
      {".my.cnf", "MySQL clients: [client] password (MySQL docs, option files)"},
      {".htpasswd", "Apache htpasswd: password hashes"},
      {".vault-token", "Vault: a token"},
      {".dockercfg", "Docker's old registry credentials"},
      {".s3cfg", "s3cmd: access keys"},
      {".boto", "gsutil, boto: access keys"},
      {".terraformrc", "Terraform: credentials blocks"},
      {"terraform.rc", "Terraform (Windows name): credentials blocks"},
      {"credentials.json", "Google client libraries, gcloud, many CLIs: OAuth client secrets"},
      {"application_default_credentials.json", "gcloud: application default credentials"},
      {"client_secret*.json", "Google Cloud console: OAuth client secrets download"},
      {"service-account*.json", "Google Cloud: service account keys"},
      {"kubeconfig", "kubectl: cluster credentials (kubernetes.io/docs)"},
      {"kubeconfig*.yaml", "kubectl: cluster credentials"},
      {"kubeconfig*.yml", "kubectl: cluster credentials"},
      {"?*.kubeconfig", "kubectl: cluster credentials"},
      {"?*.tfvars", "Terraform: variable values, often secrets"},
      {"?*.tfvars.json", "Terraform: variable values, often secrets"},
      {"?*.tfstate", "Terraform: state, which holds resources' secrets in plain text"},
      {"?*.tfstate.backup", "Terraform: the previous state"},
      {".dev.vars", "Cloudflare wrangler: local secrets (developers.cloudflare.com/workers)"},
      {".dev.vars.*", "Cloudflare wrangler: local secrets per environment"},
      {"auth.json", "Composer (HTTP basic and tokens), Codex: credentials"},
  };
  return rows;
}

bool is_credential_name(std::string_view original) {
  const std::string lower = to_lower(original);
  const std::string_view name = lower;
  if (name == ".env") return true;
  if (starts_with(name, ".env.")) {
    return !(name == ".env.example" || name == ".env.sample" || name == ".env.template");
  }
  for (const auto& r : credential_name_rows())
    if (glob_match(r.pattern, name)) return true;
  return false;
}

bool holds_private_key(std::string_view text) {
  for (size_t pos = text.find("-----BEGIN "); pos != std::string_view::npos;
       pos = text.find("-----BEGIN ", pos + 1)) {
    size_t end = text.find("-----", pos + 11);
    if (end == std::string_view::npos || end - pos > 80) continue;
    std::string_view label = text.substr(pos + 11, end - pos - 11);
    if (ends_with(label, "PRIVATE KEY")) return true;
  }
  return false;
}

bool is_credential_path(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string_view part = path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (slash == std::string_view::npos) return is_secrets_folder(part) || is_credential_name(part);
    // A `.secrets` folder anywhere above: everything inside it is a credential.
    if (is_secrets_folder(part)) return true;
    start = slash + 1;
  }
  return false;
}

bool has_secrets_component(std::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    size_t len = slash == std::string_view::npos ? std::string_view::npos : slash - start;
    if (is_secrets_folder(path.substr(start, len))) return true;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return false;
}

bool pem_is_public_only(std::string_view text) {
  size_t pos = 0;
  int blocks = 0;
  while ((pos = text.find("-----BEGIN ", pos)) != std::string_view::npos) {
    size_t end = text.find("-----", pos + 11);
    if (end == std::string_view::npos) return false;
    std::string_view label = text.substr(pos + 11, end - pos - 11);
    if (label != "CERTIFICATE" && label != "TRUSTED CERTIFICATE" && label != "X509 CRL")
      return false;
    ++blocks;
    pos = end + 5;
  }
  return blocks > 0;
}

}  // namespace cordon
