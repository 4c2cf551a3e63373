// NET-8: where one HTTP/1 message ends (RFC 9112 section 6), so that the proxy judges every
// request on a kept-alive client connection by itself and sends each only to the upstream
// of its own host. Pure: headers in, framing out; the body is counted as it passes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// How a message's body ends.
struct BodyFraming {
  enum class Kind { kNone, kLength, kChunked, kUntilClose };
  Kind kind = Kind::kNone;
  unsigned long long length = 0;  // kLength
};

// One header line of a block, split (name lower-case, value without surrounding blanks).
struct HeaderField {
  std::string name;
  std::string_view line;  // the whole line, as received
  std::string value;
};

// The header lines after the start line, up to the empty line. Nothing when a line has no
// name or starts with a blank (obsolete line folding: refused, as RFC 9112 allows).
std::optional<std::vector<HeaderField>> header_fields(std::string_view head);

// The comma-separated items of every field named `name` (lower-case, trimmed, empty ones
// skipped): header_tokens(f, "connection") of "Connection: Keep-Alive, X-Foo" is
// {"keep-alive", "x-foo"}.
std::vector<std::string> header_tokens(const std::vector<HeaderField>& fields,
                                       const std::string& name);

// Whether a comma-separated header (Connection, Transfer-Encoding) names `token`,
// case-insensitively.
bool has_token(const std::vector<HeaderField>& fields, const std::string& name,
               const std::string& token);

// A request's body: chunked when Transfer-Encoding ends in chunked, else Content-Length, else
// none. Nothing (why set) when they contradict: both present, a Transfer-Encoding that does not
// end in chunked, Content-Length values that differ or are not digits.
std::optional<BodyFraming> request_body(const std::vector<HeaderField>& fields, std::string* why);

// An upstream's response head, for the client: the status, the body's framing, and the head
// as the client gets it (the hop-by-hop headers, and those the Connection header names,
// replaced by "Connection: keep-alive" or "Connection: close" as `keep_alive` says; a 1xx
// head passes unchanged).
struct ResponseHead {
  int status = 0;
  BodyFraming body;
  std::string head;
  bool keep_alive = false;  // the client may send another request (what the head says)
};
// `head` ends with the empty line. `head_request`: the request was HEAD (no body, whatever the
// headers say). Nothing when it is not an HTTP/1 status line with well-formed headers.
std::optional<ResponseHead> parse_response_head(std::string_view head, bool head_request,
                                                bool keep_alive);

// Counts a body as it passes: feed() takes the next bytes and says how many of them belong
// to the body; done() once it ended; failed() when a chunked body is malformed (the
// connection then ends).
// Example: BodyCounter c({kChunked}); c.feed("3\r\nabc\r\n0\r\n\r\nGET ...") == 15, c.done().
class BodyCounter {
 public:
  explicit BodyCounter(BodyFraming f);
  size_t feed(std::string_view data);
  bool done() const { return state_ == State::kDone; }
  bool failed() const { return state_ == State::kFailed; }

 private:
  enum class State {
    kSize,       // hex digits of a chunk's size
    kExtension,  // after the size: ";name=value" up to CR
    kSizeLf,
    kData,  // a chunk's bytes, or a Content-Length body's
    kDataCr,
    kDataLf,
    kTrailer,  // a trailer line, or the empty line that ends the body
    kTrailerLf,
    kUntilClose,  // every byte until the peer closes: never done()
    kDone,
    kFailed
  };
  void chunked_step(char c);
  State state_ = State::kDone;
  unsigned long long left_ = 0;  // kLength: bytes left; kData: bytes left in the chunk
  size_t digits_ = 0;
  size_t line_ = 0;           // bytes of the current extension or trailer line
  size_t trailer_ = 0;        // bytes of trailers in all
  bool length_only_ = false;  // a Content-Length body: kData ends it
};

}  // namespace cordon
