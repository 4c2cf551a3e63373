#include "host/self_protection.h"

#if defined(__linux__)
#include <sys/prctl.h>
#elif defined(__APPLE__)
#include <sys/ptrace.h>
#include <sys/types.h>
#endif

namespace cordon {

void protect_own_process() {
#if defined(__linux__)
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  // The commands cordon starts are dumpable again after their execve.
  prctl(PR_SET_DUMPABLE, 0);
#elif defined(__APPLE__)
  ptrace(PT_DENY_ATTACH, 0, nullptr, 0);
#endif
}

}  // namespace cordon
