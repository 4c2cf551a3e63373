#include "server/keeper_files.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "core/paths.h"
#include "sys/fs_util.h"

namespace cordon {

KeeperFiles keeper_files(const Folders& folders, const std::string& session) {
  KeeperFiles f;
  f.dir = SessionStore(folders).keeper_dir(session);
  f.socket = path_join(f.dir, "keeper.sock");
  f.lock = path_join(f.dir, "keeper.lock");
  f.pid = path_join(f.dir, "keeper.pid");
  f.loopback = path_join(f.dir, "loopback.pid");
  f.log = path_join(f.dir, "keeper.log");
  f.read = path_join(f.dir, "read");
  return f;
}

Status prepare_keeper_dir(const std::string& dir) {
  if (auto st = make_dirs(dir, 0700); !st.ok()) return st;
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 022) != 0)
    return make_error(ErrorKind::kState,
                      fmt::format("the keeper folder {} is not a folder of your own that only "
                                  "you can write; remove it and try again.",
                                  dir),
                      dir);
  return ok_status();
}

namespace {
std::optional<HeldProcess> read_held(const std::string& file) {
  auto text = read_file(file, 256);
  if (!text.ok()) return std::nullopt;
  HeldProcess h;
  if (std::sscanf(text->c_str(), "%d %lld", &h.pid, &h.start) != 2) return std::nullopt;
  if (!process_alive(h.pid, h.start)) return std::nullopt;
  return h;
}
}  // namespace

std::optional<HeldProcess> running_keeper(const KeeperFiles& files) { return read_held(files.pid); }

std::optional<HeldProcess> loopback_holder(const KeeperFiles& files) {
  if (!running_keeper(files)) return std::nullopt;
  return read_held(files.loopback);
}

void record_loopback_holder(const KeeperFiles& files, int pid, long long start) {
  (void)write_file_atomic(files.loopback, fmt::format("{} {}\n", pid, start), false, 0600);
}

}  // namespace cordon
