#include "sys/stage_failure.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cordon {

int stage_failure(const char* what, const char* step) {
  std::fprintf(stderr,
               "cordon: %s inside the sandbox (%s: %s); the command did not run. Run `cordon "
               "probe` to check the sandbox.\n",
               what, step, std::strerror(errno));
  return 125;
}

}  // namespace cordon
