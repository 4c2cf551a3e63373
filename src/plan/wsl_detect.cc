#include "plan/wsl_detect.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

namespace {

// The kernel writes a space, tab, newline and backslash in mountinfo as \040, \011, \012, \134.
std::string unescape_octal(std::string_view s) {
  auto octal = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && octal(s[i + 1]) && octal(s[i + 2]) && octal(s[i + 3])) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
      continue;
    }
    out += s[i];
  }
  return out;
}

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// "C:\" or "C:" (a drive's root) -> 'c'; anything else -> 0.
char drive_root_letter(std::string_view p) {
  if (p.size() < 2 || p.size() > 3 || !std::isalpha(static_cast<unsigned char>(p[0])) ||
      p[1] != ':')
    return 0;
  if (p.size() == 3 && p[2] != '\\' && p[2] != '/') return 0;
  return static_cast<char>(std::tolower(static_cast<unsigned char>(p[0])));
}

}  // namespace

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> out;
  for (const auto& line : split(text, '\n')) {
    auto f = fields(line);
    // id parent major:minor root mount_point options [optional...] - fstype source super
    auto dash = std::find(f.begin(), f.end(), std::string_view("-"));
    if (f.size() < 6 || dash == f.end() || dash - f.begin() < 6 || f.end() - dash < 3) continue;
    MountEntry m;
    m.mount_point = unescape_octal(f[4]);
    m.fstype = unescape_octal(dash[1]);
    m.source = unescape_octal(dash[2]);
    if (f.end() - dash >= 4) m.super_options = unescape_octal(dash[3]);
    if (m.mount_point.empty() || m.mount_point[0] != '/') continue;
    out.push_back(std::move(m));
  }
  return out;
}

bool is_wsl_kernel(std::string_view proc_version) {
  std::string v = to_lower(proc_version);
  return v.find("microsoft") != std::string::npos || v.find("wsl") != std::string::npos;
}

char windows_drive_letter(const MountEntry& m) {
  // The options of the 9p transport hold drvfs's own, separated by ';' inside `aname=`:
  // "aname=drvfs;path=C:\;uid=1000;gid=1000;symlinkroot=/mnt/".
  std::string aname;
  std::string path;
  for (const auto& opt : split(m.super_options, ',')) {
    for (const auto& part : split(opt, ';')) {
      if (starts_with(part, "aname=")) aname = part.substr(6);
      if (starts_with(part, "path=")) path = part.substr(5);
    }
  }
  if (m.fstype == "drvfs" || (m.fstype == "9p" && aname == "drvfs")) {
    if (char c = drive_root_letter(path)) return c;
    return drive_root_letter(m.source);
  }
  return 0;
}

std::vector<std::string> windows_drive_mounts(std::string_view mountinfo) {
  std::vector<std::pair<std::string, bool>> points;  // mount point, is a drive (last wins)
  for (const auto& m : parse_mountinfo(mountinfo)) {
    std::string mp = normalize_path(m.mount_point);
    bool drive = windows_drive_letter(m) != 0;
    auto it =
        std::find_if(points.begin(), points.end(), [&](const auto& p) { return p.first == mp; });
    if (it == points.end())
      points.emplace_back(mp, drive);
    else
      it->second = drive;
  }
  std::vector<std::string> out;
  for (const auto& [mp, drive] : points)
    if (drive) out.push_back(mp);
  return out;
}

std::vector<std::string> case_spellings(std::string_view name) {
  std::vector<size_t> letters;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::isalpha(static_cast<unsigned char>(name[i]))) letters.push_back(i);
  std::set<std::string> out;
  const size_t n = size_t{1} << letters.size();
  for (size_t mask = 0; mask < n; ++mask) {
    std::string s(name);
    for (size_t b = 0; b < letters.size(); ++b) {
      unsigned char c = static_cast<unsigned char>(s[letters[b]]);
      s[letters[b]] = static_cast<char>((mask >> b) & 1 ? std::toupper(c) : std::tolower(c));
    }
    out.insert(std::move(s));
  }
  return {out.begin(), out.end()};
}

void detect_wsl(std::string_view proc_version, std::string_view mountinfo, const FolderProbe& probe,
                MachineFacts& machine) {
  machine.wsl = is_wsl_kernel(proc_version);
  machine.windows_drives.clear();
  machine.windows_users_dirs.clear();
  if (!machine.wsl) return;
  machine.windows_drives = windows_drive_mounts(mountinfo);
  const std::vector<std::string> all = case_spellings("users");
  for (const auto& drive : machine.windows_drives) {
    std::vector<std::string> found;
    if (auto names = probe.list(drive)) {
      for (const auto& n : *names)
        if (to_lower(n) == "users" && probe.is_dir(path_join(drive, n))) found.push_back(n);
      if (!found.empty()) {
        // Does the drive fold case? Ask for a spelling that is not on disk.
        std::string other;
        for (const auto& s : all)
          if (std::find(found.begin(), found.end(), s) == found.end()) {
            other = s;
            break;
          }
        if (!other.empty() && probe.is_dir(path_join(drive, other))) found = all;
      }
    } else {
      // The stricter case: every spelling that answers as a folder.
      for (const auto& s : all)
        if (probe.is_dir(path_join(drive, s))) found.push_back(s);
    }
    std::sort(found.begin(), found.end());
    for (const auto& s : found) machine.windows_users_dirs.push_back(path_join(drive, s));
  }
}

}  // namespace cordon
