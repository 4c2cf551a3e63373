#include "commands/denied_rules.h"

#include <algorithm>

#include "commands/sensitive_paths.h"
#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

const std::vector<std::string_view>& default_denied_entries() {
  static const std::vector<std::string_view> list = {
      "mkfs*", "mke2fs",   "mkdosfs",  "mkswap", "newfs*", "wipefs",    "shutdown", "reboot",
      "halt",  "poweroff", "killall5", "init 0", "init 6", "telinit 0", "telinit 6"};
  return list;
}

bool is_harmless_device(std::string_view p) {
  if (p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/tty") return true;
  if (starts_with(p, "/dev/fd/") && p.size() > 8) {
    for (char c : p.substr(8))
      if (c < '0' || c > '9') return false;
    return true;
  }
  return false;
}

bool is_disk_device(std::string_view p) {
  for (const char* g :
       {"/dev/sd*", "/dev/hd*", "/dev/vd*", "/dev/xvd*", "/dev/nvme*", "/dev/mmcblk*",
        "/dev/disk/*", "/dev/mapper/*", "/dev/md*", "/dev/loop*", "/dev/dm-*", "/dev/sr*",
        "/dev/mem", "/dev/kmem", "/dev/port", "/proc/sysrq-trigger"})
    if (glob_match(g, p)) return true;
  return false;
}

namespace {

// `/`, a system folder right below it (`/usr`, `/home`), the home folder or a folder above it.
// A project at `/app` or `/work` is not one of them.
bool is_top_folder(std::string_view abs, const std::string& home) {
  if (abs == "/" || abs == home || path_within(home, abs)) return true;
  auto comps = path_components(abs);
  if (comps.size() != 1) return false;
  static const char* const kSystem[] = {
      "bin",   "boot",   "dev",   "etc",    "home",    "lib",          "lib32",
      "lib64", "libx32", "opt",   "proc",   "root",    "run",          "sbin",
      "srv",   "sys",    "tmp",   "usr",    "var",     "snap",         "mnt",
      "media", "nix",    "Users", "System", "Library", "Applications", "private"};
  for (const char* d : kSystem)
    if (comps[0] == d) return true;
  return false;
}

}  // namespace

bool catastrophic_target(const std::string& target, const std::vector<std::string>& cwds,
                         const std::string& home) {
  static const char* const kHome[] = {"~",      "~/",       "~/*",     "$HOME",    "${HOME}",
                                      "$HOME/", "${HOME}/", "$HOME/*", "${HOME}/*"};
  for (const char* h : kHome)
    if (target == h) return true;
  std::string t = expand_home(target, home);
  std::string_view base = t;
  // `/*`, `~/*`, `dir/.*`: the folder's whole content.
  if (ends_with(base, "/*") || ends_with(base, "/.*") || base == "*" || base == ".*") {
    size_t cut = base.rfind('/');
    t = cut == std::string_view::npos ? "." : (cut == 0 ? "/" : std::string(base.substr(0, cut)));
  }
  if (t.empty()) return false;
  if (t[0] == '/') return is_top_folder(normalize_path(t), home);
  for (const auto& cwd : cwds)
    if (is_top_folder(path_join(cwd, t), home)) return true;
  return false;
}

bool destroys_targets(std::string_view p) {
  for (const char* k : {"rm", "rmdir", "unlink", "shred", "mv", "chmod", "chown", "chgrp",
                        "truncate", "srm", "wipe"})
    if (p == k) return true;
  return false;
}

namespace {

// The operands of a command, after its options (a word starting with `-` before `--`).
std::vector<std::string> operands_of(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  bool done = false;
  for (const auto& a : args) {
    if (!done && a == "--") {
      done = true;
      continue;
    }
    if (!done && a.size() > 1 && a[0] == '-') continue;
    out.push_back(a);
  }
  return out;
}

std::optional<DeniedRule> recursive_change(std::string_view program,
                                           const std::vector<std::string>& args,
                                           const std::vector<std::string>& cwds,
                                           const std::string& home) {
  const bool rm = program == "rm";
  bool recursive = false;
  bool options_done = false;
  std::vector<std::string> targets;
  for (const auto& a : args) {
    if (!options_done && a == "--") {
      options_done = true;
      continue;
    }
    if (!options_done && a.size() > 1 && a[0] == '-') {
      if (a == "--no-preserve-root") return DeniedRule{a, "removes the protection of `/`"};
      if (a == "--recursive") recursive = true;
      if (a[1] != '-' &&
          (a.find('R') != std::string::npos || (rm && a.find('r') != std::string::npos)))
        recursive = true;
      continue;
    }
    targets.push_back(a);
  }
  // chmod and chown take a mode or owner first.
  size_t first = rm ? 0 : 1;
  if (!recursive && !rm) {
    // `chmod 000 ~`: the home folder (or `/`, a system folder) itself locks the user out.
    for (size_t i = first; i < targets.size(); ++i)
      if (catastrophic_target(targets[i], cwds, home))
        return DeniedRule{targets[i], "would change the whole system or home folder"};
  }
  if (!recursive) return std::nullopt;
  for (size_t i = first; i < targets.size(); ++i) {
    if (catastrophic_target(targets[i], cwds, home))
      return DeniedRule{targets[i], rm ? "would delete the whole system or home folder"
                                       : "would change the whole system or home folder"};
  }
  return std::nullopt;
}

using Args = std::vector<std::string>;

std::optional<DeniedRule> dd_to_device(std::string_view, const Args& args, const Args&,
                                       const std::string&) {
  for (const auto& a : args) {
    if (!starts_with(a, "of=")) continue;
    std::string target = normalize_path(a.substr(3));
    if (starts_with(target, "/dev/") && !is_harmless_device(target))
      return DeniedRule{a, "writes straight to a device"};
  }
  return std::nullopt;
}

// kill [-SIGNAL | -s SIGNAL | -n NUM] PID...: a pid of -1 is every process we may signal.
std::optional<DeniedRule> kill_everything(std::string_view, const Args& args, const Args&,
                                          const std::string&) {
  size_t i = 0;
  if (!args.empty() && (args[0] == "-s" || args[0] == "-n")) {
    i = 2;
  } else if (!args.empty() && args[0] != "--" && starts_with(args[0], "-")) {
    i = 1;  // the signal
  }
  for (; i < args.size(); ++i) {
    if (args[i] == "--") continue;
    if (args[i] == "-1") return DeniedRule{args[i], "signals every process"};
  }
  return std::nullopt;
}

// The verbs that stop, restart, suspend or switch the machine's state, and their targets.
std::optional<DeniedRule> systemctl_power(std::string_view, const Args& args, const Args&,
                                          const std::string&) {
  for (const auto& a : args)
    for (const char* w : {"poweroff", "reboot", "halt", "kexec", "soft-reboot", "suspend",
                          "hibernate", "hybrid-sleep", "suspend-then-hibernate", "sleep", "isolate",
                          "rescue", "emergency", "default", "switch-root", "exit"})
      if (a == w || a == std::string(w) + ".target")
        return DeniedRule{a, "stops, restarts, suspends or switches the whole machine"};
  return std::nullopt;
}

std::optional<DeniedRule> loginctl_power(std::string_view, const Args& args, const Args&,
                                         const std::string&) {
  for (const auto& a : args)
    for (const char* w : {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate",
                          "hybrid-sleep", "suspend-then-hibernate", "sleep", "terminate-session",
                          "terminate-user", "terminate-seat", "kill-session", "kill-user",
                          "lock-session", "lock-sessions", "flush-devices", "attach"})
      if (a == w) return DeniedRule{a, "changes the machine's power state or ends sessions"};
  return std::nullopt;
}

// logind (power, sessions) and systemd's manager (power, units) over the system bus.
std::optional<DeniedRule> bus_power(std::string_view, const Args& args, const Args&,
                                    const std::string&) {
  for (const auto& a : args) {
    if (a.find("org.freedesktop.login1") != std::string::npos ||
        a.find("/org/freedesktop/login1") != std::string::npos)
      return DeniedRule{a, "talks to logind, which powers off the machine and ends sessions"};
    if (a.find("org.freedesktop.systemd1") != std::string::npos)
      for (const auto& m : args)
        for (const char* w : {"PowerOff", "Reboot", "Halt", "KExec", "SoftReboot", "StartUnit",
                              "StopUnit", "KillUnit", "Isolate", "SwitchRoot"})
          if (m.find(w) != std::string::npos)
            return DeniedRule{m, "asks systemd to stop the machine or change its units"};
  }
  return std::nullopt;
}

// Moving `/`, a system folder or the home folder away (the destination is the last operand,
// unless -t names it).
std::optional<DeniedRule> mv_away(std::string_view, const Args& args, const Args& cwds,
                                  const std::string& home) {
  // -t DIR (--target-directory=DIR) names the destination; the rest are sources.
  std::vector<std::string> rest;
  bool target_dir = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-t" || args[i] == "--target-directory") {
      target_dir = true;
      ++i;
      continue;
    }
    if (starts_with(args[i], "--target-directory=") ||
        (starts_with(args[i], "-t") && args[i].size() > 2)) {
      target_dir = true;
      continue;
    }
    rest.push_back(args[i]);
  }
  std::vector<std::string> ops = operands_of(rest);
  size_t sources = target_dir ? ops.size() : (ops.empty() ? 0 : ops.size() - 1);
  for (size_t i = 0; i < sources; ++i)
    if (catastrophic_target(ops[i], cwds, home))
      return DeniedRule{ops[i], "would move the whole system or home folder away"};
  for (const auto& a : args)
    if (a.size() > 1 && a[0] == '/' && is_disk_device(normalize_path(a)))
      return DeniedRule{a, "writes straight to a disk or memory device"};
  return std::nullopt;
}

// cp, tee, shred...: onto a disk or memory device.
std::optional<DeniedRule> onto_device(std::string_view, const Args& args, const Args&,
                                      const std::string&) {
  for (const auto& a : args)
    if (!a.empty() && a[0] == '/' && is_disk_device(normalize_path(a)))
      return DeniedRule{a, "writes straight to a disk or memory device"};
  return std::nullopt;
}

// --delete (and its kin) empties the destination of what the source lacks; and rsync writes
// onto a device as cp does.
std::optional<DeniedRule> rsync_deletes(std::string_view program, const Args& args,
                                        const Args& cwds, const std::string& home) {
  bool deletes = false, removes_sources = false;
  for (const auto& a : args) {
    if (starts_with(a, "--del")) deletes = true;
    if (a == "--remove-source-files" || a == "--remove-sent-files") removes_sources = true;
  }
  std::vector<std::string> ops = operands_of(args);
  if (deletes && !ops.empty() && catastrophic_target(ops.back(), cwds, home))
    return DeniedRule{ops.back(),
                      "would delete what the home folder or a system folder "
                      "holds and the source lacks"};
  for (size_t i = 0; removes_sources && i + 1 < ops.size(); ++i)
    if (catastrophic_target(ops[i], cwds, home))
      return DeniedRule{ops[i], "would delete the whole system or home folder"};
  return onto_device(program, args, cwds, home);
}

// find / -delete: rm -rf / by another name.
std::optional<DeniedRule> find_deletes(std::string_view, const Args& args, const Args& cwds,
                                       const std::string& home) {
  if (std::find(args.begin(), args.end(), "-delete") == args.end()) return std::nullopt;
  for (const auto& a : args) {
    if (!a.empty() && (a[0] == '-' || a[0] == '(' || a[0] == '!')) break;  // the expression
    if (catastrophic_target(a, cwds, home))
      return DeniedRule{a, "would delete the whole system or home folder"};
  }
  return std::nullopt;
}

using RuleCheck = std::optional<DeniedRule> (*)(std::string_view, const Args&, const Args&,
                                                const std::string&);
struct ProgramRule {
  std::vector<std::string_view> programs;
  RuleCheck check;
};

}  // namespace

std::optional<DeniedRule> denied_by_rule(std::string_view program,
                                         const std::vector<std::string>& args,
                                         const std::vector<std::string>& cwds,
                                         const std::string& home) {
  static const std::vector<ProgramRule> kRules = {
      {{"dd"}, dd_to_device},
      {{"rm", "chmod", "chown", "chgrp"}, recursive_change},
      {{"kill"}, kill_everything},
      {{"systemctl"}, systemctl_power},
      {{"loginctl"}, loginctl_power},
      {{"busctl", "dbus-send", "gdbus"}, bus_power},
      {{"mv"}, mv_away},
      {{"rsync"}, rsync_deletes},
      {{"cp", "tee", "shred", "install", "pv"}, onto_device},
      {{"find"}, find_deletes},
  };
  for (const auto& rule : kRules)
    if (std::find(rule.programs.begin(), rule.programs.end(), program) != rule.programs.end())
      return rule.check(program, args, cwds, home);
  return std::nullopt;
}

std::string find_fork_bomb(std::string_view t) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
  auto name_char = [&](char c) {
    return !blank(c) && c != ';' && c != '&' && c != '|' && c != '(' && c != ')' && c != '{' &&
           c != '}' && c != '<' && c != '>';
  };
  size_t at = 0;
  while ((at = t.find('(', at)) != std::string_view::npos) {
    size_t open = at++;
    size_t k = open + 1;
    while (k < t.size() && blank(t[k])) ++k;
    if (k >= t.size() || t[k] != ')') continue;
    // The name before `(`.
    size_t end = open;
    while (end > 0 && blank(t[end - 1])) --end;
    size_t start = end;
    while (start > 0 && name_char(t[start - 1])) --start;
    if (start == end) continue;
    std::string_view name = t.substr(start, end - start);
    // The body: `{ ... }` right after `()`.
    ++k;
    while (k < t.size() && blank(t[k])) ++k;
    if (k >= t.size() || t[k] != '{') continue;
    // Bounded, so a long line of `f(){` stays linear.
    size_t close = t.substr(0, std::min(t.size(), k + 256)).find('}', k);
    if (close == std::string_view::npos) close = std::min(t.size(), k + 256);
    std::string_view body = t.substr(k + 1, close - k - 1);
    // Count calls of the name as a word, and look for a background `&`.
    int calls = 0;
    bool background = false;
    for (size_t i = 0; i < body.size();) {
      if (body[i] == '&') {
        if (i + 1 < body.size() && body[i + 1] == '&') {
          i += 2;
          continue;
        }
        background = true;
      }
      if (name_char(body[i])) {
        size_t j = i;
        while (j < body.size() && name_char(body[j])) ++j;
        if (body.substr(i, j - i) == name) ++calls;
        i = j;
        continue;
      }
      ++i;
    }
    if (calls >= 2 && background) {
      size_t stop = close < t.size() ? close + 1 : t.size();
      return std::string(t.substr(start, stop - start));
    }
  }
  return "";
}

}  // namespace cordon
