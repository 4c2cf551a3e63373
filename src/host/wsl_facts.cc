#include "host/wsl_facts.h"

#include <dirent.h>
#include <sys/stat.h>

#include "plan/wsl_detect.h"
#include "sys/fs_util.h"

namespace cordon {

void read_wsl_facts(MachineFacts& machine, const WslFactsInput& in) {
  auto version = read_file(in.proc_version, 1 << 16);
  if (!version.ok() || !is_wsl_kernel(*version)) {
    machine.wsl = false;
    return;
  }
  auto mounts = read_file(in.mountinfo, 16 << 20);
  FolderProbe probe;
  probe.list = [](const std::string& dir) -> std::optional<std::vector<std::string>> {
    DIR* d = opendir(dir.c_str());
    if (!d) return std::nullopt;
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(std::move(n));
    }
    closedir(d);
    return names;
  };
  probe.is_dir = [](const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  };
  detect_wsl(*version, mounts.ok() ? *mounts : std::string(), probe, machine);
  if (!mounts.ok()) machine.wsl_error = mounts.error().message;
}

}  // namespace cordon
