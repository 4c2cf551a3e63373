// The default denied commands of CMD-4: refused wherever they appear, whatever the approval
// mode. Pure.
//
//   denied_by_rule("dd", {"if=x.img", "of=/dev/sda"}, {"/home/u/p"}, "/home/u");
//   // {"of=/dev/sda", "writes straight to a device"}
//   find_fork_bomb(":(){ :|:& };:");   // ":(){ :|:& }"
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// Plain entries, matched like `[commands] denied` ones: `mkfs*`, `shutdown`, `init 0`, ...
const std::vector<std::string_view>& default_denied_entries();

struct DeniedRule {
  std::string word;  // the argument that makes it denied
  std::string why;   // "would delete the whole system"
};

// The rules that need more than an entry: `dd of=/dev/...`, `rm -r` (or `chmod -R`, `chown -R`,
// `find -delete`) of `/`, a system folder or the home folder, `rm --no-preserve-root`,
// `kill -1`, `systemctl poweroff|reboot|halt|kexec|isolate|suspend|hibernate...` (and their
// targets), `loginctl`'s power and session verbs, `busctl`/`dbus-send`/`gdbus` to logind,
// `mv` of a protected root, `chmod`/`chown` of one even without -R, `rsync --delete*` into one,
// and `cp`, `tee`, `shred`... onto a disk device. `cwds` are the folders relative paths may be
// in.
std::optional<DeniedRule> denied_by_rule(std::string_view program,
                                         const std::vector<std::string>& args,
                                         const std::vector<std::string>& cwds,
                                         const std::string& home);

// Would deleting, moving or changing `target` (recursively) take `/`, a system folder right
// below it, the home folder or a folder above it? `~`, `$HOME`, `dir/*` and relative paths (in
// each of `cwds`) are understood.
bool catastrophic_target(const std::string& target, const std::vector<std::string>& cwds,
                         const std::string& home);

// Programs that delete, move or change what they are given (rm, shred, mv, chmod, ...): run on
// the home folder by find -exec or xargs, they are denied whatever their flags.
bool destroys_targets(std::string_view program);

// /dev/null, /dev/stdout, /dev/stderr, /dev/tty, /dev/fd/N: writing there is not writing a file.
bool is_harmless_device(std::string_view path);
// A disk, a partition, memory or /proc/sysrq-trigger: writing there is denied (`> /dev/sda`).
bool is_disk_device(std::string_view path);

// A function that calls itself twice in the background (`:(){ :|:& };:`): the fork bomb
// excerpt, or "".
std::string find_fork_bomb(std::string_view text);

}  // namespace cordon
