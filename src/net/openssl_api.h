// PERF-1, AUD-3: OpenSSL, loaded when first needed rather than at every start. Only the
// proxy's side of [credentials] uses it (cordon's CA and the TLS it terminates), and linked into
// cordon its tables cost every command ~0.45 ms before main (about 90 pages of relocated
// pointers copied on write, and its start-up code); loaded as a shared library at start it
// cost 0.6 ms. So cordon loads the system's libssl (which brings libcrypto) with dlopen the
// first time a certificate is made or read, and calls it through this table. The calls are
// made through net/openssl_calls.h, which the files that use OpenSSL include after its headers.
// On macOS cordon links OpenSSL as usual (Homebrew's library is not on the loader's path):
// the table is not used there.
#pragma once

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/conf.h>
#include <openssl/dh.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <string>

#include "core/result.h"

namespace cordon {

struct OpensslApi {
#define CORDON_OPENSSL_FN(name) decltype(&::name) name = nullptr;
#include "net/openssl_functions.h"
#undef CORDON_OPENSSL_FN
};

// Loads the system's libssl and libcrypto (once; later calls return the first answer): by full
// path beside the C library first, by name where they are not there; and looks up every
// function of the table. The error names the library or the function, and the package to
// install. Thread-safe.
// Example: if (auto st = load_openssl(); !st.ok()) return st.error();
Status load_openssl();
// The same from these two files or names, into `out` (filled only when every function was
// found): what the tests use to see the error a missing library gives.
Status load_openssl_from(const std::string& ssl, const std::string& crypto, OpensslApi& out);

// The loaded table. Only after load_openssl() succeeded: a call before that ends the process
// with a message (a bug, never a user's mistake).
const OpensslApi& openssl();
// Whether load_openssl() has succeeded (nothing is loaded by asking).
bool openssl_loaded();

// Asio's TLS calls CONF_modules_unload at exit, whether or not TLS was used: a no-op when
// OpenSSL was never loaded.
void openssl_conf_modules_unload(int all);

// A call through the table: what each name of net/openssl_calls.h stands for. It takes the
// function's own parameters, so each argument converts at the call as it would in a direct call.
template <auto Fn, class F>
struct OpensslCall;
template <auto Fn, class R, class... P>
struct OpensslCall<Fn, R(P...)> {
  R operator()(P... p) const { return (openssl().*Fn)(p...); }
};
template <auto Fn, class R, class... P>
struct OpensslCall<Fn, R(P..., ...)> {
  template <class... V>
  R operator()(P... p, V... v) const {
    return (openssl().*Fn)(p..., v...);
  }
};

}  // namespace cordon

// In the global namespace, so that a call written ::NAME(...) (as Asio writes them) works.
#define CORDON_OPENSSL_FN(name)                                                         \
  inline constexpr ::cordon::OpensslCall<&::cordon::OpensslApi::name, decltype(::name)> \
      cordon_openssl_##name{};
#include "net/openssl_functions.h"
#undef CORDON_OPENSSL_FN
inline void cordon_openssl_conf_modules_unload(int all) {
  cordon::openssl_conf_modules_unload(all);
}
