// The real clock for the approval machine (APR-5): steady_clock, which never jumps when the
// wall clock is set.
#pragma once

#include "approval/clock.h"

namespace cordon {

class SteadyClock : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override;
};

}  // namespace cordon
