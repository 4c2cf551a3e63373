// The hidden list (FS-4, FS-6, FS-8): which paths read as empty inside the sandbox.
#pragma once

#include <string>
#include <vector>

#include "config/folders.h"
#include "config/policy.h"

namespace cordon {

struct HideEntry {
  std::string entry;  // as a person reads it ("~/.ssh", "/srv/keys")
  std::string path;   // absolute, lexical; may end in a glob in its last component
  std::string why;
  bool glob = false;  // last component holds `*` or `?`
};

// One row of FS-4's home-relative default list: the path, whether it is a folder, and the tool
// that writes it there with what it holds (and where that is documented).
struct HiddenHomeRow {
  const char* rel;
  bool folder;
  const char* holds;
};

// FS-4's home-relative default list as data, one row per entry (tested row by row).
const std::vector<HiddenHomeRow>& hidden_home_rows();

// The home-relative default list of FS-4, in order (the `rel` of each row).
const std::vector<std::string>& default_hidden_home_entries();

// True when the default entry `rel` is a folder (a row marked so).
bool hidden_home_entry_is_folder(const std::string& rel);

// The agents' own config entries of the default list (FS-7: a project may live inside them,
// for example a harness's worktrees, and they then stay visible).
const std::vector<std::string>& harness_config_home_entries();

// Absolute system paths hidden by default (FS-4): /etc/shadow, the ssh host keys, ...
const std::vector<std::string>& default_hidden_system_entries();

// Every entry to look for, in order: the defaults under home (and under CORDON_HOME, FS-6),
// cordon's own config and data folders (FS-4, FS-8), then `[sandbox] hide`.
std::vector<HideEntry> hide_entries(const Policy& policy, const Folders& folders,
                                    const std::string& home);

}  // namespace cordon
