#include "session/session_folders.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/paths.h"
#include "core/strings.h"
#include "host/path_info.h"
#include "host/path_resolver.h"
#include "plan/hidden_list.h"
#include "plan/run_decisions.h"
#include "sys/fs_util.h"

namespace cordon {

Result<std::string> make_private_tmp(const std::string& tmp, const std::string& cache_dir,
                                     const EnvMap& env) {
  auto r = make_dirs(tmp, 0700);
  if (r.ok()) return real_or_lexical(tmp);
  // PROBE-4 (issue 28): a folder of the user's own that refuses a write: another sandbox.
  struct stat cs;
  const int err = r.error().sys_errno;
  const bool owned = ::stat(cache_dir.c_str(), &cs) == 0 && cs.st_uid == ::geteuid();
  const std::string outer =
      outer_sandbox_note(env, "", owned && (err == EROFS || err == EACCES || err == EPERM));
  return make_error(ErrorKind::kIo,
                    outer.empty()
                        ? fmt::format("cannot create the session's private /tmp at {} ({}). Fix: "
                                      "make {} writable by you.",
                                      tmp, std::strerror(err), cache_dir)
                        : fmt::format("cannot create the session's private /tmp at {} ({}): {}.",
                                      tmp, std::strerror(err), outer),
                    tmp, err);
}

Placeholders make_placeholders(const std::string& cache_dir) {
  std::string empty = path_join(cache_dir, "empty");
  Placeholders p{path_join(empty, "file"), path_join(empty, "dir")};
  struct stat ds, fs;
  if (stat(p.dir.c_str(), &ds) != 0) {
    (void)make_dirs(p.dir, 0755);
    ds.st_mode = 0;
  }
  if (stat(p.file.c_str(), &fs) != 0 || fs.st_size != 0) {
    (void)write_file_atomic(p.file, "", false, 0444);
    fs.st_mode = 0;
  }
  if ((ds.st_mode & 07777) != 0555) chmod(p.dir.c_str(), 0555);
  if ((fs.st_mode & 07777) != 0444) chmod(p.file.c_str(), 0444);
  return p;
}

// CFG-3: a writable entry is made where it really leads (links on the way followed), and only
// when that is still below the home folder and outside every hidden path: `~/wdir/sub` with
// `~/wdir -> ~/.ssh` must not create `~/.ssh/sub`.
std::optional<std::string> writable_to_make(const std::string& entry, const Policy& policy,
                                            const Folders& folders, const std::string& home_dir) {
  const std::string real = resolve_path_for_policy(expand_home(entry, home_dir));
  const std::string home = resolve_path_for_policy(home_dir);
  if (real.empty() || home.empty() || real == home || !path_within(real, home)) return std::nullopt;
  for (const auto& h : hide_entries(policy, folders, home_dir)) {
    if (h.path.empty() || h.path[0] != '/') continue;
    // A glob entry (`~/.cargo/credentials*`) hides the matches in its folder, not the folder.
    const std::string base = h.glob ? path_parent(h.path) : h.path;
    for (const std::string& p : {base, resolve_path_for_policy(base)}) {
      if (p.empty() || !path_within(real, p)) continue;
      if (!h.glob) return std::nullopt;
      if (real == p) continue;
      std::string rest = path_relative(real, p);
      if (glob_match(path_base(h.path), rest.substr(0, rest.find('/')))) return std::nullopt;
    }
  }
  return real;
}

void make_writable_entries(const Policy& policy, const Folders& folders, const std::string& home) {
  for (const auto& w : policy.writable)
    if (auto real = writable_to_make(w, policy, folders, home)) (void)make_dirs(*real, 0700);
}

}  // namespace cordon
