#include "net/openssl_api.h"

#include <dlfcn.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace cordon {

namespace {

// Debian and Ubuntu (libssl3, libssl3t64), Fedora (openssl-libs), Arch, Alpine: OpenSSL 3's
// libraries by the names their packages give them.
constexpr const char* kSsl = "libssl.so.3";
constexpr const char* kCrypto = "libcrypto.so.3";

Error not_loaded(const std::string& what) {
  return make_error(ErrorKind::kUnavailable,
                    "cordon could not load OpenSSL for [credentials]: " + what +
                        ". Install OpenSSL 3's libraries (Debian and Ubuntu: apt-get install "
                        "libssl3; Fedora: dnf install openssl-libs), or remove the "
                        "[credentials] entries that bind a credential to a host.");
}

struct Loaded {
  std::once_flag once;
  Status status = ok_status();
  OpensslApi api;
  std::atomic<bool> ok{false};  // set once the table is complete
};

// Never destroyed: Asio's clean-up at exit asks for it after static destructors began.
Loaded& loaded() {
  static Loaded* l = new Loaded;
  return *l;
}

}  // namespace

#if !defined(__APPLE__)

Status load_openssl_from(const std::string& ssl, const std::string& crypto, OpensslApi& out) {
  // Loaded for good: OpenSSL's own clean-up runs at exit, as when it is linked in.
  void* c = dlopen(crypto.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!c) return not_loaded(crypto + " did not load (" + dlerror() + ")");
  void* s = dlopen(ssl.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!s) return not_loaded(ssl + " did not load (" + dlerror() + ")");
  OpensslApi api;
  std::string missing;
#define CORDON_OPENSSL_FN(name)                          \
  {                                                      \
    void* f = dlsym(s, #name);                           \
    if (!f) f = dlsym(c, #name);                         \
    if (f)                                               \
      api.name = reinterpret_cast<decltype(&::name)>(f); \
    else if (missing.empty())                            \
      missing = #name;                                   \
  }
#include "net/openssl_functions.h"
#undef CORDON_OPENSSL_FN
  if (!missing.empty())
    return not_loaded(ssl + " and " + crypto + " have no " + missing + " (not OpenSSL 3?)");
  out = api;
  return ok_status();
}

// The folder the C library was loaded from ("/lib/x86_64-linux-gnu"), where the system's
// OpenSSL lies too on Debian, Ubuntu and Fedora; "" when it cannot be told.
std::string libc_folder() {
  Dl_info info{};
#if defined(__GLIBC__)
  // Not dlopen: a sanitizer's runtime in the program itself takes that name.
  void* in_libc = reinterpret_cast<void*>(&gnu_get_libc_version);
#else
  void* in_libc = reinterpret_cast<void*>(&dladdr);
#endif
  if (dladdr(in_libc, &info) == 0 || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "" : path.substr(0, slash);
}

Status load_openssl() {
  Loaded& l = loaded();
  std::call_once(l.once, [&l] {
    // First by full path beside the C library (and under /usr, where /lib is not merged into
    // it): a library path in the environment then cannot put another libssl in its place.
    // Else by name, as the loader finds it (a system that keeps OpenSSL elsewhere).
    const std::string dir = libc_folder();
    for (const std::string& d : {dir, dir.rfind("/lib", 0) == 0 ? "/usr" + dir : std::string()}) {
      if (d.empty() || access((d + "/" + kSsl).c_str(), R_OK) != 0) continue;
      l.status = load_openssl_from(d + "/" + kSsl, d + "/" + kCrypto, l.api);
      if (l.status.ok()) break;
    }
    if (!l.status.ok() || !l.api.SSL_new) l.status = load_openssl_from(kSsl, kCrypto, l.api);
    l.ok.store(l.status.ok(), std::memory_order_release);
  });
  return l.status;
}

#else  // macOS: linked as usual; the table is not used.

Status load_openssl_from(const std::string&, const std::string&, OpensslApi&) {
  return not_loaded("loading by name is not used on macOS");
}

Status load_openssl() {
  Loaded& l = loaded();
  std::call_once(l.once, [&l] { l.ok.store(true, std::memory_order_release); });
  return ok_status();
}

#endif

bool openssl_loaded() { return loaded().ok.load(std::memory_order_acquire); }

const OpensslApi& openssl() {
  Loaded& l = loaded();
  if (!l.ok.load(std::memory_order_acquire)) {
    std::fprintf(stderr, "cordon: internal error: an OpenSSL call before OpenSSL was loaded\n");
    std::abort();
  }
  return l.api;
}

void openssl_conf_modules_unload(int all) {
#if !defined(__APPLE__)
  if (openssl_loaded()) openssl().CONF_modules_unload(all);
#else
  ::CONF_modules_unload(all);
#endif
}

}  // namespace cordon
