// NET-8: one HTTP body forwarded as its framing says (a length, chunks, or until the sender
// closes), for the proxy's plain requests and the credential relay's TLS streams alike.
//
//   std::function<void(size_t)> counted = [&](size_t n) { bytes_out += n; };
//   if (!co_await forward_body(client, upstream, framing, buf, counted)) co_return;
#pragma once

#include <asio.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/http_framing.h"

namespace cordon {

// Writes to `to` the body that starts in `buf` (what was read past the head) and continues in
// `from`, telling `written(n)` of each write. What follows the body (the next request's or
// response's start) is left in `buf`, never sent. False when a side failed or the body was
// malformed or cut short. `written` is taken by reference: name it before the co_await (a
// std::function: g++ 12 refuses a lambda's type in a coroutine's frame).
template <typename From, typename To>
asio::awaitable<bool> forward_body(From& from, To& to, BodyFraming framing, std::string& buf,
                                   const std::function<void(size_t)>& written) {
  constexpr auto as_tuple = asio::experimental::as_tuple(asio::use_awaitable);
  BodyCounter body(framing);
  std::vector<char> chunk(64 * 1024);
  std::string_view have = buf;
  for (;;) {
    const size_t take = body.feed(have);
    if (take > 0) {
      auto [ec, w] = co_await asio::async_write(to, asio::buffer(have.data(), take), as_tuple);
      if (ec) co_return false;
      written(w);
    }
    std::string rest(have.substr(take));
    if (body.failed()) co_return false;
    if (body.done()) {
      buf = std::move(rest);
      co_return true;
    }
    auto [ec, got] = co_await from.async_read_some(asio::buffer(chunk), as_tuple);
    if (ec) co_return false;  // the end of a body read until close, or a cut one
    buf.assign(chunk.data(), got);
    have = buf;
  }
}

}  // namespace cordon
