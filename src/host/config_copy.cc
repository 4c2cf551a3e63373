#include "host/config_copy.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>

#include "core/paths.h"
#include "host/listing_scope.h"
#include "host/path_info.h"
#include "plan/config_copy_rules.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

constexpr size_t kMaxBytes = 1 << 20;

// The file's text when it is a regular file of at most kMaxBytes, opened without following a
// link and without blocking (SEC-2: a command may have made it a FIFO). `too_big` when past.
bool read_regular(const std::string& path, std::string& out, bool& too_big) {
  too_big = false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxBytes) {
    ::close(fd);
    too_big = true;
    return false;
  }
  out.clear();
  char buf[8192];
  ssize_t n;
  while (out.size() <= kMaxBytes && (n = ::read(fd, buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return true;
}

}  // namespace

bool read_regular_file(const std::string& path, size_t max, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) <= max;
  out.clear();
  char buf[8192];
  ssize_t n;
  while (ok && out.size() <= max && (n = ::read(fd, buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return ok && out.size() <= max;
}

std::string write_content_named_copy(const std::string& cache_dir, const std::string& sub,
                                     const std::string& text, const std::string& suffix) {
  std::string dir = path_join(cache_dir, sub);
  std::string path =
      path_join(dir, fmt::format("{:016x}{}", std::hash<std::string>{}(text), suffix));
  auto old = read_file(path, kMaxBytes);
  if (old.ok() && *old == text) return path;
  if (!make_dirs(dir, 0700).ok()) return "";
  if (!write_file_atomic(path, text, false, 0644).ok()) return "";
  return path;
}

std::vector<GitConfigCopyFact> sanitized_home_configs(const std::vector<std::string>& homes,
                                                      const std::string& home,
                                                      const std::string& cache_dir) {
  std::vector<GitConfigCopyFact> out;
  // PERF-1: most rows do not exist; the copies are written to the cache, never looked up here.
  ListingScope listings;
  for (const auto& base : homes) {
    if (base.empty()) continue;
    for (const auto& row : sanitized_home_rows()) {
      PathInfo info = read_path_info(path_join(base, row.rel));
      if (info.real.empty() || info.real_kind != Kind::kFile) continue;
      bool seen = false;
      for (const auto& o : out) seen |= o.path == info.real;
      if (seen) continue;
      std::string text;
      bool too_big = false;
      if (!read_regular(info.real, text, too_big) && !too_big) continue;
      GitConfigCopyFact f{info.real, tilde_path(info.path, home), "", {}, true};
      if (too_big) {
        f.removed.push_back("the whole file (past 1 MiB, too large to look through)");
      } else {
        SanitizedText s = sanitize_config_text(text, row.format);
        if (s.removed.empty()) continue;
        f.removed = std::move(s.removed);
        if (!cache_dir.empty())
          f.copy = write_content_named_copy(cache_dir, "config-copies", s.text,
                                            "-" + path_base(info.real));
      }
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace cordon
