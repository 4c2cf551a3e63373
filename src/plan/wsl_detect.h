// Windows through WSL2 as seen from inside (WSL-1, WSL-3): the kernel's own name in
// /proc/version, and the mount table, which alone decides which mounts are Windows drives (so
// an automount root moved by /etc/wsl.conf is followed). Pure: the host layer hands in the
// texts and a way to look at folders (src/host/wsl_facts.cc), and tests fake all three.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/facts.h"

namespace cordon {

// One line of /proc/self/mountinfo, with its octal escapes (\040, \134, ...) undone.
struct MountEntry {
  std::string mount_point;    // "/mnt/c"
  std::string fstype;         // "9p", "drvfs", "ext4"
  std::string source;         // "C:\", "drivers", "/dev/sdc"
  std::string super_options;  // "rw,dirsync,aname=drvfs;path=C:\;uid=1000,..."
};

// Lines that do not parse are skipped.
std::vector<MountEntry> parse_mountinfo(std::string_view text);

// True for a Microsoft kernel ("Linux version 5.15.153.1-microsoft-standard-WSL2 ...").
bool is_wsl_kernel(std::string_view proc_version);

// The Windows drive a mount holds at its root, as a lowercase letter ('c'), or 0 when it is no
// Windows drive: drvfs (WSL1, and WSL2 when it names it so), or 9p whose `aname` is drvfs
// (WSL2), with a `path=` (or source) that is a drive's root ("C:\"). Other 9p mounts (WSL's
// own /usr/lib/wsl/drivers, a virtual machine's shared folder) are not drives.
char windows_drive_letter(const MountEntry& m);

// Mount points of Windows drives, in mount-table order. A later mount on the same point hides
// an earlier one, so the last mount at a point decides whether it is a drive.
std::vector<std::string> windows_drive_mounts(std::string_view mountinfo);

// Every spelling of `name` by letter case ("users" -> "USERS", "USERs", ..., "users"): 2^n
// for n letters, sorted.
std::vector<std::string> case_spellings(std::string_view name);

// How the host answers questions about folders.
struct FolderProbe {
  // The names in a folder, or nothing when it cannot be listed.
  std::function<std::optional<std::vector<std::string>>(const std::string&)> list;
  // True when the path names a folder (following links).
  std::function<bool(const std::string&)> is_dir;
};

// WSL-1: fills `machine.wsl`, `windows_drives` and `windows_users_dirs`. A drive's Users folder
// is found by listing the drive's root; when a spelling other than the one on disk also names
// a folder, the drive folds case and every spelling is listed (each is a path of its own to
// Linux, so each needs hiding). A root that cannot be listed is probed spelling by spelling.
void detect_wsl(std::string_view proc_version, std::string_view mountinfo, const FolderProbe& probe,
                MachineFacts& machine);

}  // namespace cordon
