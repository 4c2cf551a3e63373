// LL-1: what a sandbox backend keeps and gives up, for `cordon policy`, `cordon probe` and the
// start notice. Pure.
#pragma once

#include <string>
#include <vector>

#include "render/backend_choice.h"

namespace cordon {

struct BackendLimits {
  std::vector<std::string> keeps;
  std::vector<std::string> gives_up;  // empty for bubblewrap, the reference backend
};

BackendLimits backend_limits(Backend b);

// The one-line start notice of a backend that gives something up; "" for bubblewrap. A
// fallback (LL-1: "auto" where bubblewrap cannot run) says why, and how to refuse instead.
std::string backend_notice(const BackendChoice& c);

}  // namespace cordon
