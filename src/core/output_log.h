// A background job's output (issue 30): both streams in the order they came, each byte at its
// place in one count over both (the offset a reader hands back to get what came after), and at
// most `per_stream` bytes held of each stream: the oldest go first, and a reader is told how
// many it missed. Not thread-safe: its owner guards it.
//
//   OutputLog log(1 << 20);
//   log.add(1, "a\n");  log.add(2, "oops\n");  log.add(1, "b\n");
//   auto s = log.since(0);   // s.out == "a\nb\n", s.err == "oops\n", s.offset == 9
//   log.since(s.offset);     // nothing new yet
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace cordon {

class OutputLog {
 public:
  explicit OutputLog(size_t per_stream = size_t{1} << 20) : per_stream_(per_stream) {}

  // A piece of stream 1 (stdout) or 2 (stderr).
  void add(int stream, std::string_view data);

  struct Since {
    std::string out, err;  // what each stream produced from the offset asked for, as held
    uint64_t offset = 0;   // every byte so far: the offset of the next call
    uint64_t dropped = 0;  // bytes after the offset asked for that are no longer held
  };
  // What came from `offset` on (an offset past the end counts as the end).
  Since since(uint64_t offset) const;
  uint64_t total() const { return total_; }

 private:
  struct Piece {
    uint64_t pos;  // of its first byte, in the count over both streams
    int stream;
    std::string data;
  };
  void trim(int stream);

  std::deque<Piece> pieces_;
  size_t held_[2] = {0, 0};
  uint64_t total_ = 0;
  size_t per_stream_;
};

}  // namespace cordon
