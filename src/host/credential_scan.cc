#include "host/credential_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "core/fnv1a.h"
#include "core/paths.h"
#include "core/strings.h"
#include "host/config_copy.h"
#include "host/file_open.h"
#include "host/path_info.h"
#include "plan/config_copy_rules.h"
#include "sys/fs_util.h"

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

// NET-3, PERF: what the first bytes of each file held, by the file's identity (device, inode,
// size, mtime and ctime: a command can set the mtime back, never the ctime), kept per project in
// cordon's cache folder (hidden from commands, FS-13), so that a networked command reads only
// the files made or changed since the last one looked.
class HeadCache {
 public:
  HeadCache(const std::string& cache_dir, const std::string& project) {
    if (cache_dir.empty()) return;
    file_ =
        path_join(cache_dir, fmt::format("key-scan/{:016x}", std::hash<std::string>{}(project)));
    auto text = read_file(file_, 256 << 20);
    if (!text.ok() || !starts_with(*text, kMagic)) return;
    text_ = std::move(*text);
    std::string_view v = text_;
    size_t pos = std::string_view(kMagic).size();
    old_.reserve(v.size() / 48);
    while (pos + 18 < v.size()) {  // "<16 hex><0|1><path>\n"
      size_t end = v.find('\n', pos);
      if (end == std::string_view::npos) break;
      uint64_t stamp = 0;
      for (size_t i = 0; i < 16; ++i) {
        char c = v[pos + i];
        stamp = stamp << 4 | static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
      }
      old_.emplace(v.substr(pos + 17, end - pos - 17), Entry{stamp, v[pos + 16] == '1'});
      pos = end + 1;
    }
  }

  // Whether the file at `path` (whose lstat is `st`) holds a private key in its first `max`
  // bytes; read only when its identity is not the one recorded.
  bool holds_key(const std::string& path, const struct stat& st, size_t max, size_t& reads) {
    uint64_t stamp = identity(st);
    auto it = old_.find(path);
    bool key;
    if (it != old_.end() && it->second.stamp == stamp) {
      key = it->second.key;
    } else {
      ++reads;
      key = head_holds_private_key(path, max);
      changed_ = true;
    }
    if (path.find('\n') == std::string::npos) now_.push_back({path, Entry{stamp, key}});
    return key;
  }

  // Written only when something changed (a file made, changed or gone).
  void save() {
    if (file_.empty() || (!changed_ && now_.size() == old_.size())) return;
    std::string out = kMagic;
    for (const auto& [path, e] : now_)
      out += fmt::format("{:016x}{}{}\n", e.stamp, e.key ? '1' : '0', path);
    if (make_dirs(path_parent(file_), 0700).ok()) (void)write_file_atomic(file_, out, false);
  }

 private:
  static constexpr const char* kMagic = "cordon-key-scan-v1\n";
  struct Entry {
    uint64_t stamp = 0;
    bool key = false;
  };
  // The identity of a file (FNV-1a over device, inode, size, mtime, ctime).
  static uint64_t identity(const struct stat& st) {
    const int64_t parts[] = {static_cast<int64_t>(st.st_dev), static_cast<int64_t>(st.st_ino),
                             static_cast<int64_t>(st.st_size), timespec_ns(stat_mtime(st)),
                             timespec_ns(stat_ctime(st))};
    Fnv1a h;
    for (int64_t p : parts) h.u64(static_cast<uint64_t>(p));
    return h.value;
  }
  std::string file_, text_;
  std::unordered_map<std::string_view, Entry> old_;  // views into text_
  std::vector<std::pair<std::string, Entry>> now_;
  bool changed_ = false;
};

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
  HeadCache heads(lim.cache_dir, project);
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
        struct stat st;
        int at = type == DT_LNK ? fstatat(AT_FDCWD, target.c_str(), &st, AT_SYMLINK_NOFOLLOW)
                                : fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW);
        if (at != 0 || !S_ISREG(st.st_mode)) continue;
        if (!heads.holds_key(target, st, lim.key_bytes, scan.files_read)) continue;
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
  heads.save();
  return scan;
}

}  // namespace cordon
