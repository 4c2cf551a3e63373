#include "core/output_log.h"

#include <algorithm>

namespace cordon {

namespace {

// Pieces are joined up to this size, so that dropping the oldest bytes stays cheap.
constexpr size_t kPieceJoin = 64 << 10;

int index_of(int stream) { return stream == 2 ? 1 : 0; }

}  // namespace

void OutputLog::add(int stream, std::string_view data) {
  if (data.empty()) return;
  stream = index_of(stream) + 1;
  if (!pieces_.empty() && pieces_.back().stream == stream &&
      pieces_.back().data.size() < kPieceJoin)
    pieces_.back().data.append(data);
  else
    pieces_.push_back(Piece{total_, stream, std::string(data)});
  total_ += data.size();
  held_[index_of(stream)] += data.size();
  trim(stream);
}

void OutputLog::trim(int stream) {
  size_t& held = held_[index_of(stream)];
  for (auto it = pieces_.begin(); held > per_stream_ && it != pieces_.end();) {
    if (it->stream != stream) {
      ++it;
      continue;
    }
    size_t excess = held - per_stream_;
    if (it->data.size() <= excess) {
      held -= it->data.size();
      it = pieces_.erase(it);
      continue;
    }
    it->data.erase(0, excess);
    it->pos += excess;
    held -= excess;
  }
}

OutputLog::Since OutputLog::since(uint64_t offset) const {
  Since s;
  offset = std::min(offset, total_);
  uint64_t returned = 0;
  for (const Piece& p : pieces_) {
    uint64_t end = p.pos + p.data.size();
    if (end <= offset) continue;
    size_t from = offset > p.pos ? static_cast<size_t>(offset - p.pos) : 0;
    (p.stream == 1 ? s.out : s.err).append(p.data, from, std::string::npos);
    returned += p.data.size() - from;
  }
  s.offset = total_;
  s.dropped = (total_ - offset) - returned;
  return s;
}

}  // namespace cordon
