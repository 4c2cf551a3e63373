// The file tools' guards (FILE-1..6): pure decisions over a request and the facts about its path.
//
// The tools (file_tools/file_tools.h) run on the host, outside the sandbox, so these rules stand in
// for the sandbox: they refuse what a sandboxed command could never touch (hidden paths, kernel
// files, links out of the project), and ask before what the user must see (credential reads,
// writes outside the writable roots, writes to protected or locked paths).
//
// Usage:
//   FileContext ctx = make_file_context(policy, facts);          // once per session
//   std::string abs = resolve_file_path(ctx, "src/main.cc");     // where the path leads
//   FileFacts f = ...;                                            // lstat/realpath of `abs`
//   FileDecision d = decide_file_access(ctx, {FileTool::kRead, "src/main.cc"}, abs, f);
//   switch (d.verdict) { case kAllow: ...act on d.target...; case kAsk: ...d.ask...; ... }
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "approval/request.h"
#include "config/policy.h"
#include "core/result.h"
#include "plan/facts.h"
#include "plan/hidden_list.h"
#include "plan/protected_list.h"

namespace cordon {

// FILE-2: the largest file read_file and edit_file read, and search searches.
inline constexpr uint64_t kFileToolMaxBytes = 16ull * 1024 * 1024;

enum class FileTool { kRead, kWrite, kEdit, kSearch };
const char* to_string(FileTool t);  // "read_file", "write_file", "edit_file", "search"

// The approval kinds of SRV-1 that the file tools raise.
// The file tools ask with three of the approval kinds (APR-1): credential_read (FILE-4),
// write_outside (FILE-5) and protected_write (FILE-6); see approval/request.h.

// A question for the user (APR-1). The caller runs the approval and, when it is allowed, calls
// the tool again with `approved` set to this very Ask: it grants exactly this kind on exactly
// this path, so a path that now leads elsewhere asks again.
struct Ask {
  AskKind kind = AskKind::kCredentialRead;
  std::string path;  // the absolute path the tool would act on (links inside the project followed)
  std::string reason;  // a sentence for the person: "read_file reads .env, a credential file"
  bool operator==(const Ask& o) const { return kind == o.kind && path == o.path; }
};

// A hidden path (FS-4, FS-5) as the file tools match it. Empty list: nothing hidden.
struct HiddenPath {
  std::string path;   // absolute; with `glob`, its last component holds `*` or `?`
  std::string entry;  // as a person reads it ("~/.ssh")
  std::string why;    // "default list", "[sandbox] hide", ...
  bool glob = false;
};

// A git file or folder whose change makes git run code (GIT-1, GIT-2): writes ask (FILE-6).
struct LockedPath {
  std::string path;     // absolute
  std::string why;      // "hooks folder", "repository config", "core.hooksPath", ...
  bool folder = false;  // everything below `path` is locked too
};

// The session's policy as the file tools see it. Every path is absolute and normalized; the
// project, session_tmp and the roots should be real paths (links resolved).
struct FileContext {
  std::string project;  // the project root (always writable)
  std::string cwd;      // relative paths resolve here when it lies in the project; else project
  std::string home;     // for `~` and for messages
  // The session's private temp folder. A path under /tmp that is not in the project or a
  // writable root means this folder, as it does inside the sandbox (FS-3). Empty: no mapping.
  std::string session_tmp;
  std::vector<std::string> writable_roots;  // [sandbox] writable; empty: nothing extra
  // Folders inside writable roots that stay read-only to commands (cordon's own, FS-8): writes
  // there ask as if outside. Empty: none.
  std::vector<std::string> read_only_roots;
  std::vector<HiddenPath> hidden;               // empty: nothing hidden
  std::vector<ProtectEntry> protected_entries;  // PROT-1 with `**/` entries (protected_entries())
  std::vector<LockedPath> locked;               // empty: no git file locked
  // The project's git folders (`.git`, the real git folder, the common folder), absolute: the
  // files in them that decide what git runs are guarded even before they exist (FILE-6).
  // Empty: only paths through a `.git` component are recognised.
  std::vector<std::string> git_dirs;
  ApprovalMode approval_mode = ApprovalMode::kManual;  // approve-all skips FILE-4's ask
};

// A folder a write could turn into a git folder (FILE-6): which of the three things git looks
// for (a `HEAD` file beside `objects/` and `refs/` folders) it already has.
struct GitShape {
  std::string folder;  // absolute
  bool head = false, objects = false, refs = false;
};

// The facts about one resolved path, read by the tools (or faked by a test).
struct FileFacts {
  Kind kind = Kind::kMissing;  // lstat of the path itself
  std::string link_target;     // readlink text when `kind` is a symlink
  // The path with every link followed. For a path that does not exist: the real path of its
  // longest existing ancestor with the rest appended; for a dangling link: where it points.
  std::string real;
  Kind real_kind = Kind::kMissing;  // stat kind of `real` (never kSymlink)
  bool dangling = false;            // a link (somewhere on the way) points at nothing
  uint64_t size = 0;                // st_size of `real`
  uint64_t dev = 0, ino = 0;        // of `real`, so the tools can tell it was not swapped
  bool kernel_fs = false;           // `real` lies on procfs, sysfs or a kin (statfs)
  // For each folder git_shape_folders(real) names, what it holds (FILE-6).
  std::vector<GitShape> git_shapes;
  int err = 0;  // errno when the path could not be examined (0: fine)
};

struct FileRequest {
  FileTool tool = FileTool::kRead;
  std::string path;             // as the caller gave it
  std::optional<Ask> approved;  // the Ask the user allowed (see Ask)
};

enum class Verdict { kAllow, kAsk, kRefuse };
const char* to_string(Verdict v);

struct FileDecision {
  Verdict verdict = Verdict::kRefuse;
  std::string target;  // allow/ask: the absolute path to act on (links inside the project followed)
  std::string rel;     // `target` relative to the project; empty when outside it (or the root)
  Ask ask;             // kAsk
  // kRefuse: code "refused" (a rule), "invalid" (the request names nothing usable) or "io".
  Error error;
};

// Where `path` leads, lexically: `~` expanded, a relative path joined to the cwd (inside the
// project) or the project root, and /tmp mapped to the session's temp folder (FS-3).
// resolve_file_path(ctx{project="/p", cwd="/p/src"}, "a.cc") == "/p/src/a.cc"
// resolve_file_path(ctx{project="/p", cwd="/elsewhere"}, "a.cc") == "/p/a.cc"
std::string resolve_file_path(const FileContext& ctx, std::string_view path);

// The whole rule set, in order. Refusals come first, so a person is never asked a question
// whose answer cannot matter: FILE-3 (a link out of the project), hidden paths (FS-4, FILE-5),
// FILE-1 (kernel files, then the kind), FILE-2 (size), then the asks: FILE-4 for read_file,
// edit_file and search; FILE-5 and FILE-6 for write_file and edit_file. `abs` is
// resolve_file_path(ctx, req.path) and `facts` describe it.
FileDecision decide_file_access(const FileContext& ctx, const FileRequest& req,
                                const std::string& abs, const FileFacts& facts);

// The hidden entry that covers `abs`, if any (FS-4, with globs in the last component).
const HiddenPath* hidden_match(const FileContext& ctx, std::string_view abs);
// What a write to `abs` would change in a git folder that decides what git runs, where its
// objects and config are, or which folder is the repository (FILE-6, GIT-1..3): `config`,
// `config.worktree`, `commondir`, `gitdir`, `hooks/`, `info/attributes`,
// `objects/info/alternates`, everything in `worktrees/*/`, the same inside `modules/**`, and a
// `.git` file itself; whether the file exists or not. "" when none.
//   git_control_file(ctx, "/p/.git/commondir")   // "the git folder's commondir"
std::string git_control_file(const FileContext& ctx, std::string_view abs);
// The same for a path relative to a git folder ("config", "modules/a/b/hooks/x").
bool git_control_rel(std::string_view rel);

// The folders a write to `abs` could complete into a git folder: its parent when it is named
// `HEAD`, and every folder F with `abs` below F/objects/ or F/refs/ (FILE-6). The host reads
// what each holds into FileFacts::git_shapes.
//   git_shape_folders("/p/g/refs/heads/main")   // {"/p/g"}
std::vector<std::string> git_shape_folders(std::string_view abs);
// The folder the write would make a git folder (it would then hold HEAD, objects/ and refs/),
// or "" (the project's own git folders excepted).
std::string git_shape_completed(const FileContext& ctx, std::string_view abs,
                                const std::vector<GitShape>& shapes);

// The locked git path that covers `abs`, if any (FILE-6).
const LockedPath* locked_match(const FileContext& ctx, std::string_view abs);
// True when a write to `abs` needs no ask for place (FILE-5): the project, the session's temp
// folder, or a writable root outside every read-only root.
bool in_writable_place(const FileContext& ctx, std::string_view abs);
// FILE-1: /proc, /sys and below, lexically.
bool in_proc_or_sys(std::string_view abs);

// The refusals the rules give and the tools repeat when a re-check after opening finds the same
// (code "refused", path `abs`, the message naming `shown`).
Error refuse_not_regular(std::string_view shown, std::string_view abs);
Error refuse_kernel_file(std::string_view shown, std::string_view abs);
Error refuse_too_large(std::string_view shown, std::string_view abs);

// The file tools' context for a session: the project, cwd and home from `facts`, the session's
// temp folder, the existing [sandbox] writable paths, cordon's own folders as read-only roots,
// the hidden list (the entries as configured, and what they matched at session start, links
// and their targets both, FS-5; entries that hold the project or its git folder stay visible,
// FS-7), the protected list (PROT-1, PROT-9) and the locked git files (facts.git.locks).
FileContext make_file_context(const Policy& policy, const Facts& facts);

}  // namespace cordon
