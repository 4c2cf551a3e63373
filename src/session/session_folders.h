// The folders a session makes when it opens with the sandbox on: its private /tmp, the empty
// placeholders hidden paths are bound to, and the `[sandbox] writable` entries that do not
// exist yet (CFG-3).
#pragma once

#include <optional>
#include <string>

#include "config/folders.h"
#include "config/policy.h"
#include "core/env.h"
#include "core/result.h"

namespace cordon {

// Makes the private /tmp at `tmp` (mode 0700) and returns its real path. An error says what to
// fix, naming another sandbox around cordon when that is the likely cause (PROBE-4).
Result<std::string> make_private_tmp(const std::string& tmp, const std::string& cache_dir,
                                     const EnvMap& env);

struct Placeholders {
  std::string file, dir;
};
// The placeholders in `cache_dir`: made once, read-only (checked every time, changed only when
// wrong).
Placeholders make_placeholders(const std::string& cache_dir);

// Where a `[sandbox] writable` entry that does not exist yet may be made (where it really
// leads, links on the way followed), or nullopt when that leads into a hidden path or out of
// the home folder.
std::optional<std::string> writable_to_make(const std::string& entry, const Policy& policy,
                                            const Folders& folders, const std::string& home);

// Makes every `[sandbox] writable` entry that writable_to_make allows, so commands can use it.
void make_writable_entries(const Policy& policy, const Folders& folders, const std::string& home);

}  // namespace cordon
