#include "host/credential_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/paths.h"
#include "core/strings.h"
#include "host/path_info.h"

namespace cordon {

namespace {

bool skipped_dir(std::string_view name) {
  return name == "node_modules" || name == "site-packages" || name == "__pycache__" ||
         name == ".git" || name == "target";
}

bool read_small_file(const std::string& path, uint64_t max, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > max) {
    ::close(fd);
    return false;
  }
  out.resize(static_cast<size_t>(st.st_size));
  size_t off = 0;
  while (off < out.size()) {
    ssize_t r = ::read(fd, out.data() + off, out.size() - off);
    if (r <= 0) break;
    off += static_cast<size_t>(r);
  }
  out.resize(off);
  ::close(fd);
  return true;
}

}  // namespace

CredentialScan scan_credentials(const std::string& project, const CredentialScanLimits& lim) {
  CredentialScan scan;
  auto refuse = [&](const std::string& why) {
    scan.refusal = why;
    scan.files.clear();
    return scan;
  };
  const std::string fix =
      "Fix its permissions on the host, drop --network (network: true), or run the command "
      "with --outside-sandbox (outside_sandbox: true).";
  std::vector<std::string> stack = {project};
  while (!stack.empty()) {
    std::string dir = std::move(stack.back());
    stack.pop_back();
    DIR* d = opendir(dir.c_str());
    if (!d)
      return refuse(
          fmt::format("a networked command hides the project's credential files, but "
                      "the folder {} cannot be read ({}), so they could not all be "
                      "found; the command was not run. {}",
                      dir, std::strerror(errno), fix));
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (++scan.entries_seen > lim.max_entries) {
        closedir(d);
        return refuse(
            fmt::format("a networked command hides the project's credential files, "
                        "but the project has more than {} entries to search (at {}); "
                        "the command was not run. Drop --network, or use "
                        "--outside-sandbox.",
                        lim.max_entries, dir));
      }
      std::string path = path_join(dir, name);
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (lstat(path.c_str(), &st) == 0)
          type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
      }
      if (type == DT_DIR) {
        if (is_secrets_folder(name)) {
          scan.files.push_back(read_path_info(path));
          continue;
        }
        if (!skipped_dir(name)) stack.push_back(path);
        continue;
      }
      bool credential = is_credential_name(name);
      if (!credential && !(type == DT_LNK && is_secrets_folder(name))) continue;
      PathInfo info = read_path_info(path);
      if (type == DT_LNK) {
        if (info.real.empty()) {
          // A dangling link leads to nothing to read; an unreadable one cannot be judged.
          if (info.error || access(path_parent(path).c_str(), X_OK) != 0)
            return refuse(
                fmt::format("a networked command hides the project's credential "
                            "files, but the link {} cannot be read; the command was "
                            "not run. {}",
                            path, fix));
          continue;
        }
      }
      if (is_pem_name(name) && info.real_kind == Kind::kFile) {
        std::string text;
        if (read_small_file(info.real, lim.max_public_pem, text) && pem_is_public_only(text))
          continue;  // NET-3: public certificates stay visible
      }
      if (info.real_kind != Kind::kFile && info.real_kind != Kind::kDir) continue;
      scan.files.push_back(std::move(info));
      if (scan.files.size() > lim.max_files) {
        closedir(d);
        return refuse(
            fmt::format("a networked command hides the project's credential files, "
                        "but there are more than {} of them (the last found: {}); "
                        "the command was not run. Move the ones you do not need out "
                        "of the project, drop --network, or use --outside-sandbox.",
                        lim.max_files, path));
      }
    }
    closedir(d);
  }
  return scan;
}

}  // namespace cordon
