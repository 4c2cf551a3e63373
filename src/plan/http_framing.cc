#include "plan/http_framing.h"

#include <algorithm>

#include "core/strings.h"

namespace cordon {

namespace {

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<unsigned long long> decimal(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  unsigned long long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned long long>(c - '0');
  }
  return v;
}

// Content-Length: every value (fields and comma-separated items) the same number.
std::optional<unsigned long long> content_length(const std::vector<HeaderField>& fields,
                                                 bool* present) {
  std::optional<unsigned long long> value;
  *present = false;
  for (const auto& f : fields) {
    if (f.name != "content-length") continue;
    *present = true;
    std::string_view v = f.value;
    do {
      size_t comma = v.find(',');
      auto n = decimal(trim_ows(v.substr(0, comma)));
      if (!n || (value && *value != *n)) return std::nullopt;
      value = n;
      v = comma == std::string_view::npos ? std::string_view() : v.substr(comma + 1);
    } while (!v.empty());
  }
  return value;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool control(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t') || u == 0x7f;
}

bool framing_hop_by_hop(const std::string& name) {
  return name == "connection" || name == "keep-alive" || name == "proxy-connection" ||
         name == "upgrade" || name == "proxy-authenticate" || name == "te";
}

}  // namespace

std::vector<std::string> header_tokens(const std::vector<HeaderField>& fields,
                                       const std::string& name) {
  std::vector<std::string> out;
  for (const auto& f : fields) {
    if (f.name != name) continue;
    std::string_view v = f.value;
    while (!v.empty()) {
      size_t comma = v.find(',');
      std::string_view t = trim_ows(v.substr(0, comma));
      if (!t.empty()) out.push_back(to_lower(t));
      if (comma == std::string_view::npos) break;
      v.remove_prefix(comma + 1);
    }
  }
  return out;
}

std::optional<std::vector<HeaderField>> header_fields(std::string_view head) {
  std::vector<HeaderField> out;
  size_t pos = head.find("\r\n");
  if (pos == std::string_view::npos) return out;
  pos += 2;
  while (pos < head.size()) {
    size_t end = head.find("\r\n", pos);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 2;
    if (line.empty()) break;
    if (line.front() == ' ' || line.front() == '\t') return std::nullopt;  // obsolete folding
    size_t colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos) return std::nullopt;
    std::string_view name = line.substr(0, colon);
    if (name.find_first_of(" \t\r\n") != std::string_view::npos) return std::nullopt;
    if (line.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
    out.push_back({to_lower(name), line, std::string(trim_ows(line.substr(colon + 1)))});
  }
  return out;
}

bool has_token(const std::vector<HeaderField>& fields, const std::string& name,
               const std::string& token) {
  auto t = header_tokens(fields, name);
  return std::find(t.begin(), t.end(), token) != t.end();
}

std::optional<BodyFraming> request_body(const std::vector<HeaderField>& fields, std::string* why) {
  auto fail = [&](const char* w) -> std::optional<BodyFraming> {
    if (why) *why = w;
    return std::nullopt;
  };
  bool has_length = false;
  auto length = content_length(fields, &has_length);
  auto codings = header_tokens(fields, "transfer-encoding");
  bool has_coding = std::any_of(fields.begin(), fields.end(),
                                [](const HeaderField& f) { return f.name == "transfer-encoding"; });
  if (has_coding && has_length)
    return fail("the request has both Transfer-Encoding and Content-Length");
  if (has_coding) {
    if (codings.empty() || codings.back() != "chunked" ||
        std::count(codings.begin(), codings.end(), "chunked") != 1)
      return fail("the request's Transfer-Encoding does not end in chunked");
    return BodyFraming{BodyFraming::Kind::kChunked, 0};
  }
  if (has_length) {
    if (!length) return fail("the request's Content-Length is not one number");
    if (*length == 0) return BodyFraming{};
    return BodyFraming{BodyFraming::Kind::kLength, *length};
  }
  return BodyFraming{};
}

std::optional<ResponseHead> parse_response_head(std::string_view head, bool head_request,
                                                bool keep_alive) {
  size_t eol = head.find("\r\n");
  if (eol == std::string_view::npos) return std::nullopt;
  std::string_view first = head.substr(0, eol);
  if (first.size() < 12 || (first.substr(0, 9) != "HTTP/1.1 " && first.substr(0, 9) != "HTTP/1.0 "))
    return std::nullopt;
  auto code = decimal(first.substr(9, 3));
  if (!code || *code < 100 || *code > 999 || (first.size() > 12 && first[12] != ' '))
    return std::nullopt;
  for (char c : first)
    if (control(c)) return std::nullopt;
  auto fields = header_fields(head);
  if (!fields) return std::nullopt;
  ResponseHead r;
  r.status = static_cast<int>(*code);
  if (r.status < 200 && r.status != 101) {  // 100 Continue, 103 Early Hints: more heads follow
    r.head = std::string(head);
    return r;
  }
  bool has_length = false;
  auto length = content_length(*fields, &has_length);
  bool has_coding = std::any_of(fields->begin(), fields->end(),
                                [](const HeaderField& f) { return f.name == "transfer-encoding"; });
  auto codings = header_tokens(*fields, "transfer-encoding");
  if (head_request || r.status == 204 || r.status == 304) {
    r.body = {};
  } else if (r.status == 101 || (has_coding && has_length)) {
    r.body = {BodyFraming::Kind::kUntilClose, 0};  // another protocol, or a smuggling attempt
  } else if (has_coding) {
    r.body = !codings.empty() && codings.back() == "chunked"
                 ? BodyFraming{BodyFraming::Kind::kChunked, 0}
                 : BodyFraming{BodyFraming::Kind::kUntilClose, 0};
  } else if (has_length) {
    if (!length) return std::nullopt;
    r.body = *length == 0 ? BodyFraming{} : BodyFraming{BodyFraming::Kind::kLength, *length};
  } else {
    r.body = {BodyFraming::Kind::kUntilClose, 0};
  }
  // An upstream that says it closes, or an HTTP/1.0 one that does not say keep-alive, gets a
  // client that is told the same: a client that reads to the end of the connection still can.
  auto named = header_tokens(*fields, "connection");
  const bool upstream_keeps = std::find(named.begin(), named.end(), "close") == named.end() &&
                              (first.substr(5, 3) == "1.1" ||
                               std::find(named.begin(), named.end(), "keep-alive") != named.end());
  r.keep_alive = keep_alive && upstream_keeps && r.body.kind != BodyFraming::Kind::kUntilClose;
  const bool keep = r.keep_alive;
  r.head = std::string(first) + "\r\n";
  for (const auto& f : *fields) {
    if (framing_hop_by_hop(f.name) || std::find(named.begin(), named.end(), f.name) != named.end())
      continue;
    r.head.append(f.line);
    r.head += "\r\n";
  }
  r.head += keep ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  return r;
}

BodyCounter::BodyCounter(BodyFraming f) {
  switch (f.kind) {
    case BodyFraming::Kind::kNone:
      state_ = State::kDone;
      break;
    case BodyFraming::Kind::kLength:
      state_ = f.length == 0 ? State::kDone : State::kData;
      left_ = f.length;
      length_only_ = true;
      break;
    case BodyFraming::Kind::kChunked:
      state_ = State::kSize;
      break;
    case BodyFraming::Kind::kUntilClose:
      state_ = State::kUntilClose;
      break;
  }
}

size_t BodyCounter::feed(std::string_view data) {
  if (state_ == State::kUntilClose) return data.size();
  size_t i = 0;
  while (i < data.size() && state_ != State::kDone && state_ != State::kFailed) {
    if (state_ == State::kData) {
      auto n = static_cast<size_t>(std::min<unsigned long long>(left_, data.size() - i));
      i += n;
      left_ -= n;
      if (left_ == 0) state_ = length_only_ ? State::kDone : State::kDataCr;
      continue;
    }
    chunked_step(data[i++]);
  }
  return i;
}

void BodyCounter::chunked_step(char c) {
  constexpr size_t kLineLimit = 4096, kTrailerLimit = 16 * 1024;
  auto fail = [&] { state_ = State::kFailed; };
  switch (state_) {
    case State::kSize:
      if (int v = hex_value(c); v >= 0) {
        if (++digits_ > 15) return fail();
        left_ = left_ * 16 + static_cast<unsigned long long>(v);
      } else if (digits_ > 0 && (c == ';' || c == ' ' || c == '\t')) {
        state_ = State::kExtension;
      } else if (digits_ > 0 && c == '\r') {
        state_ = State::kSizeLf;
      } else {
        fail();
      }
      return;
    case State::kExtension:
      if (c == '\r')
        state_ = State::kSizeLf;
      else if (control(c) || ++line_ > kLineLimit)
        fail();
      return;
    case State::kSizeLf:
      if (c != '\n') return fail();
      line_ = 0;
      state_ = left_ == 0 ? State::kTrailer : State::kData;
      return;
    case State::kDataCr:
      if (c != '\r') return fail();
      state_ = State::kDataLf;
      return;
    case State::kDataLf:
      if (c != '\n') return fail();
      digits_ = 0;
      left_ = 0;
      state_ = State::kSize;
      return;
    case State::kTrailer:
      if (c == '\r')
        state_ = State::kTrailerLf;
      else if (control(c) || ++trailer_ > kTrailerLimit)
        fail();
      else
        ++line_;
      return;
    case State::kTrailerLf:
      if (c != '\n') return fail();
      state_ = line_ == 0 ? State::kDone : State::kTrailer;
      line_ = 0;
      return;
    default:
      return;
  }
}

}  // namespace cordon
