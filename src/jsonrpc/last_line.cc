#include "jsonrpc/last_line.h"

#include "core/strings.h"

namespace cordon::rpc {

namespace {

constexpr size_t kKept = 4096;  // a last line longer than this is cut anyway

// At most `max` bytes, not within a UTF-8 character, marked as cut.
std::string shortened(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  size_t n = max - 3;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "...";
}

}  // namespace

void LastLine::add(std::string_view data) {
  if (data.size() >= kKept) {
    tail_.assign(data.substr(data.size() - kKept));
    return;
  }
  tail_.append(data);
  if (tail_.size() > 2 * kKept) tail_.erase(0, tail_.size() - kKept);
}

std::string LastLine::line() const {
  std::string_view rest = trim_view(tail_);
  size_t start = rest.find_last_of("\r\n");
  std::string_view last = start == std::string_view::npos ? rest : rest.substr(start + 1);
  return shortened(trim_view(last), kMaxLength);
}

}  // namespace cordon::rpc
