#include "net/ssh_connect.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "config/net_entry.h"
#include "core/base64.h"

extern char** environ;

namespace cordon {

namespace {

constexpr size_t kMaxHead = 16 << 10;

int say(const std::string& what) {
  std::fprintf(stderr, "cordon: %s\n", what.c_str());
  return 1;
}

std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

int connect_to(const ProxyAddress& p) {
  sockaddr_storage ss{};
  socklen_t len = 0;
  auto* a4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* a6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (inet_pton(AF_INET, p.host.c_str(), &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons(static_cast<uint16_t>(p.port));
    len = sizeof *a4;
  } else if (inet_pton(AF_INET6, p.host.c_str(), &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(static_cast<uint16_t>(p.port));
    len = sizeof *a6;
  } else {
    errno = EINVAL;
    return -1;
  }
  int s = socket(ss.ss_family, SOCK_STREAM, 0);  // the helper runs nothing after it
  if (s < 0) return -1;
  if (connect(s, reinterpret_cast<sockaddr*>(&ss), len) != 0) {
    int e = errno;
    close(s);
    errno = e;
    return -1;
  }
  return s;
}

bool write_all(int fd, const char* d, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, d, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    d += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// The proxy's answer head (and what came after it); false when it never ended.
bool read_head(int s, std::string& head, std::string& rest) {
  char buf[4096];
  std::string got;
  for (;;) {
    if (size_t end = got.find("\r\n\r\n"); end != std::string::npos) {
      head = got.substr(0, end + 4);
      rest = got.substr(end + 4);
      return true;
    }
    if (got.size() > kMaxHead) return false;
    ssize_t n = read(s, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got.append(buf, static_cast<size_t>(n));
  }
}

// A refusal's body (the proxy says why, NET-9), read up to what it announced.
std::string refusal_text(int s, const std::string& head, std::string rest) {
  std::string lower = head;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t need = 0;
  if (size_t at = lower.find("content-length:"); at != std::string::npos)
    need = std::min<size_t>(std::strtoul(lower.c_str() + at + 15, nullptr, 10), kMaxHead);
  char buf[4096];
  while (rest.size() < need) {
    ssize_t n = read(s, buf, sizeof buf);
    if (n <= 0) break;
    rest.append(buf, static_cast<size_t>(n));
  }
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r')) rest.pop_back();
  return rest;
}

// Copies stdin to the tunnel and the tunnel to stdout until both ends closed.
int relay(int s, const std::string& first) {
  if (!first.empty() && !write_all(1, first.data(), first.size())) return 1;
  bool in_open = true, out_open = true;
  char buf[65536];
  while (out_open) {
    pollfd p[2] = {{s, POLLIN, 0}, {0, POLLIN, 0}};
    int n = poll(p, in_open ? 2 : 1, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t r = read(s, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        out_open = false;
        close(1);
      } else if (!write_all(1, buf, static_cast<size_t>(r))) {
        return 1;
      }
    }
    if (in_open && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t r = read(0, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        in_open = false;
        shutdown(s, SHUT_WR);  // half-close, passed on by the proxy (NET-8)
      } else if (!write_all(s, buf, static_cast<size_t>(r))) {
        return 1;
      }
    }
  }
  return 0;
}

}  // namespace

std::optional<ProxyAddress> parse_proxy_url(const std::string& url) {
  const std::string scheme = "http://";
  if (url.compare(0, scheme.size(), scheme) != 0) return std::nullopt;
  std::string rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find('/') != std::string::npos) return std::nullopt;
  ProxyAddress p;
  if (size_t at = rest.rfind('@'); at != std::string::npos) {
    std::string info = rest.substr(0, at);
    rest = rest.substr(at + 1);
    size_t colon = info.find(':');
    p.user = percent_decode(info.substr(0, colon));
    if (colon != std::string::npos) p.password = percent_decode(info.substr(colon + 1));
  }
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string host = rest.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  auto port = parse_port(rest.substr(colon + 1));
  unsigned char any[16];
  if (!port || (inet_pton(AF_INET, host.c_str(), any) != 1 &&
                inet_pton(AF_INET6, host.c_str(), any) != 1))
    return std::nullopt;
  p.host = host;
  p.port = *port;
  return p;
}

std::string proxy_url_of(const EnvMap& env) {
  for (const char* name :
       {"HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "HTTP_PROXY", "http_proxy"})
    if (auto v = env.get(name); v && !v->empty()) return *v;
  return "";
}

std::string connect_request(const std::string& host, int port, const ProxyAddress& proxy) {
  const std::string target =
      host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port)
                                          : fmt::format("{}:{}", host, port);
  std::string r = fmt::format("CONNECT {0} HTTP/1.1\r\nHost: {0}\r\n", target);
  if (!proxy.user.empty() || !proxy.password.empty())
    r += "Proxy-Authorization: Basic " + base64_encode(proxy.user + ":" + proxy.password) + "\r\n";
  return r + "\r\n";
}

int ssh_connect_main(int argc, char** argv) {
  if (argc != 4)
    return say("usage: cordon __ssh-connect HOST PORT (the ProxyCommand of git over ssh).");
  const std::string host = argv[2];
  auto port = parse_port(argv[3]);
  auto norm = normalize_host(host);
  if (!port || !norm) return say(fmt::format("\"{}:{}\" is not a host and port.", host, argv[3]));
  const EnvMap env = EnvMap::from_environ(environ);
  const std::string url = proxy_url_of(env);
  auto proxy = parse_proxy_url(url);
  if (!proxy)
    return say(fmt::format(
        "git over ssh goes through cordon's allowlist proxy, and this command has none "
        "(HTTPS_PROXY is {}). It works in a sandboxed command whose [network] allow lists "
        "the host with :22.",
        url.empty() ? "unset" : "not a proxy address"));
  int s = connect_to(*proxy);
  if (s < 0)
    return say(fmt::format("the allowlist proxy ({}:{}) could not be reached: {}.", proxy->host,
                           proxy->port, std::strerror(errno)));
  const std::string req = connect_request(host, *port, *proxy);
  std::string head, rest;
  if (!write_all(s, req.data(), req.size()) || !read_head(s, head, rest))
    return say("the allowlist proxy closed the connection before it answered.");
  const std::string status = head.substr(0, head.find("\r\n"));
  if (status.size() < 12 || status.compare(0, 5, "HTTP/") != 0 ||
      status.compare(status.find(' ') + 1, 3, "200") != 0) {
    std::string why = refusal_text(s, head, rest);
    return say(fmt::format("the allowlist proxy refused {}:{} ({}){}", host, *port, status,
                           why.empty() ? "." : ": " + why));
  }
  return relay(s, rest);
}

}  // namespace cordon
