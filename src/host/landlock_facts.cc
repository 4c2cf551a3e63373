#include "host/landlock_facts.h"

#include <dirent.h>

#include <algorithm>

namespace cordon {

namespace {

bool list_folder(const std::string& dir, std::vector<std::string>& names) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return true;
}

}  // namespace

LandlockInput read_landlock_input(const std::vector<std::string>& hidden,
                                  const std::vector<std::string>& writable) {
  LandlockInput in;
  in.hidden = hidden;
  for (const auto& p : landlock_machine_private()) in.hidden.push_back(p);
  in.writable = writable;
  in.devices = landlock_default_devices();
  for (const auto& dir : landlock_folders_to_list(in.hidden)) {
    std::vector<std::string> names;
    if (list_folder(dir, names)) in.listings.emplace(dir, std::move(names));
  }
  return in;
}

}  // namespace cordon
