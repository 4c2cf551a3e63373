// resolve_command and find_command (process/process.h) for both process primitives: PATH
// lookups as execvp and a shell do them. POSIX calls only.
#include <sys/stat.h>
#include <unistd.h>

#include "core/paths.h"
#include "core/strings.h"
#include "process/process.h"

namespace cordon {

std::string resolve_command(const std::string& name, const EnvMap& env, const std::string& cwd) {
  if (name.find('/') != std::string::npos) return path_join(cwd, name);
  std::string path = env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  for (const auto& dir : split(path, ':')) {
    std::string d = dir.empty() ? cwd : path_join(cwd, dir);
    std::string p = path_join(d, name);
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

FoundCommand find_command(const std::string& name, const EnvMap& env, const std::string& cwd) {
  FoundCommand found;
  auto consider = [&](const std::string& p) {
    struct stat st;
    if (stat(p.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return false;
    if (access(p.c_str(), X_OK) == 0) {
      found = {p, true};
      return true;
    }
    if (found.path.empty()) found.path = p;
    return false;
  };
  if (name.find('/') != std::string::npos) {
    consider(path_join(cwd, name));
    return found;
  }
  std::string path = env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  for (const auto& dir : split(path, ':')) {
    std::string d = dir.empty() ? cwd : path_join(cwd, dir);
    if (consider(path_join(d, name))) break;
  }
  return found;
}

}  // namespace cordon
