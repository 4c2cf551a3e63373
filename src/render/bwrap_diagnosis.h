// PROBE-4: bwrap's own words when it cannot build the sandbox, mapped to the set-up step that
// failed, the likely cause and the fix (pure: the facts about the machine come in HostHints).
// Each row of the table is checked by a unit test with bwrap's real message, in every
// spelling bwrap used across its versions; the README's Troubleshooting section is checked
// against the same table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "render/bwrap_version.h"

namespace cordon {

// What lies behind a family of messages; the fix depends on it and on the machine.
enum class SandboxCause {
  kAppArmorUserns,   // Ubuntu 23.10+: user namespaces exist but get no privileges
  kNoUserns,         // the kernel refuses unprivileged user namespaces (sysctl)
  kNoUsernsKernel,   // the kernel was built without user namespaces
  kUsernsLimit,      // user.max_user_namespaces (or nesting depth) reached
  kContainer,        // a container's seccomp/AppArmor profile refuses namespaces or mounts
  kContainerProc,    // a container masks /proc, so a fresh procfs cannot be mounted
  kOldBwrap,         // bwrap lacks an option cordon passed
  kNoDisableUserns,  // --disable-userns could not be applied (kernel too old)
};

struct BwrapMessageRow {
  const char* id;                    // stable name, shown as the failed check's detail
  std::vector<const char*> needles;  // bwrap's words; any one matches (case-sensitive)
  const char* step;                  // the set-up step that failed, for a person
  SandboxCause cause;
};

// The table, most specific row first (the first row whose needle occurs wins).
const std::vector<BwrapMessageRow>& bwrap_message_table();

// What the machine says, read by the probe (probe.cc) and passed in so that this stays pure.
struct HostHints {
  int apparmor_restrict_userns = -1;   // kernel.apparmor_restrict_unprivileged_userns; -1 absent
  int unprivileged_userns_clone = -1;  // kernel.unprivileged_userns_clone (Debian); -1 absent
  long max_user_namespaces = -1;       // user.max_user_namespaces; -1 unreadable
  std::string container;               // evidence of a container ("/.dockerenv", ...), "" for none
  std::string container_kind;          // "docker", "podman" or "" (unknown or none)
  std::string bwrap_path;              // the bwrap that failed
  std::string config_file;             // where `mode = "external"` goes (Folders::config_file)
  std::optional<BwrapVersion> bwrap_version;
};

struct Diagnosis {
  std::string row;    // the table row's id; "" when bwrap's message is not in the table
  std::string step;   // the set-up step that failed
  std::string cause;  // one line
  std::string fix;    // one line
};

// Finds bwrap's message (its stderr, "bwrap: ..." lines) in the table and words the cause and
// fix for this machine. A message not in the table gives row "" and PROBE-2's "the sandbox
// did not hold (bwrap_runs)" with bwrap's words, to report.
//   diagnose_bwrap_message("bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted\n",
//                          hints).row == "loopback_newaddr"
Diagnosis diagnose_bwrap_message(const std::string& bwrap_stderr, const HostHints& hints);

// The README's Troubleshooting entries, generated from the table (one per cause, with bwrap's
// messages, the cause and the fix as cordon words them on a typical machine of that kind); a
// unit test keeps README.md equal to it.
std::string troubleshooting_markdown();

// The AppArmor profile that lets `bwrap_path` create user namespaces (PROBE-4), as written to
// /etc/apparmor.d/bwrap by `cordon setup apparmor`.
std::string apparmor_profile(const std::string& bwrap_path);
inline constexpr const char* kAppArmorProfileFile = "/etc/apparmor.d/bwrap";
inline constexpr const char* kAppArmorSysctlCommand =
    "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0";

}  // namespace cordon
