// Time for the approval machine (APR-5), injected so that the pure code reads no clock and tests
// never wait. The real one is host/steady_clock.h.
#pragma once

#include <chrono>

namespace cordon {

class Clock {
 public:
  virtual ~Clock() = default;
  // A monotonic time (steady_clock's epoch, so a face can wait until a deadline with it).
  virtual std::chrono::steady_clock::time_point now() const = 0;
};

}  // namespace cordon
