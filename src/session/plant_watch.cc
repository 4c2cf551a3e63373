#include "session/plant_watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "host/beneath.h"
#include "host/path_info.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// The text of a small file beneath the project, never through a link.
std::string read_beneath(const Beneath& b, const std::string& rel) {
  Fd fd(open_beneath(b.fd(), rel, O_RDONLY));
  if (fd.fd < 0) return "";
  std::string out;
  char buf[4096];
  ssize_t n;
  while (out.size() < (1 << 16) && (n = read(fd.fd, buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(n));
  return out;
}

// GIT-8: a `.git` file that git itself wrote for a submodule or a linked worktree of this
// repository is kept.
bool keep_submodule(const Beneath& b, const PlantedFind& f, const std::string& common_dir) {
  if (f.kind != Kind::kFile || path_base("/" + f.rel) != ".git") return false;
  std::string line = read_beneath(b, f.rel);
  line = trim(line.substr(0, line.find('\n')));
  if (!starts_with(line, "gitdir:")) return false;
  std::string folder = path_join(b.root(), path_parent("/" + f.rel).substr(1));
  std::string real = real_or_lexical(path_join(folder, trim(line.substr(7))));
  std::string text;
  for (const char* name : {"config", "config.worktree"})
    if (auto c = read_file(path_join(real, name), 1 << 20); c.ok()) text += *c + "\n";
  // A linked worktree's commondir must lead back to this repository (else its config, hooks
  // and fsmonitor are another's).
  if (auto c = read_file(path_join(real, "commondir"), 4096); c.ok()) {
    std::string target = real_or_lexical(path_join(real, trim(c->substr(0, c->find('\n')))));
    if (target != common_dir) return false;
  }
  return checkout_of_this_repository(real, common_dir, text);
}

// GIT-8: whether the git folder `dot_git` (project-relative) makes git run a program: its
// config names one, or a hook that is not one of git's `.sample` files is there. A `gitdir:`
// file or a link (somewhere else's config) counts as running one.
bool repo_runs_programs(const Beneath& b, const std::string& dot_git) {
  BeneathStat st = b.lstat(dot_git);
  if (st.kind == Kind::kMissing) return false;
  if (st.kind != Kind::kDir) return true;
  std::string text = read_beneath(b, dot_git + "/config");
  for (const char* name : {"/config.worktree", "/commondir"})
    if (b.lstat(dot_git + name).kind != Kind::kMissing) return true;
  if (git_config_runs_programs(text)) return true;
  Fd hooks = b.open_dir(dot_git + "/hooks");
  if (hooks.fd < 0) return false;
  for (const auto& name : list_names_at(hooks.fd))
    if (!ends_with(name, ".sample")) return true;
  return false;
}

void forget_name(DirIndex& idx, const std::string& rel) {
  std::string dir = path_parent("/" + rel).substr(1), name = path_base("/" + rel);
  for (auto& d : idx.dirs)
    if (d.rel == dir) {
      d.names.erase(std::remove_if(d.names.begin(), d.names.end(),
                                   [&](const Watched& w) { return w.name == name; }),
                    d.names.end());
      d.racy = true;  // listed again next time
    }
}

}  // namespace

std::optional<PlantWatch> PlantWatch::begin(const std::string& project,
                                            const std::string& index_file,
                                            const std::string& state_dir) {
  auto b = Beneath::open(project);
  if (!b.ok()) return std::nullopt;
  PlantWatch w;
  w.project_ = project;
  w.file_ = index_file;
  std::string lock_file = path_join(state_dir, "inflight/" + path_base(index_file) + ".lock");
  (void)make_dirs(path_parent(lock_file), 0700);
  w.lock_ = Fd(open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  bool built = false;
  w.baseline_ = load_dir_index(*b, index_file, &built);
  if (w.lock_.fd >= 0 && flock(w.lock_.fd, LOCK_EX | LOCK_NB) == 0) {
    // No other command of this project is in flight: what changed since is the user's.
    if (!built) {
      DirRefresh r = refresh_dir_index(*b, w.baseline_);
      if (r.changed) w.baseline_ = std::move(r.index);
      if (r.changed) (void)save_dir_index(index_file, project, w.baseline_);
    } else {
      (void)save_dir_index(index_file, project, w.baseline_);
    }
  }
  if (w.lock_.fd >= 0) flock(w.lock_.fd, LOCK_SH);
  trace("run: directory index ready");
  return w;
}

std::optional<PlantWatch> PlantWatch::from_disk(const std::string& project,
                                                const std::string& index_file) {
  auto b = Beneath::open(project);
  if (!b.ok()) return std::nullopt;
  PlantWatch w;
  w.project_ = project;
  w.file_ = index_file;
  w.baseline_ = load_dir_index(*b, index_file);
  return w;
}

void PlantWatch::finish(const std::string& common_dir, bool was_repo, AftercareOutcome& out) {
  auto b = Beneath::open(project_);
  if (!b.ok()) return;
  DirRefresh r = refresh_dir_index(*b, baseline_);
  std::vector<PlantedFind> plants = new_plants(baseline_.dirs, r.changes);
  if (!was_repo && repo_runs_programs(*b, ".git"))
    plants.insert(plants.begin(),
                  PlantedFind{".git", b->lstat(".git").kind,
                              "a git repository whose config or hooks run a program when git "
                              "runs in the project (GIT-8)"});
  for (const auto& f : plants) {
    if (keep_submodule(*b, f, common_dir)) continue;
    // A nested repository that was there before, changed: moved only if it now runs a program.
    if (f.changed && f.kind == Kind::kDir && !repo_runs_programs(*b, f.rel)) continue;
    std::string dir = path_parent("/" + f.rel).substr(1);
    Status moved = make_error("io", "no free name", f.rel, EEXIST);
    std::string name;
    for (int attempt = 0; attempt < 8 && !moved.ok() && moved.error().sys_errno == EEXIST;
         ++attempt) {
      name = quarantine_name(path_base("/" + f.rel), random_hex16());
      moved = b->rename(f.rel, dir, name);
    }
    if (moved.ok()) {
      std::string to = dir.empty() ? name : dir + "/" + name;
      out.moved.push_back(QuarantineMove{f.rel, to});
      out.notes.push_back(planted_note(f, to));
      forget_name(r.index, f.rel);
    } else {
      out.failed.push_back(path_join(project_, f.rel));
      out.notes.push_back(fmt::format(
          "the command created {} — {} — and cordon could not move it aside ({}). Sandboxed "
          "commands are refused until it is moved: move it away on the host (PROT-7).",
          f.rel, f.why, std::strerror(moved.error().sys_errno)));
    }
  }
  if (r.changed) (void)save_dir_index(file_, project_, r.index);
  lock_.reset();
}

}  // namespace cordon
