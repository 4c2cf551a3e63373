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
#include "core/env.h"
#include "core/trace.h"
#include "host/beneath.h"
#include "host/git_folder_reader.h"
#include "host/path_info.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

extern "C" char** environ;

// The environment host git calls see (only to find the git program; run_git removes what
// would point it elsewhere).
const EnvMap& host_env() {
  static const EnvMap env = EnvMap::from_environ(environ);
  return env;
}

// GIT-8: a `.git` file is kept only when it is one `gitdir:` line naming a submodule's or a
// linked worktree's git folder of this repository (under the common folder's modules/ or
// worktrees/), and that folder is known clean. Why not, or "".
std::string git_file_judgment(const Beneath& b, const std::string& rel,
                              const std::string& common_dir) {
  auto text = read_regular_beneath(b, rel, 1 << 16);
  if (!text) return "it cannot be read as a regular file";
  std::string target;
  if (std::string why = git_file_unclean(*text, &target); !why.empty()) return why;
  if (common_dir.empty()) return "the project has no git folder for it to belong to";
  std::string folder = path_join(b.root(), path_parent("/" + rel).substr(1));
  std::string real = normalize_path(path_join(folder, target));
  std::string common = real_or_lexical(common_dir);
  GitFolderRole role = GitFolderRole::kSubmodule;
  bool inside = false;
  for (const char* sub : {"modules", "worktrees"}) {
    std::string top = path_join(common, sub);
    if (real != top && path_within(real, top)) {
      inside = true;
      if (std::string(sub) == "worktrees") role = GitFolderRole::kWorktree;
    }
  }
  if (!inside) return "its `gitdir:` line leads outside this repository's submodules and worktrees";
  auto cb = Beneath::open(common);
  if (!cb.ok()) return "this repository's git folder cannot be opened";
  GitFolderFacts facts = read_git_folder(*cb, path_relative(real, common), common, host_env());
  if (std::string why = git_folder_unclean(facts, role); !why.empty())
    return "the git folder it names: " + why;
  return "";
}

// GIT-8: why the planted `.git` at `rel` is not known clean ("" to keep it).
std::string git_judgment(const Beneath& b, const PlantedFind& f, const std::string& common_dir) {
  BeneathStat st = b.lstat(f.rel);
  if (st.kind == Kind::kFile) return git_file_judgment(b, f.rel, common_dir);
  GitFolderFacts facts = read_git_folder(b, f.rel, common_dir, host_env());
  return git_folder_unclean(facts, GitFolderRole::kNested);
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
  } else if (w.lock_.fd >= 0) {
    w.others_in_flight_ = true;
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
  std::vector<PlantedFind> plants = new_plants(baseline_.dirs, r.changes, others_in_flight_);
  // `git init` at the root of a project that was not a repository: judged like a nested one.
  if (!was_repo && b->lstat(".git").kind != Kind::kMissing)
    plants.insert(plants.begin(),
                  PlantedFind{".git", b->lstat(".git").kind,
                              "a git repository: its config or hooks could run a program when "
                              "git runs in the project"});
  for (auto f : plants) {
    // GIT-8: a nested git folder or `.git` file is kept only when known clean.
    std::string reason;
    if (path_base("/" + f.rel) == ".git") {
      reason = git_judgment(*b, f, common_dir);
      if (reason.empty()) continue;
    }
    std::string dir = path_parent("/" + f.rel).substr(1);
    Status moved = make_error(ErrorKind::kIo, "no free name", f.rel, EEXIST);
    std::string name;
    for (int attempt = 0; attempt < 8 && !moved.ok() && moved.error().sys_errno == EEXIST;
         ++attempt) {
      name = quarantine_name(path_base("/" + f.rel), random_hex16());
      moved = b->rename(f.rel, dir, name);
    }
    if (moved.ok()) {
      std::string to = dir.empty() ? name : dir + "/" + name;
      out.moved.push_back(QuarantineMove{f.rel, to});
      out.notes.push_back(planted_note(f, to, reason));
      forget_name(r.index, f.rel);
    } else {
      out.failed.push_back(path_join(project_, f.rel));
      out.notes.push_back(fmt::format(
          "the command created {} — {} — and cordon could not move it aside ({}). Sandboxed "
          "commands are refused until it is moved: move it away on the host.",  // PROT-7
          f.rel, f.why, std::strerror(moved.error().sys_errno)));
    }
  }
  // FS-10: a folder the command made unlistable hides what is below it from the index: it is
  // read-only for the rest of the session, and the result says so.
  for (const auto& rel : r.unlistable) {
    if (std::find(out.newly_unreadable.begin(), out.newly_unreadable.end(), rel) !=
        out.newly_unreadable.end())
      continue;
    out.newly_unreadable.push_back(rel);
    out.notes.push_back(fmt::format(
        "the command made {} impossible to list, so cordon cannot check what is inside (a git "
        "folder there could run a program); it is read-only for the rest of this session. "
        "Check its contents before restoring its permissions (chmod u+rwx {}).",
        rel, shell_quote(rel)));
  }
  if (r.changed) (void)save_dir_index(file_, project_, r.index);
  lock_.reset();
}

}  // namespace cordon
