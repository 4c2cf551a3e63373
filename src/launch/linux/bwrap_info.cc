#include "launch/linux/bwrap_info.h"

#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/paths.h"
#include "core/strings.h"
#include "process/process.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

std::string file_key(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "";
  return fmt::format("{}|{}:{}:{}.{}:{}", path, st.st_dev, st.st_ino, st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec, st.st_size);
}

std::string run_version(const std::string& bwrap) {
  ProcessSpec spec;
  spec.path = bwrap;
  spec.argv = {"bwrap", "--version"};
  spec.env.set("PATH", "/usr/local/bin:/usr/bin:/bin");
  spec.in = InputMode::kNull;
  spec.out = OutputMode::kCapture;
  spec.err = OutputMode::kCapture;
  spec.capture_limit = 4096;
  spec.timeout = std::chrono::seconds(10);
  spec.end_group_on_exit = true;
  spec.output_grace = std::chrono::milliseconds(100);
  auto o = run_process(spec);
  if (!o.ok()) return "could not run it: " + o.error().message;
  std::string out = trim(o->out);
  if (out.empty()) out = trim(o->err);
  if (o->exit_code != 0 && !parse_bwrap_version(out))
    return fmt::format("`--version` exited {}: {}", o->exit_code, out);
  return out;
}

BwrapInfo make_info(const std::string& bwrap, std::string text) {
  BwrapInfo i;
  i.path = bwrap;
  i.version_text = std::move(text);
  i.version = parse_bwrap_version(i.version_text);
  i.features = bwrap_features(i.version);
  return i;
}

}  // namespace

BwrapInfo read_bwrap_info(const std::string& bwrap, const std::string& cache_dir) {
  static std::mutex mu;
  static std::map<std::string, BwrapInfo> seen;
  const std::string key = file_key(bwrap);
  std::lock_guard<std::mutex> lock(mu);
  if (!key.empty()) {
    if (auto it = seen.find(key); it != seen.end()) return it->second;
  }
  std::string file = cache_dir.empty()
                         ? ""
                         : path_join(cache_dir, fmt::format("bwrap-version-{}.json", geteuid()));
  if (!file.empty() && !key.empty()) {
    auto text = read_file(file, 1 << 16);
    if (text.ok()) {
      try {
        auto j = nlohmann::json::parse(*text);
        if (j.value("key", "") == key) {
          BwrapInfo i = make_info(bwrap, j.value("version", ""));
          seen[key] = i;
          return i;
        }
      } catch (...) {
        // A damaged cache is read again from bwrap.
      }
    }
  }
  BwrapInfo i = make_info(bwrap, run_version(bwrap));
  if (!key.empty() && i.version) {
    // Only an answer that names a version is kept: a failed run is tried again next time.
    seen[key] = i;
    if (!file.empty()) {
      nlohmann::json j{{"key", key}, {"version", i.version_text}};
      (void)make_dirs(cache_dir, 0700);
      (void)write_file_atomic(file, j.dump() + "\n", false);
    }
  }
  return i;
}

}  // namespace cordon
