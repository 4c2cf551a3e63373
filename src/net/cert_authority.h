// AUD-3: cordon's own certificate authority, made once per user and kept in cordon's data
// folder (hidden from commands, FS-8; the key 0600), and the leaf certificates it signs for the
// hosts a credential is bound to (one per host, kept for the life of the authority). Only the
// proxy uses it: commands trust its certificate through a bundle, never see its key.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"

typedef struct evp_pkey_st EVP_PKEY;
typedef struct x509_st X509;

namespace cordon {

class CertAuthority {
 public:
  // Loads <dir>/ca.key and <dir>/ca.pem, or makes them (the folder 0700, both files 0600).
  // Example: auto ca = CertAuthority::open(data + "/credentials");
  static Result<std::shared_ptr<CertAuthority>> open(const std::string& dir);
  ~CertAuthority();
  CertAuthority(const CertAuthority&) = delete;
  CertAuthority& operator=(const CertAuthority&) = delete;

  // The CA certificate, PEM.
  const std::string& certificate_pem() const { return ca_pem_; }

  // A leaf certificate for `host` (a name, or an IP literal), PEM, with its key (PEM); made
  // once per host. Thread-safe. The first call parses the CA's key (not done at open()).
  struct Leaf {
    std::string cert_pem;  // the leaf, then the CA's certificate
    std::string key_pem;
  };
  Result<Leaf> leaf_for(const std::string& host);

  // Writes <dir>/ca-bundle.pem: the first readable of `system_bundles` (the user's own
  // SSL_CERT_FILE first, then the systems' usual places) and the CA's certificate, replaced
  // atomically when it changed; its path.
  Result<std::string> write_bundle(const std::string& dir,
                                   const std::vector<std::string>& system_bundles) const;

  // Where the systems keep their bundle: Debian and Ubuntu, Fedora and RHEL, openSUSE, Alpine.
  static const std::vector<std::string>& system_bundles();

 private:
  CertAuthority() = default;
  Status load();
  std::string key_pem_;  // read at open; parsed by load()
  std::string key_path_;
  EVP_PKEY* key_ = nullptr;
  X509* cert_ = nullptr;
  std::string ca_pem_;
  EVP_PKEY* leaf_key_ = nullptr;  // one key for every leaf of this authority's life
  std::string leaf_key_pem_;
  std::mutex mu_;
  std::map<std::string, Leaf> leaves_;
};

}  // namespace cordon
