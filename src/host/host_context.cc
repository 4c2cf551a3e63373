#include "host/host_context.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

#include "config/config_file.h"
#include "core/paths.h"
#include "host/path_info.h"
#include "sys/fs_util.h"

namespace cordon {

HostContext read_host_context(EnvMap env, const std::string& cwd) {
  HostContext c;
  c.env = std::move(env);
  std::string home = c.env.value("HOME");
  if (home.empty() || home[0] != '/') home = passwd_home();
  c.home = normalize_path(home);
  if (!cwd.empty()) {
    c.cwd = real_or_lexical(cwd);
  } else {
    char* here = getcwd(nullptr, 0);
    c.cwd = here ? real_or_lexical(here) : "/";
    free(here);
  }
  c.folders = resolve_folders(c.env, c.home, c.cwd);
  c.exe = own_executable();
  return c;
}

std::string own_executable() {
#if defined(__APPLE__)
  char buf[4096];
  uint32_t size = sizeof buf;
  if (_NSGetExecutablePath(buf, &size) == 0) return real_or_lexical(buf);
  return "cordon";
#else
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "cordon";
#endif
}

Result<Policy> load_user_policy(const Folders& folders) {
  const std::string& file = folders.config_file;
  struct stat st;
  if (stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      Policy p;
      p.source_file = file;
      return p;
    }
    return make_error(ErrorKind::kConfig,
                      fmt::format("{}: cannot read the config ({}). Fix its permissions.", file,
                                  std::strerror(errno)),
                      file, errno);
  }
  auto text = read_file(file, 4 << 20);
  if (!text.ok())
    return make_error(ErrorKind::kConfig, fmt::format("{}: {}", file, text.error().message), file);
  return parse_config(*text, file);
}

}  // namespace cordon
