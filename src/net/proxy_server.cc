#include "net/proxy_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <asio.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "config/net_entry.h"
#include "plan/net_request.h"

namespace cordon {

namespace {

using asio::awaitable;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;
constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
using Clock = std::chrono::steady_clock;

// Cancels what waits on a socket once `seconds` have passed (NET-8: the request must arrive
// within 10 s). The handler touches the socket only when the time really ran out, so it is safe
// after the socket is gone: the destructor cancels the wait first.
class Deadline {
 public:
  Deadline(tcp::socket& s, int seconds) : timer_(s.get_executor()) {
    timer_.expires_after(std::chrono::seconds(seconds));
    timer_.async_wait([&s](const asio::error_code& ec) {
      if (!ec) {
        asio::error_code ignored;
        s.cancel(ignored);
      }
    });
  }
  ~Deadline() { timer_.cancel(); }

 private:
  asio::steady_timer timer_;
};

enum class Outcome { kConnected, kRefused, kUnresolved, kUnreachable };

std::string http_answer(int code, const char* reason, const std::string& refusal,
                        const std::string& body) {
  std::string head = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: text/plain; charset=utf-8\r\n"
      "Content-Length: {}\r\nConnection: close\r\n",
      code, reason, body.size() + 1);
  if (!refusal.empty()) head += fmt::format("X-Cordon-Refusal: {}\r\n", refusal);
  return head + "\r\n" + body + "\n";
}

}  // namespace

struct ProxyServer::Impl {
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  NetRules rules;
  std::vector<std::string> own;
  ProxyLimits limits;
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

  std::optional<HostAnswer> answered(const std::string& hp) {
    std::lock_guard<std::mutex> lock(answers_mu);
    auto it = answers.find(hp);
    if (it == answers.end()) return std::nullopt;
    return it->second;
  }

  HostAnswer ask_now(const std::string& hp) {
    if (auto a = answered(hp)) return *a;  // asked while this question waited in line
    HostAnswer a;
    try {
      a = ask(hp);
    } catch (const std::exception& e) {
      a = {false, std::string("the question could not be asked: ") + e.what()};
    }
    std::lock_guard<std::mutex> lock(answers_mu);
    return answers.emplace(hp, a).first->second;
  }

  // The connection waits here, the serving thread does not.
  awaitable<HostAnswer> ask_about(const std::string& hp) {
    if (auto a = answered(hp)) co_return *a;
    // Named, not temporaries inside the co_await: g++ 12 destroys such temporaries twice.
    auto job = [this, hp]() -> awaitable<HostAnswer> { co_return ask_now(hp); };
    HostAnswer a = co_await asio::co_spawn(asker, std::move(job), asio::use_awaitable);
    co_return a;
  }

  size_t record(const std::string& hp, bool allowed, const std::string& rule) {
    auto it = index.find(hp);
    if (it == index.end()) {
      it = index.emplace(hp, log.size()).first;
      log.push_back(NetConnection{hp, allowed, rule, 0, 0, 0});
    }
    NetConnection& c = log[it->second];
    if (!allowed && c.allowed) {  // a refusal (by address) after an earlier success shows
      c.allowed = false;
      c.rule = rule;
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
      HostAnswer a = co_await ask_about(hp);
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
      if (ec || results.empty()) {
        rule = "could not resolve " + host;
        rec = record(hp, true, v.rule);
        co_return Outcome::kUnresolved;
      }
      for (const auto& r : results) eps.push_back(r.endpoint());
    }
    for (const auto& ep : eps) {
      std::string addr = canonical_ip(ep.address().to_string()).value_or("?");
      if (auto why = refused_address(addr, own); why && !v.names_address) {
        rule = fmt::format("address {}, {}", addr, *why);
        rec = record(hp, false, rule);
        co_return Outcome::kRefused;
      }
    }
    auto [ec, ep] = co_await asio::async_connect(up, eps, use_tuple);
    rec = record(hp, true, v.rule);
    if (ec) {
      rule = ec.message();
      co_return Outcome::kUnreachable;
    }
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

  awaitable<void> serve_http(tcp::socket& s, char first) {
    std::string buf(1, first);
    std::optional<ProxyRequest> req;
    std::string why;
    size_t end = 0;
    {
      Deadline d(s, limits.header_seconds);
      auto [ec, n] = co_await asio::async_read_until(
          s, asio::dynamic_buffer(buf, kProxyHeaderLimit), "\r\n\r\n", use_tuple);
      if (ec) {
        if (ec == asio::error::not_found)
          co_await answer(s, 431, "Request Header Fields Too Large", "malformed",
                          "cordon: the request's header block is longer than 16 KiB.");
        else if (ec == asio::error::operation_aborted)
          co_await answer(s, 408, "Request Timeout", "malformed",
                          "cordon: the request did not arrive within 10 seconds.");
        co_return;
      }
      end = n;
      req = parse_proxy_request(std::string_view(buf).substr(0, n), &why);
    }
    if (!req) {
      co_await answer(s, 400, "Bad Request", "malformed", "cordon: " + why + ".");
      co_return;
    }
    tcp::socket up(io);
    std::string rule;
    size_t rec = 0;
    Outcome o = co_await open_upstream(req->host, req->port, up, rule, rec);
    const std::string hp = host_port(req->host, req->port);
    if (o == Outcome::kRefused) {
      co_await answer(s, 403, "Forbidden", rule, refusal_body(hp, rule, rules.config_file));
      co_return;
    }
    if (o != Outcome::kConnected) {
      co_await answer(s, 502, "Bad Gateway", "",
                      fmt::format("cordon: {} could not be reached: {}.", hp, rule));
      co_return;
    }
    std::string rest = buf.substr(end);
    std::string first_out;
    if (req->connect) {
      std::string ok = "HTTP/1.1 200 Connection Established\r\n\r\n";
      auto [ec, n] = co_await asio::async_write(s, asio::buffer(ok), use_tuple);
      if (ec) co_return;
      first_out = std::move(rest);
    } else {
      first_out = req->forward_head + rest;
    }
    if (!first_out.empty()) {
      auto [ec, n] = co_await asio::async_write(up, asio::buffer(first_out), use_tuple);
      if (ec) co_return;
      log[rec].bytes_out += n;
    }
    co_await relay(s, up, rec);
  }

  // SOCKS5 (RFC 1928), CONNECT only, no authentication.
  awaitable<void> serve_socks(tcp::socket& s) {
    auto reply = [&](unsigned char code) -> awaitable<void> {
      const unsigned char r[10] = {5, code, 0, 1, 0, 0, 0, 0, 0, 0};
      co_await asio::async_write(s, asio::buffer(r), use_tuple);
    };
    std::string host;
    int port = 0;
    {
      Deadline d(s, limits.header_seconds);
      unsigned char n = 0;
      auto [e1, r1] = co_await asio::async_read(s, asio::buffer(&n, 1), use_tuple);
      if (e1) co_return;
      std::vector<unsigned char> methods(n);
      auto [e2, r2] = co_await asio::async_read(s, asio::buffer(methods), use_tuple);
      if (e2) co_return;
      bool none = std::find(methods.begin(), methods.end(), 0) != methods.end();
      const unsigned char choice[2] = {5, static_cast<unsigned char>(none ? 0 : 0xff)};
      auto [e3, r3] = co_await asio::async_write(s, asio::buffer(choice), use_tuple);
      if (e3 || !none) co_return;
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

  awaitable<void> serve(tcp::socket s) {
    struct Active {
      unsigned& n;
      ~Active() { --n; }
    } guard{active};
    try {
      char first = 0;
      {
        Deadline d(s, limits.header_seconds);
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
      if (active >= limits.max_connections) {  // NET-8: 256 at once
        record("(over the limit of connections)", false, "too many connections");
        continue;  // `sock` closes
      }
      ++active;
      asio::co_spawn(io, serve(std::move(sock)), asio::detached);
    }
  }
};

ProxyServer::ProxyServer(int listen_fd, NetRules rules, std::vector<std::string> own,
                         ProxyLimits limits, HostAsk ask)
    : impl_(std::make_unique<Impl>()) {
  impl_->ask = std::move(ask);
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

std::vector<NetConnection> ProxyServer::stop() {
  if (!impl_) return {};
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->asker.stop();  // queued questions are dropped; the one being asked is waited for
  impl_->asker.join();
  return impl_->log;
}

std::vector<std::string> own_addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    if (i->ifa_addr->sa_family == AF_INET)
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
    else if (i->ifa_addr->sa_family == AF_INET6)
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr, text,
                sizeof text);
    else
      continue;
    if (auto c = canonical_ip(text)) out.push_back(*c);
  }
  freeifaddrs(list);
  return out;
}

}  // namespace cordon
