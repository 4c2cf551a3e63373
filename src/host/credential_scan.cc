#include "host/credential_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/paths.h"
#include "core/strings.h"
#include "host/config_copy.h"
#include "host/path_info.h"
#include "plan/config_copy_rules.h"

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

// NET-3: whether the first `max` bytes of the regular file at `path` hold a private key block.
// Opened without following a link and without blocking (SEC-2: a FIFO is not read).
bool head_holds_private_key(const std::string& path, size_t max) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 40) {
    ::close(fd);
    return false;
  }
  thread_local std::string buf;
  buf.resize(std::min<size_t>(max, static_cast<size_t>(st.st_size)));
  size_t off = 0;
  while (off < buf.size()) {
    ssize_t r = ::read(fd, buf.data() + off, buf.size() - off);
    if (r <= 0) break;
    off += static_cast<size_t>(r);
  }
  ::close(fd);
  return holds_private_key(std::string_view(buf.data(), off));
}

// NET-3: a credential file whose other settings commands need (.npmrc: the registry, install
// settings) becomes a copy without the lines that hold its secrets; false when it is to be
// hidden whole instead (another kind, no copy could be written).
bool sanitized_copy(const std::string& name, const PathInfo& info, const std::string& cache_dir,
                    CredentialScan& scan) {
  ConfigFormat format;
  if (cache_dir.empty() || info.real_kind != Kind::kFile ||
      !project_credential_format(name, &format))
    return false;
  std::string text;
  if (!read_small_file(info.real, 1 << 20, text)) return false;
  SanitizedText s = sanitize_config_text(text, format);
  if (s.removed.empty()) return true;  // nothing secret in it: seen as it is
  std::string copy = write_content_named_copy(cache_dir, "credential-copies", s.text, "-" + name);
  if (copy.empty()) return false;
  scan.copies.push_back({info.real, info.path, copy, std::move(s.removed), true});
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
  auto too_many = [&](const std::string& path) {
    return fmt::format(
        "a networked command hides the project's credential files, but there are more than "
        "{} of them (the last found: {}); the command was not run. Move the ones you do not "
        "need out of the project, drop --network, or use --outside-sandbox.",
        lim.max_files, path);
  };
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
      if (!credential && !(type == DT_LNK && is_secrets_folder(name))) {
        // A private key under any name: a regular file's first bytes, or those of the file a
        // link in the project leads to (a link out of the project leads to what FS-4 hides).
        std::string target = path;
        if (type == DT_LNK) {
          PathInfo li = read_path_info(path);
          if (li.real.empty() || li.real_kind != Kind::kFile || !path_within(li.real, project))
            continue;
          target = li.real;
        } else if (type != DT_REG) {
          continue;
        }
        ++scan.files_read;
        if (!head_holds_private_key(target, lim.key_bytes)) continue;
        scan.files.push_back(read_path_info(path));
        if (scan.files.size() > lim.max_files) {
          closedir(d);
          return refuse(too_many(path));
        }
        continue;
      }
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
      if (sanitized_copy(name, info, lim.cache_dir, scan)) continue;
      scan.files.push_back(std::move(info));
      if (scan.files.size() > lim.max_files) {
        closedir(d);
        return refuse(too_many(path));
      }
    }
    closedir(d);
  }
  return scan;
}

}  // namespace cordon
