#include "plan/net_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "config/net_entry.h"
#include "core/base64.h"
#include "core/strings.h"
#include "plan/http_framing.h"

namespace cordon {

namespace {

// "host:port", "[v6]:port", or "host" with `default_port`.
bool split_authority(std::string_view a, int default_port, std::string* host, int* port) {
  std::string_view h = a;
  std::optional<std::string_view> p;
  if (!a.empty() && a.front() == '[') {
    size_t close = a.find(']');
    if (close == std::string_view::npos) return false;
    h = a.substr(1, close - 1);
    if (close + 1 < a.size()) {
      if (a[close + 1] != ':') return false;
      p = a.substr(close + 2);
    }
  } else if (size_t colon = a.rfind(':'); colon != std::string_view::npos) {
    if (a.find(':') != colon) return false;  // a bare IPv6 address needs brackets
    h = a.substr(0, colon);
    p = a.substr(colon + 1);
  }
  int v = default_port;
  if (p) {
    auto n = parse_port(*p);
    if (!n) return false;
    v = *n;
  }
  if (v <= 0) return false;
  auto n = normalize_host(h);
  if (!n) return false;
  *host = *n;
  *port = v;
  return true;
}

bool hop_by_hop(const std::string& name) {
  return name == "proxy-connection" || name == "proxy-authorization" || name == "connection" ||
         name == "keep-alive" || name == "te" || name == "trailer" || name == "upgrade" ||
         name == "proxy-authenticate";
}

std::vector<std::string_view> lines_of(std::string_view head) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < head.size()) {
    size_t end = head.find("\r\n", pos);
    if (end == std::string_view::npos) end = head.size();
    out.push_back(head.substr(pos, end - pos));
    pos = end + 2;
  }
  return out;
}

// The value of the first field named `name`, or empty.
std::string field_value(const std::vector<HeaderField>& fields, const std::string& name) {
  for (const auto& f : fields)
    if (f.name == name) return f.value;
  return "";
}

// Compares without stopping at the first difference: the time taken does not tell how much
// of a guess was right.
bool same_text(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

}  // namespace

bool proxy_credential_matches(std::string_view value, const std::string& user,
                              const std::string& password) {
  size_t sp = value.find(' ');
  if (sp == std::string_view::npos || to_lower(value.substr(0, sp)) != "basic") return false;
  std::string_view token = value.substr(sp + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  auto decoded = base64_decode(token);
  return decoded && same_text(*decoded, user + ":" + password);
}

std::string host_port(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) return fmt::format("[{}]:{}", host, port);
  return fmt::format("{}:{}", host, port);
}

std::optional<ProxyRequest> parse_proxy_request(std::string_view head, std::string* why) {
  auto fail = [&](const char* w) -> std::optional<ProxyRequest> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (head.size() > kProxyHeaderLimit) return fail("the header block is longer than 16 KiB");
  for (unsigned char c : head)
    if ((c < 0x20 && c != '\r' && c != '\n' && c != '\t') || c == 0x7f)
      return fail("the request holds a control character");
  for (size_t i = 0; i < head.size(); ++i)
    if ((head[i] == '\r') != (i + 1 < head.size() && head[i + 1] == '\n') ||
        (head[i] == '\n' && (i == 0 || head[i - 1] != '\r')))
      return fail("the request holds a line break that is not CR LF");
  auto lines = lines_of(head);
  if (lines.empty()) return fail("empty request");
  std::string_view first = lines[0];
  size_t s1 = first.find(' ');
  size_t s2 = first.rfind(' ');
  if (s1 == std::string_view::npos || s1 == s2)
    return fail("the request line is not METHOD TARGET VERSION");
  std::string_view method = first.substr(0, s1);
  std::string_view target = first.substr(s1 + 1, s2 - s1 - 1);
  std::string_view version = first.substr(s2 + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return fail("not an HTTP/1 request");
  ProxyRequest r;
  if (method == "CONNECT") {
    r.connect = true;
    if (!split_authority(target, 0, &r.host, &r.port))
      return fail("CONNECT needs host:port with a valid host name");
    if (auto fields = header_fields(head))
      r.proxy_authorization = field_value(*fields, "proxy-authorization");
    return r;
  }
  if (to_lower(target.substr(0, std::min<size_t>(7, target.size()))) != "http://")
    return fail("the proxy takes CONNECT host:port and absolute http:// requests only");
  std::string_view rest = target.substr(7);
  size_t slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  std::string path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (path[0] == '?') path = "/" + path;
  if (authority.find('@') != std::string_view::npos)
    return fail("a user name in the URL is not passed on");
  if (!split_authority(authority, 80, &r.host, &r.port))
    return fail("the URL's host is not a valid host name");
  auto fields = header_fields(head);
  if (!fields) return fail("a header line is malformed (no name, or folded onto the next line)");
  auto body = request_body(*fields, why);
  if (!body) return std::nullopt;
  r.method = std::string(method);
  r.body = *body;
  r.proxy_authorization = field_value(*fields, "proxy-authorization");
  r.keep_alive = version == "HTTP/1.1" && !has_token(*fields, "connection", "close") &&
                 !has_token(*fields, "proxy-connection", "close");
  // The upstream gets the Host that was judged (RFC 9112 3.2.2: a proxy replaces the Host it
  // received with the target's), so a request for an allowed name cannot name another.
  r.forward_head = fmt::format("{} {} {}\r\nHost: {}\r\n", method, path, version,
                               to_lower(authority));
  std::vector<std::string> named = header_tokens(*fields, "connection");
  for (auto& t : header_tokens(*fields, "proxy-connection")) named.push_back(std::move(t));
  for (const auto& f : *fields) {
    if (hop_by_hop(f.name) || f.name == "host" ||
        std::find(named.begin(), named.end(), f.name) != named.end())
      continue;
    r.forward_head.append(f.line);
    r.forward_head += "\r\n";
  }
  r.forward_head += "Connection: close\r\n\r\n";
  return r;
}

}  // namespace cordon
