// The host side of the command policy's pathname expansion (CMD-4): reads folders to find what
// a glob such as `/home/u?` or `/*/` would name. Bounded: at most `limit` matches and a fixed
// number of folder entries looked at; past either, the result says it is incomplete.
//
//   HostExpander e;
//   e.glob("/e?c", 100);   // {{"/etc"}, complete}
#pragma once

#include "commands/expansion.h"

namespace cordon {

class HostExpander : public Expander {
 public:
  Matches glob(const std::string& pattern, size_t limit) const override;
};

// One expander for the whole process (it holds no state).
const Expander* host_expander();

}  // namespace cordon
