// Plan: everything the backend needs to run one command, decided by the pure planner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/policy.h"
#include "cordon/violation.h"
#include "core/env.h"
#include "core/error_code.h"

namespace cordon {

// One mount operation, in the order the backend must perform it (like bubblewrap's SetupOp).
enum class MountKind {
  kRoBind,     // read-only bind of src at dest
  kBind,       // writable bind of src at dest
  kRoBindTry,  // read-only bind, skipped when src is missing
  kDev,        // fresh minimal /dev at dest
  kProc,       // fresh procfs at dest
  kTmpfs,      // fresh tmpfs at dest
  kDevBind,    // GPU-1: a device node of the host at the same path under /dev (src == dest)
};
const char* to_string(MountKind k);

struct MountOp {
  MountKind kind;
  std::string src;   // empty for kDev/kProc/kTmpfs
  std::string dest;  // path inside the sandbox
  std::string why;   // for `cordon policy` and golden files ("hidden: ~/.ssh")

  bool operator==(const MountOp&) const = default;
};

// One seccomp rule: the syscall is refused with `errno_value` when every condition holds.
enum class SeccompOp {
  kMaskedEq,  // (arg & mask) == value; mask 0xffffffff compares the low 32 bits only
  kGt,        // arg > value, all 64 bits
};
struct SeccompArg {
  unsigned index;  // argument number 0..5
  SeccompOp op;
  uint64_t mask;   // for kMaskedEq
  uint64_t value;
};
struct SeccompRule {
  std::string syscall;
  int errno_value;
  std::vector<SeccompArg> args;  // all must match; empty means always
  std::string why;
};

// What a refused command gets: a message for a person and the kind of refusal (its word is
// `cordon policy --json`'s refusal reason; the public code is derived from it).
struct Refusal {
  ErrorKind reason{};   // kRefused, kUnavailable, kHeld, kInvalid or kConfig
  std::string message;  // starts with what happened, ends with the fix
  std::vector<api::Violation> violations{};  // AUD-2: what was refused, its rule and fix
};

enum class Runner { kSandbox, kUnconfined };

// How a hidden entry was decided, for `cordon policy` (CFG-6).
struct HiddenDecision {
  std::string path;  // the path hidden or kept
  std::string entry;
  std::string why;
  bool hidden = true;
  std::string kept_because;  // FS-7 reason when kept visible
};

// How a protected path or git file was decided, for `cordon policy` (CFG-6).
struct ProtectDecision {
  std::string path;   // project-relative or absolute
  std::string state;  // "read-only", "writable (tracked)", "file by file", "read-only whole",
                      // "locked", "watched (absent: moved aside if created)"
  std::string why;
};

// How a package cache is provided, for `cordon policy` (PKG-4).
struct CacheDecision {
  std::string tool;
  std::string how;    // "npm_config_cache", "mounted over ~/.cargo/registry"
  std::string where;  // the folder the tool writes, as shown ("~/.cache/cordon/packages/...")
  std::string state;  // "project", "shared (writable)", "read-only", "not used: ..."
};

// NET-12: git over ssh through the proxy, as `cordon policy` and the notes tell it.
struct SshRoutePlan {
  std::vector<std::string> entries;  // allow entries that reach port 22 ("github.com:22")
  std::vector<std::string> keys;     // "github.com: ~/.ssh/id_ed25519_github" (named keys given)
  bool agent = false;                // the user's agent socket is given
  bool agent_wanted = false;         // [ssh] agent = true
  std::string command;               // GIT_SSH_COMMAND
  std::vector<std::string> problems;
};

struct Plan {
  Runner runner = Runner::kSandbox;
  SandboxMode mode = SandboxMode::kOn;
  std::vector<MountOp> mounts;
  std::vector<std::string> argv;  // what bwrap (or the unconfined runner) executes
  std::string cwd;                // working folder of the command
  EnvMap env;                     // the whole environment of bwrap / the command (ENV-5)
  std::vector<std::string> stripped;  // names removed from the environment (ENV-4)
  bool share_network = false;  // the machine's network (a way out, NET-3)
  // JOB-2: the command runs in its session's network namespace (one loopback shared by the
  // session's commands and jobs, nothing else in it), which the launcher joins before bwrap
  // starts; bwrap keeps it instead of making one. False: a network namespace of its own.
  bool session_loopback = false;
  // NET-7: the allowlist proxy answers on 127.0.0.1:<port> inside the sandbox ([network]
  // allow is set, the command has no way out); nothing otherwise.
  std::optional<int> proxy_port;
  std::optional<SshRoutePlan> ssh;  // NET-12
  std::vector<SeccompRule> seccomp;
  Limits limits;
  std::optional<std::chrono::milliseconds> timeout;
  std::optional<Refusal> refusal;
  std::vector<std::string> notices;  // start notices (mode off, kept-visible entries, ...)
  std::vector<std::string> warnings;

  // For `cordon policy` and aftercare.
  std::vector<std::string> writable_roots;  // host paths writable by the command
  std::string home;                         // the user's home folder, for notes (RES-3)
  std::string config_file;  // the config file as shown to the user ("~/.config/cordon/...")
  std::vector<HiddenDecision> hidden;
  // FS-12: the global git config's keys removed from the copy commands see ("~/.gitconfig:
  // http.extraheader (an HTTP header (Authorization))").
  std::vector<std::string> git_config_removed;
  std::vector<ProtectDecision> protect;
  std::vector<CacheDecision> caches;  // PKG-4
  std::vector<std::string> gpu;       // GPU-1: what [sandbox] gpu = true bound (sandbox paths)
  bool coarsened = false;  // BUD-2 made file-by-file folders read-only whole
  // LL-1: the backend keeps protected files and git's hooks and config read-only (false for
  // Landlock, which cannot), and the private temp folder is at /tmp (else at $TMPDIR).
  bool locks_git_files = true;
  bool tmp_at_slash_tmp = true;
  // LL-1: a TCP connection the sandbox refuses fails with EACCES (Landlock: the machine's
  // loopback too), not with an unreachable network (bubblewrap's empty namespace).
  bool tcp_refused_as_denied = false;

  size_t mount_count() const { return mounts.size(); }
  bool refused() const { return refusal.has_value(); }
};

}  // namespace cordon
