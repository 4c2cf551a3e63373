// Policy: what the user allows, parsed from config.toml and merged with defaults (CFG-2..4).
// Pure data. An empty list always means "nothing extra", never "everything".
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace cordon {

enum class SandboxMode { kOn, kOff, kExternal };
enum class EscapeMode { kAsk, kNever };
// PKG-4: package caches are cordon's per project, the user's own (writable), or read-only.
enum class CacheMode { kProject, kShared, kOff };
enum class ApprovalMode { kManual, kApproveAll, kAuto };
// LL-1: which Linux sandbox runs commands. kAuto keeps bubblewrap for now.
enum class BackendSetting { kAuto, kBwrap, kLandlock };

const char* to_string(SandboxMode m);
const char* to_string(EscapeMode m);
const char* to_string(CacheMode m);
const char* to_string(BackendSetting b);
const char* to_string(ApprovalMode m);

// [limits] (PROC-6). Unset means no limit beyond the machine's.
struct Limits {
  std::optional<unsigned long long> memory;       // bytes
  std::optional<unsigned long long> cpu_seconds;  // seconds of CPU time
  std::optional<unsigned long long> pids;         // processes
  std::optional<unsigned long long> file_size;    // bytes
  std::optional<unsigned long long> open_files;   // descriptors
  // PROC-6: with `pids` unset, a command's tree still gets this many processes at most through
  // a cgroup, when one can be made (never as an rlimit, which would count every process of the
  // user on the machine). 0: none.
  unsigned long long default_pids = 4096;
  bool any() const { return memory || cpu_seconds || pids || file_size || open_files; }
  // The pids.max a command's cgroup gets: `pids` when set, else the default (0: none).
  unsigned long long cgroup_pids() const { return pids.value_or(default_pids); }
};

// [commands] (CMD section).
struct SensitivePaths {
  std::vector<std::string> dirs, files, prefixes, extensions;
};
struct CommandsConfig {
  std::vector<std::string> read_only;     // extra read-only entries ("git status", "make -n")
  std::vector<std::string> denied;        // extra denied commands
  std::vector<std::string> denied_paths;  // absolute or ~/..., never "/"
  SensitivePaths sensitive;               // extra sensitive paths, added to the defaults
};

// [approvals] (APR-2).
struct ApprovalsConfig {
  ApprovalMode mode = ApprovalMode::kManual;
  std::string judge;  // program for mode "auto"; empty when unset
  double cutoff = 0.2;
  double away_cutoff = 0.2;
};

// [network] (NET-6, NET-10): the domain allowlist, entries as written (checked at load by
// plan/net_rules.h). Empty `allow`: no proxy, loopback only (NET-1).
struct NetworkConfig {
  std::vector<std::string> allow;
  std::vector<std::string> deny;
  bool ask_unknown = false;  // unknown = "ask" (NET-10)
};

// [ssh] (NET-12): git over ssh through the allowlist proxy. Without either opt-in, ssh inside
// the sandbox has no key. `keys`: host (lower-case, as written) -> the key file ("~/..." or
// absolute, as written), bound read-only for that host only. `agent`: the user's ssh agent
// socket (SSH_AUTH_SOCK) is given to commands, which may then ask it to sign while they run.
struct SshConfig {
  bool agent = false;
  std::vector<std::pair<std::string, std::string>> keys;
};

// AUD-3: how a credential goes on the wire (`send`).
enum class CredentialSend {
  kAuthorization,  // the whole Authorization header's value carries it (any scheme)
  kBasic,          // the password of Authorization: Basic
  kHeader,         // a header of the user's naming (`header = "X-Api-Key"`)
};
const char* to_string(CredentialSend s);

// AUD-3: one `[credentials.NAME]` entry: where the real value is read from (an environment
// variable of the user's, or a file), the hosts it may go to (`[network] allow` syntax, each
// one allowed there) and how it is sent. Commands see a placeholder instead.
struct CredentialConfig {
  std::string name;                // "github"
  std::string env;                 // "GITHUB_TOKEN", or empty
  std::string file;                // "~/.config/x/token" or absolute, as written; or empty
  std::vector<std::string> hosts;  // as written ("api.github.com", "**.npmjs.org")
  CredentialSend send = CredentialSend::kAuthorization;
  std::string header;  // kHeader: the header's name as written ("X-Api-Key")
};

struct Policy {
  // [sandbox] (CFG-3)
  SandboxMode mode = SandboxMode::kOn;
  std::vector<std::string> writable;  // "~/..." entries, as written
  std::vector<std::string> hide;      // "~", "~/..." or absolute, as written
  std::vector<std::string> env_hide;  // names or * patterns
  std::vector<std::string> env_pass;  // exact names, external mode only (ENV-2/3)
  EscapeMode escape = EscapeMode::kAsk;
  std::vector<std::string> protect;  // project-relative; trailing "/" marks a folder (PROT-9)
  CacheMode caches = CacheMode::kProject;  // PKG-4
  BackendSetting backend = BackendSetting::kAuto;  // LL-1
  // GPU-1 (issue 31): the GPU's device nodes that exist are bound into the sandbox (bwrap).
  bool gpu = false;

  // [away] timeout (CFG-4); nullopt means "off".
  std::optional<std::chrono::milliseconds> away_timeout = std::chrono::minutes(15);
  Limits limits;
  ApprovalsConfig approvals;
  CommandsConfig commands;
  NetworkConfig network;
  SshConfig ssh;  // NET-12
  std::vector<CredentialConfig> credentials;  // AUD-3, in the file's order

  // Where the policy came from, for messages ("set by ~/.config/cordon/config.toml").
  std::string source_file;
  bool file_existed = false;
  // Non-fatal remarks made while loading (unknown top-level tables, env_pass outside external).
  std::vector<std::string> warnings;
};

}  // namespace cordon
