#include "host/gpu_facts.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include "core/paths.h"
#include "plan/gpu_rules.h"

namespace cordon {

namespace {

// The character devices in `dir` (lstat: a link is not followed), as `prefix` + name.
void add_char_devices(const std::string& dir, const std::string& prefix,
                      std::vector<std::string>& out) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    std::string rel = prefix + e->d_name;
    if (!is_gpu_device_name(rel)) continue;
    struct stat st;
    if (lstat(path_join(dir, e->d_name).c_str(), &st) == 0 && S_ISCHR(st.st_mode))
      out.push_back(rel);
  }
  closedir(d);
}

}  // namespace

void read_gpu_facts(MachineFacts& machine, const GpuFactsInput& in) {
  std::vector<std::string> rels;
  add_char_devices(in.dev, "", rels);
  for (const auto& f : gpu_device_folders()) add_char_devices(path_join(in.dev, f), f + "/", rels);
  std::sort(rels.begin(), rels.end());
  machine.gpu_devices.clear();
  for (const auto& r : rels) machine.gpu_devices.push_back(path_join("/dev", r));
  struct stat st;
  machine.wsl_gpu_libs = stat(in.wsl_libs.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace cordon
