#include "jsonrpc/output_coalescer.h"

#include <algorithm>

namespace cordon::rpc {

namespace {

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The bytes of the UTF-8 character a lead byte starts (1 for anything else).
size_t char_length(char c) {
  const auto u = static_cast<unsigned char>(c);
  if ((u & 0xE0) == 0xC0) return 2;
  if ((u & 0xF0) == 0xE0) return 3;
  if ((u & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

void OutputCoalescer::add(int stream, std::string_view data) {
  if (data.empty()) return;
  if (pending_.empty() || pending_.back().stream != stream)
    pending_.push_back(Piece{stream, std::string()});
  pending_.back().data.append(data);
}

// Where the piece to send ends: at most max_piece_ bytes, not within a character (unless a
// character is all there is), and, while more may follow, not before a character's end.
size_t OutputCoalescer::cut_at(const std::string& data, bool more_may_come) const {
  size_t n = std::min(data.size(), max_piece_);
  if (n < data.size() || more_may_come) {
    size_t back = 0;
    while (back < 3 && back < n && continuation(data[n - back - 1])) ++back;
    // data[n - back - 1] is the character's lead byte when it is complete up to n.
    if (back < n && char_length(data[n - back - 1]) > back + 1) n -= back + 1;
  }
  return n;
}

std::optional<OutputCoalescer::Piece> OutputCoalescer::take(bool last) {
  if (pending_.empty()) return std::nullopt;
  Piece& front = pending_.front();
  const bool more_may_come = !last && pending_.size() == 1;
  size_t n = cut_at(front.data, more_may_come);
  if (n == 0) {
    if (more_may_come) return std::nullopt;  // half a character: wait for the rest
    n = std::min(front.data.size(), max_piece_);
  }
  Piece out{front.stream, front.data.substr(0, n)};
  front.data.erase(0, n);
  if (front.data.empty()) pending_.pop_front();
  return out;
}

}  // namespace cordon::rpc
