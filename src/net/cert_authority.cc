#include "net/cert_authority.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "config/net_entry.h"
#include "core/paths.h"
#include "host/file_open.h"
#include "net/openssl_calls.h"  // PERF-1: OpenSSL loaded on first use
#include "sys/fs_util.h"

namespace cordon {

namespace {

Error ssl_error(const std::string& what) {
  return make_error(ErrorKind::kNet,
                    "cordon's certificate authority for [credentials]: " + what +
                        " failed (OpenSSL). Remove the folder of its files to make a new one.");
}

EVP_PKEY* new_key() { return EVP_EC_gen("P-256"); }

std::string pem_of(X509* cert) {
  BIO* b = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(b, cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(b, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(b);
  return out;
}

std::string pem_of(EVP_PKEY* key) {
  BIO* b = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(b, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(b);
  return out;
}

bool add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

void random_serial(X509* cert) {
  unsigned char bytes[16];
  RAND_bytes(bytes, sizeof bytes);
  bytes[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(bytes, sizeof bytes, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
  BN_free(bn);
}

// A certificate with `subject_cn`, valid from an hour ago for `days`, for `key`.
X509* new_cert(const std::string& subject_cn, EVP_PKEY* key, long days) {
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  random_serial(cert);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), days * 24 * 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(subject_cn.c_str()), -1, -1,
                             0);
  return cert;
}

}  // namespace

Result<std::shared_ptr<CertAuthority>> CertAuthority::open(const std::string& dir) {
  std::shared_ptr<CertAuthority> ca(new CertAuthority());
  if (auto st = make_dirs(dir, 0700); !st.ok()) return st.error();
  const std::string key_path = path_join(dir, "ca.key"), cert_path = path_join(dir, "ca.pem");
  // Two cordons opening it at once make one CA, not a key of one and a certificate of the
  // other: the folder's lock is held while it is read or made.
  const std::string lock_path = path_join(dir, "lock");
  const int lock = ::open(lock_path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (lock >= 0) flock(lock, LOCK_EX);
  struct Unlock {
    int fd;
    ~Unlock() {
      if (fd >= 0) ::close(fd);
    }
  } unlock{lock};
  auto key_text = read_file_nofollow(key_path, 1 << 20);
  auto cert_text = read_file_nofollow(cert_path, 1 << 20);
  if (key_text.ok() && cert_text.ok() &&
      cert_text->find("-----BEGIN CERTIFICATE-----") != std::string::npos) {
    // Read as text only: OpenSSL parses them when the proxy first needs a leaf (PERF: opening
    // a session costs no key parsing).
    ca->key_pem_ = std::move(key_text).value();
    ca->ca_pem_ = std::move(cert_text).value();
    ca->key_path_ = key_path;
    return ca;
  }
  {
    if (auto st = load_openssl(); !st.ok()) return st.error();
    ca->key_ = new_key();
    if (!ca->key_) return ssl_error("making a key");
    ca->cert_ = new_cert("cordon credentials proxy CA (this machine only)", ca->key_, 3650);
    X509_set_issuer_name(ca->cert_, X509_get_subject_name(ca->cert_));
    if (!add_ext(ca->cert_, ca->cert_, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
        !add_ext(ca->cert_, ca->cert_, NID_key_usage, "critical,keyCertSign,cRLSign") ||
        !add_ext(ca->cert_, ca->cert_, NID_subject_key_identifier, "hash") ||
        X509_sign(ca->cert_, ca->key_, EVP_sha256()) == 0)
      return ssl_error("making the CA certificate");
    // The key first, never readable by others; then the certificate that names it.
    if (auto st = write_file_atomic(key_path, pem_of(ca->key_), true, 0600); !st.ok())
      return st.error();
    if (auto st = write_file_atomic(cert_path, pem_of(ca->cert_), true, 0600); !st.ok())
      return st.error();
  }
  ca->ca_pem_ = pem_of(ca->cert_);
  ca->key_path_ = key_path;
  return ca;
}

// Under mu_: the key and certificate parsed, checked, and the leaves' key made, once.
Status CertAuthority::load() {
  if (auto st = load_openssl(); !st.ok()) return st;
  if (!key_) {
    BIO* kb = BIO_new_mem_buf(key_pem_.data(), static_cast<int>(key_pem_.size()));
    key_ = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
    BIO_free(kb);
  }
  if (!cert_) {
    BIO* cb = BIO_new_mem_buf(ca_pem_.data(), static_cast<int>(ca_pem_.size()));
    cert_ = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
    BIO_free(cb);
  }
  if (!key_ || !cert_ || X509_check_private_key(cert_, key_) != 1 ||
      X509_cmp_current_time(X509_get0_notAfter(cert_)) <= 0)
    return ssl_error("reading " + key_path_ + " and its certificate");
  if (!leaf_key_) leaf_key_ = new_key();
  if (!leaf_key_) return ssl_error("making a key");
  if (leaf_key_pem_.empty()) leaf_key_pem_ = pem_of(leaf_key_);
  return ok_status();
}

CertAuthority::~CertAuthority() {
  if (!key_ && !cert_ && !leaf_key_) return;  // never parsed: OpenSSL may not be loaded
  EVP_PKEY_free(key_);
  X509_free(cert_);
  EVP_PKEY_free(leaf_key_);
}

Result<CertAuthority::Leaf> CertAuthority::leaf_for(const std::string& host) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = leaves_.find(host); it != leaves_.end()) return it->second;
  if (auto st = load(); !st.ok()) return st.error();
  const bool literal = canonical_ip(host).has_value();
  X509* cert = new_cert(host, leaf_key_, 397);
  X509_set_issuer_name(cert, X509_get_subject_name(cert_));
  const bool ok =
      add_ext(cert, cert_, NID_basic_constraints, "critical,CA:FALSE") &&
      add_ext(cert, cert_, NID_key_usage, "critical,digitalSignature") &&
      add_ext(cert, cert_, NID_ext_key_usage, "serverAuth") &&
      add_ext(cert, cert_, NID_subject_key_identifier, "hash") &&
      add_ext(cert, cert_, NID_authority_key_identifier, "keyid:always") &&
      add_ext(cert, cert_, NID_subject_alt_name, (literal ? "IP:" : "DNS:") + host) &&
      X509_sign(cert, key_, EVP_sha256()) != 0;
  if (!ok) {
    X509_free(cert);
    return ssl_error("making a certificate for " + host);
  }
  Leaf leaf{pem_of(cert) + ca_pem_, leaf_key_pem_};
  X509_free(cert);
  return leaves_.emplace(host, std::move(leaf)).first->second;
}

const std::vector<std::string>& CertAuthority::system_bundles() {
  static const std::vector<std::string> v = {
      "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
      "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "/etc/ssl/ca-bundle.pem",
      "/etc/ssl/cert.pem"};
  return v;
}

Result<std::string> CertAuthority::write_bundle(const std::string& dir,
                                                const std::vector<std::string>& bundles) const {
  const std::string path = path_join(dir, "ca-bundle.pem");
  // PERF: unchanged since the last session (not older than its sources, of their size
  // together): not read again.
  auto newer_or_same = [](const struct stat& a, const struct stat& b) {
    const timespec x = stat_mtime(a), y = stat_mtime(b);
    return x.tv_sec > y.tv_sec || (x.tv_sec == y.tv_sec && x.tv_nsec >= y.tv_nsec);
  };
  struct stat have {}, ca {};
  if (stat(path.c_str(), &have) == 0 && stat(path_join(dir, "ca.pem").c_str(), &ca) == 0 &&
      newer_or_same(have, ca))
    for (const auto& b : bundles) {
      struct stat sys {};
      if (b.empty() || stat(b.c_str(), &sys) != 0 || sys.st_size == 0) continue;
      const auto want = sys.st_size + static_cast<off_t>(ca_pem_.size());
      if ((have.st_size == want || have.st_size == want + 1) && newer_or_same(have, sys))
        return path;
      break;
    }
  std::string text;
  for (const auto& b : bundles) {
    if (b.empty()) continue;
    if (auto sys = read_file(b, 16 << 20); sys.ok() && !sys.value().empty()) {
      text = std::move(sys).value();
      break;
    }
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += ca_pem_;
  if (auto st = write_file_atomic(path, text, false, 0644); !st.ok()) return st.error();
  return path;
}

}  // namespace cordon
