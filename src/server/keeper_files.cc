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

std::optional<HeldProcess> running_keeper(const KeeperFiles& files) {
  auto text = read_file(files.pid, 256);
  if (!text.ok()) return std::nullopt;
  HeldProcess h;
  if (std::sscanf(text->c_str(), "%d %lld", &h.pid, &h.start) != 2) return std::nullopt;
  if (!process_alive(h.pid, h.start)) return std::nullopt;
  return h;
}

}  // namespace cordon
