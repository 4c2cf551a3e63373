#include "plan/gpu_rules.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One name below a GPU folder ("card0"): no further folder, nothing hidden or special.
bool plain_name(std::string_view s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string_view::npos;
}

}  // namespace

const std::vector<std::string>& gpu_device_folders() {
  static const std::vector<std::string> folders = {"nvidia-caps", "dri"};
  return folders;
}

bool is_gpu_device_name(std::string_view rel) {
  for (const auto& f : gpu_device_folders())
    if (starts_with(rel, f + "/")) return plain_name(rel.substr(f.size() + 1));
  if (rel == "nvidiactl" || rel == "nvidia-modeset" || rel == "dxg") return true;
  if (starts_with(rel, "nvidia-uvm")) return plain_name(rel);  // nvidia-uvm, nvidia-uvm-tools
  return starts_with(rel, "nvidia") && all_digits(rel.substr(6));
}

void plan_gpu(const Policy& policy, const Facts& facts, bool seatbelt, Plan& p) {
  if (!policy.gpu) return;
  if (seatbelt) {
    p.warnings.push_back(fmt::format(
        "[sandbox] gpu = true in {} is not supported with the macOS sandbox (Seatbelt): "
        "commands get no GPU device access there. Fix: remove gpu from that file.",  // GPU-1
        p.config_file));
    return;
  }
  bool dxg = false;
  for (const auto& d : facts.machine.gpu_devices) {
    if (d == "/dev" || !path_within(d, "/dev") || normalize_path(d) != d) continue;
    if (!is_gpu_device_name(path_relative(d, "/dev"))) continue;
    p.mounts.push_back({MountKind::kDevBind, d, d, "gpu: device node ([sandbox] gpu = true)"});
    p.gpu.push_back(d);
    dxg |= d == "/dev/dxg";
  }
  if (dxg && facts.machine.wsl_gpu_libs) {
    p.mounts.push_back({MountKind::kRoBind, "/usr/lib/wsl", "/usr/lib/wsl",
                        "gpu: WSL2's GPU libraries, read-only"});
    p.gpu.push_back("/usr/lib/wsl (read-only)");
  }
  if (p.gpu.empty())
    p.notices.push_back(fmt::format(
        "[sandbox] gpu = true in {}, but no GPU device node was found (/dev/nvidia*, "
        "/dev/dri/*, /dev/dxg): commands see none. On the host, load the driver (for "  // GPU-1
        "example run nvidia-smi once) and start a new session.",
        p.config_file));
}

}  // namespace cordon
