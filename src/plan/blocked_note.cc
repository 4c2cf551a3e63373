#include "plan/blocked_note.h"

#include <fmt/format.h>

#include <vector>

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

namespace {

bool contains(const std::string& hay, const char* needle) {
  return hay.find(needle) != std::string::npos;
}

// Paths a line mentions: quoted ('x', "x", `x', ‘x’) or bare words starting with / ./ ../ ~/.
std::vector<std::string> paths_in_line(const std::string& line) {
  std::vector<std::string> out;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\'' || c == '"' || c == '`') {
      char close = c == '`' ? '\'' : c;
      size_t j = line.find(close, i + 1);
      if (j != std::string::npos && j > i + 1) {
        out.push_back(line.substr(i + 1, j - i - 1));
        i = j;
      }
      continue;
    }
    bool start = (i == 0 || line[i - 1] == ' ' || line[i - 1] == '(' || line[i - 1] == '=');
    if (start && (c == '/' || (c == '.' && i + 1 < line.size() &&
                               (line[i + 1] == '/' || line[i + 1] == '.')))) {
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != ':' && line[j] != ',' &&
             line[j] != ')' && line[j] != '\'' && line[j] != '"')
        ++j;
      out.push_back(line.substr(i, j - i));
      i = j;
    }
  }
  return out;
}

bool outside_roots(const std::string& raw, const Plan& plan) {
  if (raw.empty()) return false;
  std::string p = raw[0] == '/' ? normalize_path(raw) : path_join(plan.cwd, raw);
  if (p.empty() || p[0] != '/') return false;
  if (path_within(p, "/tmp")) return false;  // the private /tmp is writable
  for (const auto& r : plan.writable_roots)
    if (path_within(p, r)) return false;
  return true;
}

}  // namespace

std::optional<std::string> blocked_note(const Plan& plan, int exit_code,
                                        const std::string& output) {
  if (plan.runner != Runner::kSandbox) return std::nullopt;
  bool fs = false, net = false, sock = false, git_config = false;
  for (const auto& line : split(output, '\n')) {
    if (contains(line, "Read-only file system")) fs = true;
    // git rewrites its config by renaming a new file over it: a read-only mount says EBUSY.
    if (contains(line, "could not write config file") ||
        contains(line, "could not lock config file"))
      git_config = true;
    if (contains(line, "Device or resource busy"))
      for (const auto& p : paths_in_line(line))
        if (!p.empty()) fs = true;
    if (contains(line, "Network is unreachable") || contains(line, "Could not resolve host") ||
        contains(line, "Temporary failure in name resolution") ||
        contains(line, "Name or service not known") ||
        contains(line, "No address associated with hostname"))
      net = true;
    bool denied = contains(line, "Permission denied") || contains(line, "Operation not permitted");
    if (!denied) continue;
    std::string low = to_lower(line);
    if (contains(low, "socket") || contains(low, ".sock") || contains(low, "af_unix") ||
        contains(low, "connect"))
      sock = true;
    for (const auto& p : paths_in_line(line))
      if (outside_roots(p, plan)) fs = true;
  }
  if (git_config)
    return std::string(
        "git's config files and hooks are locked inside the sandbox (GIT-1), so `git config` "
        "cannot change them here. Change the setting yourself outside the sandbox, or run the "
        "command again with --outside-sandbox (outside_sandbox: true), which needs approval.");
  if (exit_code == 0 && !fs) return std::nullopt;
  if (!fs && !net && !sock) return std::nullopt;
  std::vector<std::string> what;
  if (fs)
    what.push_back(fmt::format("writes outside the project{} and /tmp are refused, and "
                               "protected files and git's hooks and config are read-only",
                               plan.writable_roots.size() > 2 ? ", the writable paths" : ""));
  if (net && !plan.share_network)
    what.push_back("the network is closed (only 127.0.0.1 inside this command works)");
  if (sock) what.push_back("Unix-domain sockets are refused (ssh-agent, D-Bus, Docker)");
  if (what.empty()) return std::nullopt;
  std::string ways;
  if (net && !plan.share_network)
    ways = "To reach the internet, run it again with --network (network: true); for anything "
           "else, --outside-sandbox (outside_sandbox: true)";
  else
    ways = "If this step needs it, run it again with --outside-sandbox (outside_sandbox: true), "
           "which needs approval";
  return fmt::format("the sandbox may have blocked this command: {}. {}.", join_sentence(what),
                     ways);
}

}  // namespace cordon
