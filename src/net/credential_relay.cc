#include "net/credential_relay.h"

// The order matters: net/openssl_calls.h after OpenSSL's headers, before Asio's TLS.
// clang-format off
#include <fmt/format.h>
#include <openssl/ssl.h>

#include "net/openssl_calls.h"  // PERF-1: before Asio's TLS, whose calls it sends to the table

#include <asio/experimental/as_tuple.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <asio/ssl.hpp>
// clang-format on

#include "net/body_forward.h"
#include "net/socket_deadline.h"
#include "plan/http_framing.h"
#include "plan/net_request.h"

// GCC 12 takes the coroutine frame's own operator delete (Asio's awaitable_frame_base) for a
// mismatch with the frame's allocation when this source is built on its own: a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace cordon {

namespace credential_relay_detail {

using asio::awaitable;
using asio::ip::tcp;
using Tls = asio::ssl::stream<tcp::socket&>;
constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);

// Reads `stream` up to the end of an HTTP head ("\r\n\r\n") into `buf`, within `seconds`
// (NET-8); the head's length, or 0 when it did not come.
template <class Stream>
awaitable<size_t> read_head(Stream& stream, tcp::socket& socket, std::string& buf, size_t limit,
                            int seconds) {
  SocketDeadline deadline(socket, seconds);
  auto [e, n] = co_await asio::async_read_until(stream, asio::dynamic_buffer(buf, limit),
                                                "\r\n\r\n", use_tuple);
  co_return e ? 0 : n;
}

// ALPN: the proxy reads HTTP/1.1 only; a client offering h2 gets http/1.1 (or no ALPN).
int select_http1(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                 unsigned int inlen, void*) {
  for (unsigned i = 0; i < inlen;) {
    unsigned len = in[i];
    if (i + 1 + len > inlen) break;
    if (len == 8 && std::string_view(reinterpret_cast<const char*>(in + i + 1), 8) == "http/1.1") {
      *out = in + i + 1;
      *outlen = 8;
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + len;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

std::string answer(int code, const char* reason, const std::string& refusal,
                   const std::string& body) {
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n"
      "Connection: close\r\nX-Cordon-Refusal: {}\r\n\r\n{}\n",
      code, reason, body.size() + 1, refusal, body);
}

// Both ways until either side closes (after 101 Switching Protocols).
template <typename A, typename B>
awaitable<void> pump(A& from, B& to, RelayHooks& hooks, bool outward) {
  std::vector<char> chunk(64 * 1024);
  for (;;) {
    auto [ec, n] = co_await from.async_read_some(asio::buffer(chunk), use_tuple);
    if (n > 0) {
      auto [wec, w] = co_await asio::async_write(to, asio::buffer(chunk.data(), n), use_tuple);
      if (wec) co_return;
      hooks.bytes(outward, w);
    }
    if (ec) co_return;
  }
}

}  // namespace credential_relay_detail

asio::awaitable<void> relay_with_credentials(asio::ip::tcp::socket& client,
                                             asio::ip::tcp::socket& up, const std::string& host,
                                             int port, const CredentialProxying& creds,
                                             RelayHooks& hooks, int header_seconds,
                                             int idle_seconds, const std::string& config_file) {
  using namespace credential_relay_detail;
  const std::string hp = host_port(host, port);
  auto leaf = creds.ca->leaf_for(host);
  if (!leaf.ok()) co_return;
  std::string ok = "HTTP/1.1 200 Connection Established\r\n\r\n";
  if (auto [ec, n] = co_await asio::async_write(client, asio::buffer(ok), use_tuple); ec) co_return;

  asio::ssl::context server_ctx(asio::ssl::context::tls_server);
  asio::error_code ec;
  server_ctx.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                         asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                         asio::ssl::context::no_tlsv1_1);
  server_ctx.use_certificate_chain(asio::buffer(leaf->cert_pem), ec);
  if (!ec) server_ctx.use_private_key(asio::buffer(leaf->key_pem), asio::ssl::context::pem, ec);
  if (ec) co_return;
  SSL_CTX_set_alpn_select_cb(server_ctx.native_handle(), select_http1, nullptr);

  asio::ssl::context up_ctx(asio::ssl::context::tls_client);
  up_ctx.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                     asio::ssl::context::no_tlsv1_1);
  up_ctx.set_default_verify_paths(ec);
  if (!creds.test_upstream_ca.empty()) up_ctx.load_verify_file(creds.test_upstream_ca, ec);
  up_ctx.set_verify_mode(asio::ssl::verify_peer);
  up_ctx.set_verify_callback(asio::ssl::host_name_verification(host));
  static const unsigned char alpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  SSL_CTX_set_alpn_protos(up_ctx.native_handle(), alpn, sizeof alpn);

  Tls in(client, server_ctx);
  Tls out(up, up_ctx);
  if (!canonical_ip(host)) SSL_set_tlsext_host_name(out.native_handle(), host.c_str());
  {
    SocketDeadline t(client, header_seconds);
    auto [e] = co_await in.async_handshake(asio::ssl::stream_base::server, use_tuple);
    if (e) co_return;
  }
  {
    SocketDeadline t(up, header_seconds);
    auto [e] = co_await out.async_handshake(asio::ssl::stream_base::client, use_tuple);
    if (e) {  // the host's certificate did not verify, or TLS failed: the client is told
      // Named, not temporaries inside the co_await: g++ 12 destroys such temporaries twice.
      const std::string msg = answer(
          502, "Bad Gateway", "upstream tls",
          fmt::format("cordon: the TLS connection to {} failed ({}); the credential was not sent.",
                      hp, e.message()));
      co_await asio::async_write(in, asio::buffer(msg), use_tuple);
      co_return;
    }
  }
  std::string buf;
  for (;;) {
    const size_t end = co_await read_head(in, client, buf, kProxyHeaderLimit, idle_seconds);
    if (end == 0) co_return;
    const std::string head = buf.substr(0, end);
    buf.erase(0, end);
    auto fields = header_fields(head);
    std::string why;
    std::optional<BodyFraming> framing = fields ? request_body(*fields, &why) : std::nullopt;
    HeadRewrite rw = rewrite_request_head(head, creds.bindings, host, port);
    if (rw.refusal || !framing) {
      if (rw.refusal) hooks.refused(*rw.refusal);
      const std::string body =
          rw.refusal ? placeholder_refusal_body(hp, *rw.refusal, config_file)
                     : "cordon: the request is malformed: " + why + ".";
      const std::string msg =
          answer(rw.refusal ? 403 : 400, rw.refusal ? "Forbidden" : "Bad Request",
                 rw.refusal ? placeholder_rule(*rw.refusal) : "malformed", body);
      co_await asio::async_write(in, asio::buffer(msg), use_tuple);
      co_return;
    }
    for (const auto& name : rw.used) hooks.used(name);
    const std::string method = head.substr(0, head.find(' '));
    const bool keep_alive = !has_token(*fields, "connection", "close") &&
                            head.find(" HTTP/1.0\r\n") == std::string::npos;
    if (rw.expect_continue) {
      std::string cont = "HTTP/1.1 100 Continue\r\n\r\n";
      if (auto [e, n] = co_await asio::async_write(in, asio::buffer(cont), use_tuple); e)
        co_return;
    }
    if (auto [e, n] = co_await asio::async_write(out, asio::buffer(rw.head), use_tuple); e)
      co_return;
    hooks.bytes(true, rw.head.size());
    const std::function<void(size_t)> sent_out = [&hooks](size_t w) { hooks.bytes(true, w); };
    if (!co_await forward_body(in, out, *framing, buf, sent_out)) co_return;
    // The response: 1xx heads, then the final one and its body.
    std::string rin;
    for (;;) {
      const size_t n = co_await read_head(out, up, rin, kProxyResponseHeadLimit, idle_seconds);
      if (n == 0) co_return;
      auto rh = parse_response_head(std::string_view(rin).substr(0, n), method == "HEAD",
                                    keep_alive);
      if (!rh) co_return;
      if (auto [e, w] = co_await asio::async_write(in, asio::buffer(rh->head), use_tuple); e)
        co_return;
      hooks.bytes(false, n);
      rin.erase(0, n);
      if (rh->status == 101) {  // another protocol from here on: bytes both ways
        if (!rin.empty()) co_await asio::async_write(in, asio::buffer(rin), use_tuple);
        if (!buf.empty()) co_await asio::async_write(out, asio::buffer(buf), use_tuple);
        using namespace asio::experimental::awaitable_operators;
        co_await (pump(in, out, hooks, true) || pump(out, in, hooks, false));
        co_return;
      }
      if (rh->status < 200) continue;
      const std::function<void(size_t)> sent_in = [&hooks](size_t w) { hooks.bytes(false, w); };
      if (!co_await forward_body(out, in, rh->body, rin, sent_in) || !rh->keep_alive) {
        co_await in.async_shutdown(use_tuple);
        co_return;
      }
      break;
    }
  }
}

}  // namespace cordon
