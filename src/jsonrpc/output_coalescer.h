// A running command's output gathered between two `exec/output` notifications (issue 30, live
// output): what came is added as it comes, and taken as pieces of one stream each, oldest
// first, at most `max_piece` bytes, never ending within a UTF-8 character unless it is the
// last take (so each piece is text the JSON line carries unchanged). Not thread-safe.
//
//   OutputCoalescer c;
//   c.add(1, "hel"); c.add(1, "lo\n"); c.add(2, "oops\n");
//   c.take(false);   // {1, "hello\n"}
//   c.take(false);   // {2, "oops\n"}
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace cordon::rpc {

class OutputCoalescer {
 public:
  struct Piece {
    int stream = 1;  // 1 stdout, 2 stderr
    std::string data;
  };

  explicit OutputCoalescer(size_t max_piece = size_t{64} << 10) : max_piece_(max_piece) {}

  void add(int stream, std::string_view data);
  // The oldest output that can go now; nullopt when none. `last`: nothing more will come, so an
  // unfinished UTF-8 character at the end goes too.
  std::optional<Piece> take(bool last);
  bool empty() const { return pending_.empty(); }

 private:
  size_t cut_at(const std::string& data, bool more_may_come) const;

  size_t max_piece_;
  std::deque<Piece> pending_;  // consecutive output of one stream is one entry
};

}  // namespace cordon::rpc
