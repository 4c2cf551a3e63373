// GPU-1 (issue 31): which of the GPU's device nodes exist on the host. Read only with
// [sandbox] gpu = true; the planner (plan/gpu_rules.h) decides what is bound from this list.
#pragma once

#include <string>

#include "plan/facts.h"

namespace cordon {

struct GpuFactsInput {
  std::string dev = "/dev";               // the folder listed; the paths reported are /dev/...
  std::string wsl_libs = "/usr/lib/wsl";  // WSL2's GPU libraries
};

// Fills machine.gpu_devices with the character devices under `dev` (and its nvidia-caps/ and
// dri/ folders) whose names plan/gpu_rules.h lists, sorted, and machine.wsl_gpu_libs. A folder
// that cannot be listed gives nothing (then nothing is bound).
void read_gpu_facts(MachineFacts& machine, const GpuFactsInput& in = {});

}  // namespace cordon
