// NET-8: where HTTP/1 messages end, so that every request on a kept-alive client connection is
// judged by itself and nothing of one request reaches another's upstream.
#include "plan/http_framing.h"

#include <gtest/gtest.h>

#include "plan/net_request.h"

namespace cordon {
namespace {

std::optional<BodyFraming> body_of(const std::string& head, std::string* why = nullptr) {
  auto f = header_fields(head);
  if (!f) return std::nullopt;
  return request_body(*f, why);
}

// NET-8: a request's body by its headers; contradictions are refused (request smuggling).
TEST(HttpFraming, RequestBody) {
  auto b = body_of("POST / HTTP/1.1\r\nContent-Length: 12\r\n\r\n");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->kind, BodyFraming::Kind::kLength);
  EXPECT_EQ(b->length, 12u);
  b = body_of("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->kind, BodyFraming::Kind::kChunked);
  b = body_of("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->kind, BodyFraming::Kind::kNone);
  b = body_of("POST / HTTP/1.1\r\nContent-Length: 5, 5\r\nContent-Length: 5\r\n\r\n");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->length, 5u);
  for (const char* bad : {
           "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: \r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
       }) {
    std::string why;
    EXPECT_FALSE(body_of(bad, &why)) << bad;
  }
  // Obsolete line folding and a blank before the colon are no header lines.
  EXPECT_FALSE(header_fields("POST / HTTP/1.1\r\nX: a\r\n b\r\n\r\n"));
  EXPECT_FALSE(header_fields("POST / HTTP/1.1\r\nContent-Length : 5\r\n\r\n"));
}

// NET-8: a chunked body is counted to its last chunk and trailers, and what follows (the next
// request) is not part of it.
TEST(HttpFraming, ChunkedBodyEndsWhereItEnds) {
  const std::string body = "4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\nTrailer: x\r\n\r\n";
  const std::string next = "GET http://denied.invalid/ HTTP/1.1\r\n\r\n";
  BodyCounter c({BodyFraming::Kind::kChunked, 0});
  EXPECT_EQ(c.feed(body + next), body.size());
  EXPECT_TRUE(c.done());
  // Byte by byte, the same.
  BodyCounter d({BodyFraming::Kind::kChunked, 0});
  size_t used = 0;
  for (char ch : body + next) {
    if (d.done()) break;
    used += d.feed(std::string_view(&ch, 1));
  }
  EXPECT_EQ(used, body.size());
  EXPECT_TRUE(d.done());
  // Malformed: no size, a bare LF, data longer than its size, a huge size, no CRLF after data.
  for (const char* bad :
       {"\r\n", "4\nWiki\r\n0\r\n\r\n", "4\r\nWikipedia\r\n0\r\n\r\n", "ffffffffffffffffff\r\n",
        "4\r\nWiki0\r\n\r\n", "-4\r\nWiki\r\n", "4\r\nWiki\r\n0\r\nX: a\nb\r\n\r\n"}) {
    BodyCounter e({BodyFraming::Kind::kChunked, 0});
    e.feed(bad);
    EXPECT_TRUE(e.failed()) << bad;
    EXPECT_FALSE(e.done()) << bad;
  }
  // Content-Length: exactly that many bytes.
  BodyCounter l({BodyFraming::Kind::kLength, 3});
  EXPECT_EQ(l.feed("ab"), 2u);
  EXPECT_FALSE(l.done());
  EXPECT_EQ(l.feed("cGET"), 1u);
  EXPECT_TRUE(l.done());
  BodyCounter none({});
  EXPECT_TRUE(none.done());
  EXPECT_EQ(none.feed("GET"), 0u);
}

// NET-8: the response head the client gets: framing by status and headers, the upstream's
// Connection headers (and those it names) replaced by the proxy's own.
TEST(HttpFraming, ResponseHead) {
  auto r = parse_response_head(
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\n"
      "Keep-Alive: timeout=5\r\nX-End: 2\r\n\r\n",
      false, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.kind, BodyFraming::Kind::kLength);
  EXPECT_EQ(r->head,
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-End: 2\r\nConnection: keep-alive\r\n\r\n");
  EXPECT_TRUE(r->keep_alive);
  r = parse_response_head("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", false, false);
  ASSERT_TRUE(r);
  EXPECT_NE(r->head.find("Connection: close"), std::string::npos);
  EXPECT_FALSE(r->keep_alive);
  // An upstream that closes, or speaks HTTP/1.0 without keep-alive: the client is told close.
  for (const char* closing : {"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\n",
                              "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\n"}) {
    r = parse_response_head(closing, false, true);
    ASSERT_TRUE(r) << closing;
    EXPECT_FALSE(r->keep_alive) << closing;
    EXPECT_NE(r->head.find("Connection: close"), std::string::npos) << closing;
  }
  r = parse_response_head("HTTP/1.0 200 OK\r\nContent-Length: 5\r\nConnection: Keep-Alive\r\n\r\n",
                          false, true);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->keep_alive);
  // Read until the upstream closes: the client connection closes too.
  r = parse_response_head("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n", false, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.kind, BodyFraming::Kind::kUntilClose);
  EXPECT_NE(r->head.find("Connection: close"), std::string::npos);
  r = parse_response_head("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.kind, BodyFraming::Kind::kChunked);
  r = parse_response_head(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", false, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.kind, BodyFraming::Kind::kUntilClose) << "both: never reused";
  for (const char* none : {"HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n",
                           "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n"}) {
    r = parse_response_head(none, false, true);
    ASSERT_TRUE(r) << none;
    EXPECT_EQ(r->body.kind, BodyFraming::Kind::kNone) << none;
  }
  r = parse_response_head("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", true, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.kind, BodyFraming::Kind::kNone) << "HEAD";
  r = parse_response_head("HTTP/1.1 100 Continue\r\n\r\n", false, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 100);
  EXPECT_EQ(r->head, "HTTP/1.1 100 Continue\r\n\r\n");
  for (const char* bad : {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n",
                          "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "SSH-2.0\r\n\r\n",
                          "HTTP/1.1 200OK\r\n\r\n"})
    EXPECT_FALSE(parse_response_head(bad, false, true)) << bad;
}

// NET-8: what the proxy reads of a request for keep-alive: its method, body and whether another
// request may follow; the upstream gets the Host that was judged, never the client's.
TEST(HttpFraming, ProxyRequestForKeepAlive) {
  std::string why;
  auto r = parse_proxy_request(
      "POST http://Allowed.test:8080/p HTTP/1.1\r\nHost: denied.invalid\r\nContent-Length: 3\r\n"
      "Connection: X-Secret\r\nX-Secret: 1\r\nAuthorization: Basic eA==\r\n\r\n",
      &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->method, "POST");
  EXPECT_EQ(r->body.kind, BodyFraming::Kind::kLength);
  EXPECT_TRUE(r->keep_alive);
  EXPECT_EQ(r->forward_head,
            "POST /p HTTP/1.1\r\nHost: allowed.test:8080\r\nContent-Length: 3\r\n"
            "Authorization: Basic eA==\r\nConnection: close\r\n\r\n");
  r = parse_proxy_request("GET http://a.test/ HTTP/1.1\r\nConnection: close\r\n\r\n", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_FALSE(r->keep_alive);
  r = parse_proxy_request("GET http://a.test/ HTTP/1.1\r\nProxy-Connection: Close\r\n\r\n", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_FALSE(r->keep_alive);
  r = parse_proxy_request("GET http://a.test/ HTTP/1.0\r\n\r\n", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_FALSE(r->keep_alive);
  for (const char* bad :
       {"POST http://a.test/ HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET http://a.test/ HTTP/1.1\r\nX: a\nHost: b\r\n\r\n",
        "GET http://a.test/ HTTP/1.1\r\nX: a\rHost: b\r\n\r\n",
        "GET http://a.test/ HTTP/1.1\r\nX: a\r\n folded\r\n\r\n"})
    EXPECT_FALSE(parse_proxy_request(bad, &why)) << bad;
}

}  // namespace
}  // namespace cordon
