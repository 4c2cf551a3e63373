// GPU-1 (issue 31): [sandbox] gpu = true gives sandboxed commands the GPU's device nodes.
// Pure: which nodes exist is a fact read on the host (src/host/gpu_facts); the rule here only
// names what may be bound and plans the mounts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/policy.h"
#include "plan/facts.h"
#include "plan/plan.h"

namespace cordon {

// Whether `rel`, a path below /dev ("nvidia0", "dri/renderD128"), names a GPU device node that
// gpu = true binds: nvidia<N>, nvidiactl, nvidia-uvm*, nvidia-modeset, nvidia-caps/<name>,
// dri/<name> and WSL2's dxg.
//   is_gpu_device_name("nvidia0") == true, is_gpu_device_name("nvidia") == false
bool is_gpu_device_name(std::string_view rel);

// The folders below /dev whose entries may be GPU device nodes ("nvidia-caps", "dri").
const std::vector<std::string>& gpu_device_folders();

// The mounts: each node of facts.machine.gpu_devices the rule names, dev-bound at its own path;
// /usr/lib/wsl read-only beside /dev/dxg. Nothing with gpu off; with Seatbelt (macOS), a
// warning that gpu is not supported there. /sys and the fresh /proc (with /proc/driver/nvidia)
// stay readable as every sandbox has them (FS-1, FS-9).
void plan_gpu(const Policy& policy, const Facts& facts, bool seatbelt, Plan& p);

}  // namespace cordon
