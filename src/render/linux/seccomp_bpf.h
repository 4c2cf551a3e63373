// Compiles the plan's seccomp rules into a BPF program with libseccomp.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "plan/plan.h"

namespace cordon {

// Returns the raw BPF program (struct sock_filter[]) as bytes, for `bwrap --seccomp FD`.
// Syscalls unknown to this architecture are skipped. Refusals return their errno; the default
// action is to allow.
Result<std::string> compile_seccomp(const std::vector<SeccompRule>& rules);

}  // namespace cordon
