#include "net/proxy_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>

#include <algorithm>
#include <asio.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "config/net_entry.h"
#include "core/base64.h"
#include "net/body_forward.h"
#include "net/socket_deadline.h"
#include "plan/credential_rules.h"
#include "plan/net_request.h"

namespace cordon {

// Named, not anonymous: the coroutines' frames hold these types, and GCC warns when a type with
// external linkage (a frame) holds one of internal linkage (-Wsubobject-linkage) where this file
// is built with others (a unity build).
namespace proxy_detail {

using asio::awaitable;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;
constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
using Clock = std::chrono::steady_clock;

enum class Outcome { kConnected, kRefused, kUnresolved, kUnreachable };

// LL-1: the entry of SOCKS5 connections that did not give the password (no host is read).
constexpr const char* kSocksClient = "(a SOCKS5 client)";

std::string http_answer(int code, const char* reason, const std::string& refusal,
                        const std::string& body) {
  std::string head = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: text/plain; charset=utf-8\r\n"
      "Content-Length: {}\r\nConnection: close\r\n",
      code, reason, body.size() + 1);
  if (!refusal.empty()) head += fmt::format("X-Cordon-Refusal: {}\r\n", refusal);
  return head + "\r\n" + body + "\n";
}

}  // namespace proxy_detail
using namespace proxy_detail;

struct ProxyServer::Impl {
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  NetRules rules;
  std::vector<OwnNetwork> own;
  ProxyLimits limits;
  std::shared_ptr<ConnectionBudget> session;
  std::vector<NetConnection> log;
  std::map<std::string, size_t> index;
  unsigned active = 0;
  std::thread thread;
  // NET-10: questions about unlisted hosts, asked one at a time off the serving thread, and
  // the answers, which hold for the rest of the command.
  HostAsk ask;
  asio::thread_pool asker{1};
  std::mutex answers_mu;
  std::map<std::string, HostAnswer> answers;
  // LL-1: the password every request must carry (none when empty), and the host:ports asked
  // for without it and not since with it, in first-seen order.
  std::string user, password;
  std::vector<std::string> unauthenticated;
  // AUD-3: the command's credentials, and how often each went to each host.
  std::shared_ptr<const CredentialProxying> credentials;
  std::vector<CredentialUse> uses;

  void count_use(const std::string& name, const std::string& hp) {
    for (auto& u : uses)
      if (u.name == name && u.host_port == hp) {
        ++u.count;
        return;
      }
    if (uses.size() < limits.max_entries) uses.push_back(CredentialUse{name, hp, 1});
  }

  // AUD-3: a TLS-terminated connection to a host a credential is bound to.
  awaitable<void> relay_credentials(tcp::socket& s, tcp::socket& up, const ProxyRequest& req,
                                    size_t rec) {
    const std::string hp = host_port(req.host, req.port);
    // Held by the frame too: it may be destroyed with the io_context, after the Impl's members.
    const std::shared_ptr<const CredentialProxying> held = credentials;
    RelayHooks hooks;
    hooks.bytes = [this, rec](bool outward, size_t n) {
      (outward ? log[rec].bytes_out : log[rec].bytes_in) += n;
    };
    hooks.used = [this, hp](const std::string& name) { count_use(name, hp); };
    hooks.refused = [this, hp](const std::string& name) {
      record(hp, false, placeholder_rule(name));
    };
    co_await relay_with_credentials(s, up, req.host, req.port, *held, hooks,
                                    limits.header_seconds, limits.idle_seconds,
                                    rules.config_file);
  }

  // AUD-3: a request the proxy reads in the clear that carries a placeholder is refused.
  std::optional<std::string> carries_placeholder(std::string_view head) const {
    if (!credentials) return std::nullopt;
    return placeholder_refusal(head, credentials->bindings, "");
  }

  bool authorized(const std::string& proxy_authorization) const {
    return password.empty() || proxy_credential_matches(proxy_authorization, user, password);
  }

  // Bounded as the result is (NET-9): past limits.max_entries, one kOtherHosts entry.
  void mark_unauthenticated(const std::string& hp) {
    const std::string& entry =
        unauthenticated.size() >= limits.max_entries ? std::string(kOtherHosts) : hp;
    if (std::find(unauthenticated.begin(), unauthenticated.end(), entry) == unauthenticated.end())
      unauthenticated.push_back(entry);
  }

  std::optional<HostAnswer> answered(const std::string& hp) {
    std::lock_guard<std::mutex> lock(answers_mu);
    auto it = answers.find(hp);
    if (it == answers.end()) return std::nullopt;
    return it->second;
  }

  HostAnswer ask_now(const std::string& hp, const std::string& warning) {
    if (auto a = answered(hp)) return *a;  // asked while this question waited in line
    HostAnswer a;
    try {
      a = ask(hp, warning);
    } catch (const std::exception& e) {
      a = {false, std::string("the question could not be asked: ") + e.what()};
    }
    std::lock_guard<std::mutex> lock(answers_mu);
    return answers.emplace(hp, a).first->second;
  }

  // The connection waits here, the serving thread does not.
  awaitable<HostAnswer> ask_about(const std::string& hp, const std::string& warning) {
    if (auto a = answered(hp)) co_return *a;
    // Named, not temporaries inside the co_await: g++ 12 destroys such temporaries twice.
    auto job = [this, hp, warning]() -> awaitable<HostAnswer> { co_return ask_now(hp, warning); };
    HostAnswer a = co_await asio::co_spawn(asker, std::move(job), asio::use_awaitable);
    co_return a;
  }

  // NET-9: one entry per host:port, at most limits.max_entries of them; the rest share one
  // kOtherHosts entry, so the result (and cordon's memory) stays small however many names a
  // command tries.
  size_t record(const std::string& hp, bool allowed, const std::string& rule) {
    auto it = index.find(hp);
    if (it == index.end() && log.size() >= limits.max_entries) {
      it = index.find(kOtherHosts);
      if (it == index.end()) {
        it = index.emplace(kOtherHosts, log.size()).first;
        log.push_back(NetConnection{
            kOtherHosts, allowed,
            fmt::format("more than {} host:ports: the rest counted together", limits.max_entries),
            0, 0, 0});
      }
    } else if (it == index.end()) {
      it = index.emplace(hp, log.size()).first;
      log.push_back(NetConnection{hp, allowed, rule, 0, 0, 0});
    }
    NetConnection& c = log[it->second];
    if (!allowed && c.allowed) {  // a refusal after an earlier success shows
      c.allowed = false;
      if (c.host_port != kOtherHosts) c.rule = rule;
    }
    ++c.count;
    return it->second;
  }

  // NET-8 steps after the request was read: deny, allow, resolve once, check every address,
  // connect to a checked address.
  awaitable<Outcome> open_upstream(const std::string& host, int port, tcp::socket& up,
                                   std::string& rule, size_t& rec) {
    const std::string hp = host_port(host, port);
    NetVerdict v = check_host(rules, host, port);
    if (!v.allowed && v.unlisted && rules.unknown == NetUnknown::kAsk && ask) {  // NET-10
      HostAnswer a = co_await ask_about(hp, own_service_warning(host, port, own));
      v.allowed = a.allowed;
      v.rule = a.rule;
      // The person saw the address itself and said yes: as if an entry named it (NET-8). A
      // name's yes never opens the refused ranges: it may resolve anywhere.
      v.names_address = a.allowed && canonical_ip(host).has_value();
    }
    if (!v.allowed) {
      rule = v.rule;
      rec = record(hp, false, rule);
      co_return Outcome::kRefused;
    }
    std::vector<tcp::endpoint> eps;
    if (auto ip = canonical_ip(host)) {
      eps.emplace_back(asio::ip::make_address(*ip), static_cast<unsigned short>(port));
    } else {
      tcp::resolver resolver(io);
      auto [ec, results] = co_await resolver.async_resolve(host, std::to_string(port), use_tuple);
      if (ec || results.empty()) {  // NET-8: a connection that failed is not "allowed"
        rule = "could not resolve " + host;
        rec = record(hp, false, rule);
        co_return Outcome::kUnresolved;
      }
      for (const auto& r : results) eps.push_back(r.endpoint());
    }
    for (const auto& ep : eps) {
      std::string addr = canonical_ip(ep.address().to_string()).value_or("?");
      if (auto why = refused_address(addr, own);
          why && !v.names_address && !address_listed(rules, addr, port)) {
        rule = fmt::format("address {}, {}", addr, *why);
        rec = record(hp, false, rule);
        co_return Outcome::kRefused;
      }
    }
    auto [ec, ep] = co_await asio::async_connect(up, eps, use_tuple);
    if (ec) {
      rule = "unreachable: " + ec.message();
      rec = record(hp, false, rule);
      co_return Outcome::kUnreachable;
    }
    rec = record(hp, true, v.rule);
    rule = v.rule;
    co_return Outcome::kConnected;
  }

  awaitable<void> pump(tcp::socket& from, tcp::socket& to, size_t rec, bool outward,
                       Clock::time_point& last) {
    std::vector<char> buf(64 * 1024);
    for (;;) {
      auto [ec, n] = co_await from.async_read_some(asio::buffer(buf), use_tuple);
      if (n > 0) {
        auto [wec, w] = co_await asio::async_write(to, asio::buffer(buf.data(), n), use_tuple);
        (outward ? log[rec].bytes_out : log[rec].bytes_in) += w;
        last = Clock::now();
        if (wec) ec = wec;
      }
      if (ec) {
        asio::error_code ignored;
        if (ec == asio::error::eof) {
          to.shutdown(tcp::socket::shutdown_send, ignored);  // NET-8: half-closes pass on
        } else {
          from.shutdown(tcp::socket::shutdown_both, ignored);
          to.shutdown(tcp::socket::shutdown_both, ignored);
        }
        co_return;
      }
    }
  }

  awaitable<void> watchdog(tcp::socket& a, tcp::socket& b, Clock::time_point& last) {
    asio::steady_timer t(io);
    const auto idle = std::chrono::seconds(limits.idle_seconds);
    for (;;) {
      t.expires_after(std::min<Clock::duration>(idle, std::chrono::seconds(30)));
      auto [ec] = co_await t.async_wait(use_tuple);
      if (ec) co_return;
      if (Clock::now() - last >= idle) {  // NET-8: idle for 10 minutes
        asio::error_code ignored;
        a.close(ignored);
        b.close(ignored);
        co_return;
      }
    }
  }

  awaitable<void> relay(tcp::socket& client, tcp::socket& up, size_t rec) {
    Clock::time_point last = Clock::now();
    co_await ((pump(client, up, rec, true, last) && pump(up, client, rec, false, last)) ||
              watchdog(client, up, last));
  }

  awaitable<void> answer(tcp::socket& s, int code, const char* reason, const std::string& rule,
                         const std::string& body) {
    std::string msg = http_answer(code, reason, rule, body);
    co_await asio::async_write(s, asio::buffer(msg), use_tuple);
    asio::error_code ignored;
    s.shutdown(tcp::socket::shutdown_send, ignored);
  }

  // The request head at the start of `buf` (read on from `s` until it is whole), parsed; on a
  // failure the client has its answer. `end`: where the head ends in `buf`.
  awaitable<std::optional<ProxyRequest>> read_request(tcp::socket& s, std::string& buf,
                                                      size_t& end) {
    std::string why;
    {
      SocketDeadline d(s, limits.header_seconds);
      auto [ec, n] = co_await asio::async_read_until(
          s, asio::dynamic_buffer(buf, kProxyHeaderLimit), "\r\n\r\n", use_tuple);
      if (ec) {
        if (ec == asio::error::not_found)
          co_await answer(s, 431, "Request Header Fields Too Large", "malformed",
                          "cordon: the request's header block is longer than 16 KiB.");
        else if (ec == asio::error::operation_aborted)
          co_await answer(s, 408, "Request Timeout", "malformed",
                          "cordon: the request did not arrive within 10 seconds.");
        co_return std::nullopt;
      }
      end = n;
    }
    auto req = parse_proxy_request(std::string_view(buf).substr(0, end), &why);
    if (!req) co_await answer(s, 400, "Bad Request", "malformed", "cordon: " + why + ".");
    co_return req;
  }

  // NET-8: every request on a client connection is read, judged and sent to the upstream of
  // its own host, one at a time; a kept-alive connection never carries a request to an
  // upstream opened for another (the upstream is closed when its response ended, even when it
  // ignores "Connection: close"). A refusal ends the connection.
  awaitable<void> serve_http(tcp::socket& s, char first) {
    std::string buf(1, first);
    for (bool first_request = true;; first_request = false) {
      if (!first_request && buf.empty()) {  // kept alive: the next request may take a while
        SocketDeadline d(s, limits.idle_seconds);
        char c = 0;
        auto [ec, n] = co_await s.async_read_some(asio::buffer(&c, 1), use_tuple);
        if (ec || n == 0) co_return;
        buf.assign(1, c);
      }
      size_t end = 0;
      std::optional<ProxyRequest> req = co_await read_request(s, buf, end);
      if (!req) co_return;
      const std::string hp = host_port(req->host, req->port);
      if (!authorized(req->proxy_authorization)) {  // LL-1
        if (!co_await ask_password(s, *req)) co_return;
        buf.erase(0, end);
        continue;
      }
      unauthenticated.erase(std::remove(unauthenticated.begin(), unauthenticated.end(), hp),
                            unauthenticated.end());
      if (auto name = carries_placeholder(std::string_view(buf).substr(0, end))) {  // AUD-3
        // Named, not temporaries inside the co_await: g++ 12 destroys such temporaries twice.
        const std::string rule = placeholder_rule(*name);
        const std::string body = placeholder_refusal_body(hp, *name, rules.config_file);
        record(hp, false, rule);
        co_await answer(s, 403, "Forbidden", rule, body);
        co_return;
      }
      tcp::socket up(io);
      std::string rule;
      size_t rec = 0;
      Outcome o = co_await open_upstream(req->host, req->port, up, rule, rec);
      if (o == Outcome::kRefused) {
        co_await answer(s, 403, "Forbidden", rule, refusal_body(hp, rule, rules.config_file));
        co_return;
      }
      if (o != Outcome::kConnected) {
        co_await answer(s, 502, "Bad Gateway", "", refusal_body(hp, rule, rules.config_file));
        co_return;
      }
      if (req->connect && credentials && end == buf.size() &&
          any_credential_bound_to(credentials->bindings, req->host, req->port)) {
        co_await relay_credentials(s, up, *req, rec);  // AUD-3
        co_return;
      }
      if (req->connect) {
        co_await tunnel(s, up, buf.substr(end), rec);
        co_return;
      }
      buf.erase(0, end);
      if (!co_await exchange(s, up, *req, buf, rec)) co_return;
    }
  }

  // LL-1: a request without the proxy's password gets 407, which asks for it: a client that
  // waits to be asked (git) sends it next on the same connection. True when the connection
  // may carry that next request (no body of this one's left to skip).
  awaitable<bool> ask_password(tcp::socket& s, const ProxyRequest& req) {
    const std::string hp = host_port(req.host, req.port);
    mark_unauthenticated(hp);
    const bool keep =
        req.connect || (req.keep_alive && req.body.kind == BodyFraming::Kind::kNone);
    const std::string body = refusal_body(hp, kNoProxyPassword, rules.config_file);
    const std::string msg = fmt::format(
        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic "
        "realm=\"cordon\"\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
        "{}\r\nConnection: {}\r\nX-Cordon-Refusal: {}\r\n\r\n{}\n",
        body.size() + 1, keep ? "keep-alive" : "close", kNoProxyPassword, body);
    auto [ec, n] = co_await asio::async_write(s, asio::buffer(msg), use_tuple);
    if (ec) co_return false;
    if (!keep) {
      asio::error_code ignored;
      s.shutdown(tcp::socket::shutdown_send, ignored);
    }
    co_return keep;
  }

  // LL-1: RFC 1929's user and password, after the client chose that method. True when right.
  awaitable<bool> socks_login(tcp::socket& s) {
    auto read_field = [&](std::string& out) -> awaitable<bool> {
      unsigned char len = 0;
      auto [e1, r1] = co_await asio::async_read(s, asio::buffer(&len, 1), use_tuple);
      if (e1) co_return false;
      out.resize(len);
      auto [e2, r2] = co_await asio::async_read(s, asio::buffer(out), use_tuple);
      co_return !e2;
    };
    unsigned char version = 0;
    auto [e0, r0] = co_await asio::async_read(s, asio::buffer(&version, 1), use_tuple);
    std::string u, p;
    if (e0 || version != 1 || !co_await read_field(u) || !co_await read_field(p)) co_return false;
    const bool ok = authorized("Basic " + base64_encode(u + ":" + p));
    const unsigned char status[2] = {1, static_cast<unsigned char>(ok ? 0 : 1)};
    co_await asio::async_write(s, asio::buffer(status), use_tuple);
    co_return ok;
  }

  awaitable<void> tunnel(tcp::socket& s, tcp::socket& up, std::string rest, size_t rec) {
    std::string ok = "HTTP/1.1 200 Connection Established\r\n\r\n";
    auto [ec, n] = co_await asio::async_write(s, asio::buffer(ok), use_tuple);
    if (ec) co_return;
    if (!rest.empty()) {
      auto [wec, w] = co_await asio::async_write(up, asio::buffer(rest), use_tuple);
      if (wec) co_return;
      log[rec].bytes_out += w;
    }
    co_await relay(s, up, rec);
  }

  // One absolute-form request: its head and body to `up`, the response back to the client.
  // `buf` holds what the client sent past the head; on return, what it sent past the body (the
  // next request's start). True when the client connection may carry another request.
  awaitable<bool> exchange(tcp::socket& s, tcp::socket& up, const ProxyRequest& req,
                           std::string& buf, size_t rec) {
    auto [ec, n] = co_await asio::async_write(up, asio::buffer(req.forward_head), use_tuple);
    if (ec) co_return false;
    log[rec].bytes_out += n;
    Clock::time_point last = Clock::now();
    bool body_sent = false;
    // The response ends the exchange: the body's sender waits once done (a server may answer
    // before the body ended: then the connection is not reused).
    auto done = co_await (send_body(s, up, req.body, buf, rec, last, body_sent) ||
                          relay_response(up, s, req, rec, last) || watchdog(s, up, last));
    co_return done.index() == 1 && std::get<1>(done) && body_sent;
  }

  awaitable<bool> send_body(tcp::socket& s, tcp::socket& up, BodyFraming framing,
                            std::string& buf, size_t rec, Clock::time_point& last, bool& sent) {
    // What follows the body is the next request's: kept for it in `buf`, never sent here.
    const std::function<void(size_t)> written = [this, rec, &last](size_t n) {
      log[rec].bytes_out += n;
      last = Clock::now();
    };
    if (!co_await forward_body(s, up, framing, buf, written)) co_return false;
    sent = true;
    asio::steady_timer parked(io, asio::steady_timer::time_point::max());
    co_await parked.async_wait(use_tuple);
    co_return true;
  }

  // The upstream's answer to one request, for the client: 1xx heads, then the final head with
  // the proxy's own Connection header, then exactly the body its framing says. True when the
  // client connection may carry another request.
  awaitable<bool> relay_response(tcp::socket& up, tcp::socket& s, const ProxyRequest& req,
                                 size_t rec, Clock::time_point& last) {
    std::string in;
    bool answered = false;
    auto gateway_error = [&](const char* what) -> awaitable<bool> {
      if (!answered)
        co_await answer(s, 502, "Bad Gateway", "",
                        fmt::format("cordon: {} {}.", host_port(req.host, req.port), what));
      co_return false;
    };
    for (;;) {
      auto [ec, n] = co_await asio::async_read_until(
          up, asio::dynamic_buffer(in, kProxyResponseHeadLimit), "\r\n\r\n", use_tuple);
      if (ec) co_return co_await gateway_error("closed the connection before it answered");
      auto head = parse_response_head(std::string_view(in).substr(0, n), req.method == "HEAD",
                                      req.keep_alive);
      if (!head) co_return co_await gateway_error("answered with a malformed response head");
      auto [wec, w] = co_await asio::async_write(s, asio::buffer(head->head), use_tuple);
      if (wec) co_return false;
      answered = true;
      log[rec].bytes_in += n;
      last = Clock::now();
      in.erase(0, n);
      if (head->status < 200 && head->status != 101) continue;  // 100 Continue, 103
      BodyCounter body(head->body);
      std::vector<char> chunk(64 * 1024);
      std::string_view have = in;
      for (;;) {
        size_t take = body.feed(have);
        if (take > 0) {
          auto [e2, w2] = co_await asio::async_write(s, asio::buffer(have.data(), take), use_tuple);
          if (e2) co_return false;
          log[rec].bytes_in += w2;
          last = Clock::now();
        }
        if (body.done()) co_return head->keep_alive;
        if (body.failed()) co_return false;
        auto [e3, got] = co_await up.async_read_some(asio::buffer(chunk), use_tuple);
        if (e3) {  // the end of a body read until close, or a cut one: the client's ends too
          asio::error_code ignored;
          s.shutdown(tcp::socket::shutdown_send, ignored);
          co_return false;
        }
        have = std::string_view(chunk.data(), got);
      }
    }
  }

  // SOCKS5 (RFC 1928), CONNECT only; no authentication, or RFC 1929's user and password when
  // the proxy asks for its password (LL-1).
  awaitable<void> serve_socks(tcp::socket& s) {
    auto reply = [&](unsigned char code) -> awaitable<void> {
      const unsigned char r[10] = {5, code, 0, 1, 0, 0, 0, 0, 0, 0};
      co_await asio::async_write(s, asio::buffer(r), use_tuple);
    };
    std::string host;
    int port = 0;
    {
      SocketDeadline d(s, limits.header_seconds);
      unsigned char n = 0;
      auto [e1, r1] = co_await asio::async_read(s, asio::buffer(&n, 1), use_tuple);
      if (e1) co_return;
      std::vector<unsigned char> methods(n);
      auto [e2, r2] = co_await asio::async_read(s, asio::buffer(methods), use_tuple);
      if (e2) co_return;
      const unsigned char wanted = password.empty() ? 0 : 2;
      const bool offered = std::find(methods.begin(), methods.end(), wanted) != methods.end();
      const unsigned char choice[2] = {5, static_cast<unsigned char>(offered ? wanted : 0xff)};
      auto [e3, r3] = co_await asio::async_write(s, asio::buffer(choice), use_tuple);
      if (e3 || !offered || (wanted == 2 && !co_await socks_login(s))) {
        if (wanted == 2) mark_unauthenticated(kSocksClient);
        co_return;
      }
      unsigned char h[4];
      auto [e4, r4] = co_await asio::async_read(s, asio::buffer(h), use_tuple);
      if (e4 || h[0] != 5) co_return;
      if (h[3] == 1 || h[3] == 4) {
        unsigned char a[16];
        size_t len = h[3] == 1 ? 4 : 16;
        auto [e5, r5] = co_await asio::async_read(s, asio::buffer(a, len), use_tuple);
        if (e5) co_return;
        char text[INET6_ADDRSTRLEN] = {};
        inet_ntop(h[3] == 1 ? AF_INET : AF_INET6, a, text, sizeof text);
        host = text;
      } else if (h[3] == 3) {
        unsigned char len = 0;
        auto [e5, r5] = co_await asio::async_read(s, asio::buffer(&len, 1), use_tuple);
        if (e5) co_return;
        host.resize(len);
        auto [e6, r6] = co_await asio::async_read(s, asio::buffer(host), use_tuple);
        if (e6) co_return;
      } else {
        co_await reply(8);  // address type not supported
        co_return;
      }
      unsigned char p[2];
      auto [e7, r7] = co_await asio::async_read(s, asio::buffer(p), use_tuple);
      if (e7) co_return;
      port = p[0] << 8 | p[1];
      if (h[1] != 1) {
        co_await reply(7);  // NET-7: no BIND, no UDP ASSOCIATE
        co_return;
      }
    }
    auto n = normalize_host(host);
    if (!n || port == 0) {
      record(host_port(n.value_or("(malformed)"), port), false, "malformed");
      co_await reply(2);
      co_return;
    }
    tcp::socket up(io);
    std::string rule;
    size_t rec = 0;
    Outcome o = co_await open_upstream(*n, port, up, rule, rec);
    if (o != Outcome::kConnected) {
      // NET-9: reply 2, "connection not allowed by ruleset"; 4 host unreachable; 5 refused.
      co_await reply(o == Outcome::kRefused ? 2 : o == Outcome::kUnresolved ? 4 : 5);
      co_return;
    }
    co_await reply(0);
    co_await relay(s, up, rec);
  }

  awaitable<void> serve(tcp::socket s, bool from_session) {
    // The frame may be destroyed with the io_context, after the Impl's other members: the
    // guard holds the session's budget itself.
    struct Active {
      unsigned& n;
      std::shared_ptr<ConnectionBudget> session;
      ~Active() {
        --n;
        if (session) session->give();
      }
    } guard{active, from_session ? session : nullptr};
    try {
      char first = 0;
      {
        SocketDeadline d(s, limits.header_seconds);
        auto [ec, n] = co_await asio::async_read(s, asio::buffer(&first, 1), use_tuple);
        if (ec) co_return;
      }
      if (first == 5)
        co_await serve_socks(s);
      else
        co_await serve_http(s, first);
    } catch (const std::exception&) {
      // One connection's failure never ends the proxy.
    }
  }

  awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, sock] = co_await acceptor.async_accept(use_tuple);
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
        asio::steady_timer t(io, std::chrono::milliseconds(50));  // EMFILE and the like
        co_await t.async_wait(use_tuple);
        continue;
      }
      // NET-8: 256 at once per command, and the session's limit over all its commands.
      if (active >= limits.max_connections) {
        record(kOverTheLimit, false,
               fmt::format("too many connections: {} at once per command",
                           limits.max_connections));
        continue;  // `sock` closes
      }
      if (session && !session->take()) {
        record(kOverTheLimit, false,
               fmt::format("too many connections: {} at once in this session", session->limit()));
        continue;
      }
      ++active;
      asio::co_spawn(io, serve(std::move(sock), session != nullptr), asio::detached);
    }
  }
};

bool ConnectionBudget::take() {
  unsigned n = used_.load();
  do {
    if (n >= limit_) return false;
  } while (!used_.compare_exchange_weak(n, n + 1));
  return true;
}

void ConnectionBudget::give() { --used_; }

ProxyServer::ProxyServer(int listen_fd, NetRules rules, std::vector<OwnNetwork> own,
                         ProxyLimits limits, HostAsk ask, std::shared_ptr<ConnectionBudget> session)
    : impl_(std::make_unique<Impl>()) {
  impl_->ask = std::move(ask);
  impl_->session = std::move(session);
  impl_->rules = std::move(rules);
  impl_->own = std::move(own);
  impl_->limits = limits;
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  bool v6 = getsockname(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0 &&
            ss.ss_family == AF_INET6;
  asio::error_code ec;
  impl_->acceptor.assign(v6 ? tcp::v6() : tcp::v4(), listen_fd, ec);
  if (ec) ::close(listen_fd);
}

ProxyServer::~ProxyServer() { (void)stop(); }

void ProxyServer::start() {
  if (impl_->thread.joinable() || !impl_->acceptor.is_open()) return;
  asio::co_spawn(impl_->io, impl_->accept_loop(), asio::detached);
  impl_->thread = std::thread([this] {
    for (;;) {
      try {
        impl_->io.run();
        return;
      } catch (const std::exception&) {
      }
    }
  });
}

void ProxyServer::require_password(std::string user, std::string password) {
  impl_->user = std::move(user);
  impl_->password = std::move(password);
}

void ProxyServer::use_credentials(std::shared_ptr<const CredentialProxying> credentials) {
  impl_->credentials = std::move(credentials);
}

std::vector<CredentialUse> ProxyServer::credential_uses() const { return impl_->uses; }

std::vector<NetConnection> ProxyServer::stop() {
  if (!impl_) return {};
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->asker.stop();  // queued questions are dropped; the one being asked is waited for
  impl_->asker.join();
  for (const auto& hp : impl_->unauthenticated) impl_->record(hp, false, kNoProxyPassword);
  impl_->unauthenticated.clear();
  return impl_->log;
}

}  // namespace cordon
