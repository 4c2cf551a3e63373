#include "host/steady_clock.h"

namespace cordon {

std::chrono::steady_clock::time_point SteadyClock::now() const {
  return std::chrono::steady_clock::now();
}

}  // namespace cordon
