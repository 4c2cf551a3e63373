// Which bwrap this machine has: `bwrap --version`, read once (PROBE-4) and kept beside the
// probe's cache, keyed by the bwrap file itself, so later commands do not run it again.
#pragma once

#include <optional>
#include <string>

#include "render/bwrap_version.h"

namespace cordon {

struct BwrapInfo {
  std::string path;
  std::optional<BwrapVersion> version;  // nullopt when `--version` said nothing we know
  std::string version_text;             // what `--version` printed (trimmed), or why not
  BwrapFeatures features;               // what cordon may pass to it
};

// `bwrap --version` for the bwrap at `bwrap`, remembered for this process and, in
// `cache_dir` ("" for none), for as long as the file is the same (path, inode, time).
//   read_bwrap_info("/usr/bin/bwrap", cache).version->str() == "0.8.0"
BwrapInfo read_bwrap_info(const std::string& bwrap, const std::string& cache_dir);

}  // namespace cordon
