// Facts: what the machine looks like right now, gathered by src/host/ before planning.
// Plain data so that tests can fake any situation (a symlinked .git, a 2,000-entry .vscode).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/folders.h"
#include "core/env.h"

namespace cordon {

enum class Kind { kMissing, kFile, kDir, kSymlink, kOther };
const char* to_string(Kind k);

// One path as lstat and realpath saw it.
struct PathInfo {
  std::string path;                 // absolute, lexically normalized, as asked
  Kind kind = Kind::kMissing;       // lstat kind of `path` itself
  std::string link_target;          // readlink text when `kind` is a symlink
  std::string real;                 // realpath (all links followed); empty when it does not resolve
  Kind real_kind = Kind::kMissing;  // kind of `real` (never kSymlink)
  uint64_t dev = 0, ino = 0;
  uint64_t nlink = 0;
  uint32_t mode = 0;  // st_mode of `real` (permission bits and type)
  uint32_t uid = 0;
  int64_t mtime_ns = 0;  // of `path` itself (lstat)
  uint64_t size = 0;     // of `path` itself (lstat)
  bool error = false;    // lstat/realpath failed for a reason other than "missing"
  int err = 0;           // errno of that failure

  bool exists() const { return kind != Kind::kMissing; }
};

// A hidden-list entry after home expansion and glob expansion (FS-4, FS-5).
struct HiddenFact {
  std::string entry;              // as listed ("~/.ssh", "~/.cargo/credentials*", "/srv/keys")
  std::string why;                // "default list", "[sandbox] hide", "cordon's config folder", ...
  std::vector<PathInfo> matches;  // each existing path the entry names (globs may give several)
  // FS-5: links below the matched folders whose targets lie outside them (`path` the link,
  // `real` the target), found when the session starts (src/host/hidden_links).
  std::vector<PathInfo> links;
};

// One entry below a protected folder.
struct ChildFact {
  std::string rel;  // project-relative
  Kind kind = Kind::kMissing;
  std::string link_target;  // for symlinks
  bool operator==(const ChildFact&) const = default;
};

// A protected-list entry as found in the project (PROT-1, PROT-5, PROT-9).
struct ProtectedFact {
  std::string rel;      // project-relative, without a trailing "/"
  bool folder = false;  // the entry names a folder (trailing "/")
  std::string why;      // "default list" or "[sandbox] protect"
  PathInfo info;        // lstat of <project>/<rel>
  // For folders: every entry below, recursively, as project-relative paths with kinds, up to
  // `entries_cap` + 1 entries (so "past the cap" can be told).
  std::vector<ChildFact> children;
  size_t entry_count = 0;   // entries counted (capped at cap + 1)
  bool unreadable = false;  // a folder (or a parent) that could not be listed (FS-10)
  std::vector<std::string> unreadable_dirs;  // project-relative folders that could not be read
  std::vector<std::string> tracked;          // tracked paths at or below rel (project-relative)
  // FS-2, PROT-7: the first component on the way to `rel` that is a link (project-relative),
  // when the entry can only be reached through one, and that link's text.
  std::string via_link;
  std::string via_link_target;
};

// A git file whose contents make git run code (GIT-1, GIT-2).
struct GitLockFact {
  PathInfo info;        // the path as found (exists)
  std::string why;      // "hooks folder", "repository config", "core.hooksPath", ...
  bool folder = false;  // lock the whole folder (hooks/, core.hooksPath, GIT-5)
};

struct GitFacts {
  bool repo = false;          // a repository was found for the project
  bool git_available = true;  // the git program could be run
  std::string dot_git;        // <project>/.git
  Kind dot_git_kind = Kind::kMissing;
  uint64_t dot_git_dev = 0, dot_git_ino = 0;  // GIT-9: the identity of <project>/.git (lstat)
  std::string git_dir;                        // real git folder (followed through a .git file)
  std::string common_dir;                     // real common folder (worktrees share it)
  bool commondir_existed = false;             // <git_dir>/commondir exists (GIT-3)
  std::vector<GitLockFact> locks;             // files and folders to lock, that exist now
  // Every path that is locked when it exists, and whether it exists now (GIT-4: one created
  // later gets a note).
  std::vector<std::pair<std::string, bool>> lock_candidates;
  // Symlinks on the way to locked files, with their targets (GIT-6).
  std::vector<std::pair<std::string, std::string>> links_on_the_way;
  size_t modules_entries = 0, worktrees_entries = 0;  // GIT-5
  // Project-relative paths tracked by git at or below the protected entries (PROT-3).
  std::vector<std::string> tracked;
  bool tracked_known = false;  // false when git could not say (then nothing is tracked)
  std::string index_stamp;     // identity of the index when `tracked` was read
};

// FS-12: a global git config file (or one it includes) that holds credentials, and the copy
// commands see in its place.
struct GitConfigCopyFact {
  std::string path;   // real path of the file
  std::string shown;  // as the user names it ("~/.gitconfig")
  std::string copy;   // the sanitized copy (under cordon's cache folder); "": none, hide it
  std::vector<std::string> removed;  // keys removed, credentials never printed
  // A known credential was among them (FS-12's allowlist also removes keys merely not known
  // to be safe): on macOS, where a copy cannot take the file's place, only then is the file
  // kept from commands.
  bool credential = true;
};

// Things about the machine that decide whether a sandbox can start (PROBE, BUD).
struct MachineFacts {
  std::string bwrap;           // absolute path of bwrap, empty when missing
  uint64_t arg_max = 2097152;  // sysconf(_SC_ARG_MAX)
  bool is_root = false;
  bool container_marker = false;  // /.dockerenv or /run/.containerenv
  std::string container_marker_path;
  int apparmor_restrict_userns = -1;  // the sysctl, -1 when absent
  std::string sandbox_exec;           // /usr/bin/sandbox-exec on macOS when present (MAC-1)
  // WSL-1: Windows through WSL2, from /proc/version and the mount table (src/host/wsl_facts).
  bool wsl = false;
  std::vector<std::string> windows_drives;  // mount points of Windows drives (/mnt/c)
  // Every spelling of each drive's Users folder that names an existing folder (/mnt/c/Users,
  // /mnt/c/users, ...: a drive folds case, and each spelling is a path of its own to Linux).
  std::vector<std::string> windows_users_dirs;
  std::string wsl_error;  // the mount table could not be read under WSL2 (then: unavailable)
  // GPU-1: the GPU's device nodes that exist (character devices, absolute paths under /dev,
  // from src/host/gpu_facts), read only with [sandbox] gpu = true.
  std::vector<std::string> gpu_devices;
  bool wsl_gpu_libs = false;  // /usr/lib/wsl exists (WSL2's GPU libraries, with /dev/dxg)
};

// PKG-1..4: the package caches, one entry per cache_tools() row (src/host/package_caches).
struct CacheFacts {
  std::string tools_dir;  // "project" mode: the project's sandbox cache folder (real,
                          // exists); "" when it could not be made (`error` says why)
  std::string error;
  // FS-13 hides cordon's cache folder (`cache_real`) behind an empty folder; in "project" mode
  // `view` is that folder instead: empty but for the chain `packages/<name>/tools`, the mount
  // point of the project's caches (bwrap cannot make one inside a read-only folder).
  std::string cache_real;
  std::string view;
  std::vector<PathInfo> own;      // the user's own cache of each tool ("shared" mode)
  std::vector<PathInfo> anchors;  // a mounted tool's folder in the home (`~/.cargo`)
};

// NET-12: the session's ssh folder, made on the host when the ssh route is on
// (src/host/ssh_folder): `dir` holds `config`, `known_hosts` (the user's, copied) and the
// placeholders the bwrap backend binds cordon's binary, the keys and the agent socket on.
struct SshKeyFact {
  std::string host;    // as in [ssh] keys
  std::string shown;   // the key file as written ("~/.ssh/id_ed25519_github")
  std::string real;    // the key file on the host; "" when it is missing or not a regular file
  std::string inside;  // where the command's ssh reads it
};
struct SshFacts {
  bool on = false;          // the folder was made for this command
  std::string dir;          // on the host
  std::string inside_dir;   // as the command sees it (/tmp/.cordon-ssh under bwrap)
  std::string exe;          // cordon's binary on the host (real)
  std::string exe_inside;   // as the command runs it
  std::vector<SshKeyFact> keys;
  std::string agent;         // the agent socket on the host, when given
  std::string agent_inside;  // as the command reaches it
  std::vector<std::string> problems;  // what could not be given, for a person
};

struct Facts {
  std::string home;                   // normalized home folder
  std::string cwd;                    // the caller's working folder (real)
  std::string project;                // real project root
  PathInfo project_info;              // for FS-10 / FS-11 checks
  bool project_searchable = true;     // FS-10: an unsearchable project refuses commands
  Folders folders;                    // lexical
  std::string config_real;            // realpath of the config file's folder + name (for CFG-5)
  std::vector<PathInfo> cordon_dirs;  // state, data, cache (real), for FS-8
  std::string session_id;
  std::string session_tmp;  // real path of the session's private temp folder (exists)
  std::string empty_file;   // cordon's empty read-only file (outside the project)
  std::string empty_dir;    // cordon's empty read-only folder (outside the project)
  EnvMap env;               // cordon's own environment
  std::vector<HiddenFact> hidden;
  std::vector<PathInfo> writable;  // one per [sandbox] writable entry, in order
  std::vector<ProtectedFact> protected_paths;
  GitFacts git;
  // Folders a command made unreadable inside the project (FS-10), project-relative: those
  // remembered by the session, on top of the ones the protected facts find now.
  std::vector<std::string> unreadable_dirs;
  // PROT-7: paths an earlier command planted that could not be moved aside and are still there.
  std::vector<std::string> pending_quarantine;
  // NET-3: credential files found afresh for a networked command (real paths, with kinds).
  std::vector<PathInfo> credential_files;
  std::string credential_scan_refusal;  // set when the scan must refuse (too many, unreadable)
  // NET-3: credential files a networked command sees as copies without their secrets (the
  // project's `.npmrc`, `.yarnrc.yml`, `.yarnrc`: the rest holds what installs need).
  std::vector<GitConfigCopyFact> credential_copies;
  std::vector<GitConfigCopyFact> git_config_copies;  // FS-12
  // FS-4: configs in the home folder seen as copies without their credentials (a shell's
  // startup files, Cargo's, Yarn's and pip's configs); `removed` names lines, never secrets.
  std::vector<GitConfigCopyFact> home_config_copies;
  // FS-5: set when the links inside hidden folders could not all be checked (past the bound).
  std::string hidden_links_refusal;
  MachineFacts machine;
  CacheFacts caches;
  SshFacts ssh;  // NET-12
};

}  // namespace cordon
