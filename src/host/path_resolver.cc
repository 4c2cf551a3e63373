#include "host/path_resolver.h"

#include <climits>

#include "host/path_info.h"

namespace cordon {

std::string resolve_path_for_policy(const std::string& path) {
  // A command line may hold any word; bound the work each one costs (one realpath per
  // component at worst).
  if (path.empty() || path[0] != '/' || path.size() >= PATH_MAX) return "";
  return real_or_lexical(path);
}

PathResolver host_path_resolver() { return &resolve_path_for_policy; }

}  // namespace cordon
