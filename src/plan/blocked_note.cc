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

bool contains_any(const std::string& hay, std::initializer_list<const char*> needles) {
  for (const char* n : needles)
    if (contains(hay, n)) return true;
  return false;
}

// RES-3: the spellings of a refused write, lower-cased: C, Python, Rust and Java say
// "Read-only file system", Go "read-only file system", Node `EROFS`, Rust `ReadOnlyFilesystem`.
bool says_read_only(const std::string& low) {
  return contains_any(low, {"read-only file system", "erofs", "readonlyfilesystem"});
}

// RES-3: the spellings of a refused access: C and git "Permission denied", Node `EACCES` and
// `EPERM`, Python `PermissionError`, Java `AccessDeniedException`, Rust `PermissionDenied`.
bool says_denied(const std::string& low) {
  return contains_any(low, {"permission denied", "operation not permitted", "eacces", "eperm",
                            "permissionerror", "accessdeniedexception", "permissiondenied"});
}

// Paths a line mentions: quoted ('x', "x", `x', ‘x’) or bare words starting with / ./ ../ ~/.
std::vector<std::string> paths_in_line(const std::string& line) {
  std::vector<std::string> out;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (line.compare(i, 3, "\u2018") == 0) {  // coreutils' ‘x’ in a UTF-8 locale
      size_t j = line.find("\u2019", i + 3);
      if (j != std::string::npos && j > i + 3) {
        std::string q = line.substr(i + 3, j - i - 3);
        if (q[0] == '/' || q[0] == '.' || q[0] == '~') out.push_back(q);
        i = j + 2;
      }
      continue;
    }
    if (c == '\'' || c == '"' || c == '`') {
      char close = c == '`' ? '\'' : c;
      size_t j = line.find(close, i + 1);
      if (j != std::string::npos && j > i + 1) {
        std::string q = line.substr(i + 1, j - i - 1);
        if (q[0] == '/' || q[0] == '.' || q[0] == '~') out.push_back(q);
        i = j;
      }
      continue;
    }
    bool start = (i == 0 || line[i - 1] == ' ' || line[i - 1] == '(' || line[i - 1] == '=');
    bool tilde = c == '~' && i + 1 < line.size() && line[i + 1] == '/';
    if (start &&
        (c == '/' || tilde ||
         (c == '.' && i + 1 < line.size() && (line[i + 1] == '/' || line[i + 1] == '.')))) {
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

std::string absolute(const std::string& raw, const Plan& plan) {
  if (raw.empty()) return "";
  if (raw[0] == '/') return normalize_path(raw);
  if (raw.size() > 1 && raw[0] == '~' && raw[1] == '/')
    return plan.home.empty() ? "" : normalize_path(expand_home(raw, plan.home));
  return path_join(plan.cwd, raw);
}

bool outside_roots(const std::string& p, const Plan& plan) {
  if (p.empty() || p[0] != '/') return false;
  if (path_within(p, "/tmp")) return false;  // the private /tmp is writable
  for (const auto& r : plan.writable_roots)
    if (path_within(p, r)) return false;
  return true;
}

// A line that starts with the program's own path ("/bin/sh: 1: cannot create X: ...").
bool starts_with_program(const std::string& line, const std::string& path) {
  return line.rfind(path + ":", 0) == 0;
}

// The first path outside the writable roots that the lines mention, or "". The program's own
// path leading a line counts only when the line names no other.
std::string refused_path(const std::vector<std::string>& lines, const Plan& plan) {
  for (const auto& line : lines) {
    std::vector<std::string> paths = paths_in_line(line);
    if (paths.size() > 1 && starts_with_program(line, paths[0])) paths.erase(paths.begin());
    for (const auto& raw : paths) {
      std::string p = absolute(raw, plan);
      if (outside_roots(p, plan)) return p;
    }
  }
  return "";
}

// The `writable` entry that would allow `path` under the home: its first folder below the home,
// or two for the shared parents (~/.cache/pip, ~/.local/share/x), never the home itself.
std::string writable_entry(const std::string& path, const std::string& home) {
  if (home.empty() || home == "/" || !path_within(path, home) || path == home) return "";
  std::vector<std::string> parts = split(path_relative(path, home), '/');
  // RES-3 (issue 28): a file right in the home folder (a dotfile such as ~/.bashrc, or a name
  // with an extension such as ~/outside.txt) is no tool's folder: making it writable for every
  // command is not the advice to give. A bare name (~/go) is taken for a tool's folder.
  if (parts.size() == 1 && (parts[0].front() == '.' || parts[0].find('.') != std::string::npos))
    return "";
  size_t keep = 1;
  if (parts[0] == ".cache" || parts[0] == ".config") keep = 2;
  if (parts[0] == ".local" && parts.size() > 1 && (parts[1] == "share" || parts[1] == "state"))
    keep = 3;
  if (keep > parts.size()) keep = parts.size();
  std::vector<std::string> kept(parts.begin(), parts.begin() + static_cast<long>(keep));
  return "~/" + join(kept, "/");
}

struct Findings {
  bool fs = false, net = false, sock = false, git_config = false;
  std::string path;  // RES-3: the refused path, when the output names one
};

// A refusal line names its path, or the lines just before it do (cargo's "Caused by:").
std::vector<std::string> with_context(const std::vector<std::string>& lines, size_t i) {
  size_t from = i >= 3 ? i - 3 : 0;
  std::vector<std::string> out = {lines[i]};
  for (size_t k = i; k-- > from;) out.push_back(lines[k]);
  return out;
}

void scan_line(const std::vector<std::string>& lines, size_t i, const Plan& plan, Findings& f) {
  const std::string& line = lines[i];
  std::string low = to_lower(line);
  // git rewrites its config by renaming a new file over it: a read-only mount says EBUSY.
  if (contains_any(low, {"could not write config file", "could not lock config file"})) {
    std::string p = refused_path({line}, plan);
    if (p.empty() || !path_within(p, plan.home) || line.find(".git/") != std::string::npos)
      f.git_config = true;
  }
  if (contains(low, "device or resource busy") && !paths_in_line(line).empty()) f.fs = true;
  // Node spells an unreachable network ENETUNREACH ("connect ENETUNREACH 192.0.2.1:80").
  if (contains_any(low, {"network is unreachable", "enetunreach", "could not resolve host",
                         "temporary failure in name resolution", "name or service not known",
                         "no address associated with hostname", "enotfound", "eai_again"}))
    f.net = true;
  // LL-1: Landlock refuses a TCP connection with EACCES (Node: "connect EACCES 1.2.3.4:443";
  // curl and git: "Failed to connect to ...: Couldn't connect to server").
  if (plan.tcp_refused_as_denied &&
      contains_any(low, {"connect eacces", "connect eperm", "couldn't connect to server"})) {
    f.net = true;
    return;
  }
  bool ro = says_read_only(low);
  bool denied = !ro && says_denied(low);
  if (!ro && !denied) return;
  if (denied && contains_any(low, {"socket", ".sock", "af_unix", "connect"})) {
    f.sock = true;
    return;
  }
  std::string p = refused_path(with_context(lines, i), plan);
  if (ro || !p.empty()) f.fs = true;
  if (f.path.empty()) f.path = p;
}

constexpr const char* kRunOutside =
    "run it again with --outside-sandbox (outside_sandbox: true), which needs approval";

std::string config_name(const Plan& plan) {
  return plan.config_file.empty() ? "the config file" : plan.config_file;
}

std::string home_hint(const Plan& plan, const std::string& path) {
  std::string entry = writable_entry(path, plan.home);
  if (entry.empty()) return "";
  return fmt::format(
      " To let every sandboxed command of yours write there, add `writable = [\"{}\"]` under "
      "[sandbox] in {} (a program's folder in your home; cordon keeps package caches of its "
      "own, see `cordon policy`).",
      entry, config_name(plan));
}

Findings scan(const Plan& plan, const std::string& output) {
  Findings f;
  std::vector<std::string> lines = split(output, '\n');
  for (size_t i = 0; i < lines.size(); ++i) scan_line(lines, i, plan, f);
  return f;
}

// Whether the findings are worth telling (a command that succeeded and only printed a network
// error, say, is not).
bool worth_telling(const Findings& f, int exit_code) {
  if (f.git_config) return true;
  if (exit_code == 0 && !f.fs) return false;
  return f.fs || f.net || f.sock;
}

std::string write_rule(const Plan& plan) {
  return fmt::format(
      "writes outside the project{} and {} are refused{}",
      plan.writable_roots.size() > 2 ? ", the writable paths" : "",
      plan.tmp_at_slash_tmp ? "/tmp" : "the session's temp folder ($TMPDIR)",
      plan.locks_git_files ? ", and protected files and git's hooks and config are read-only"
                           : "");
}

std::string network_rule(const Plan& plan) {
  if (plan.proxy_port)  // NET-7
    return fmt::format(
        "only proxied traffic can leave: the hosts in [network] allow through the proxy at "
        "127.0.0.1:{} (HTTPS_PROXY is set; a program that ignores it gets no network)",
        *plan.proxy_port);
  if (plan.tcp_refused_as_denied) return "the network is closed, the machine's loopback too";  // LL-1
  return "the network is closed (only 127.0.0.1 inside this command works)";
}

constexpr const char* kSocketRule = "Unix-domain sockets are refused (ssh-agent, D-Bus, Docker)";
constexpr const char* kGitConfigNote =
    "git's config files and hooks are locked inside the sandbox, so `git config` cannot change "
    "them here. Change the setting yourself outside the sandbox, or run the command again with "
    "--outside-sandbox (outside_sandbox: true), which needs approval.";

}  // namespace

std::optional<std::string> blocked_note(const Plan& plan, int exit_code,
                                        const std::string& output) {
  if (plan.runner != Runner::kSandbox) return std::nullopt;
  Findings f = scan(plan, output);
  if (!worth_telling(f, exit_code)) return std::nullopt;
  if (f.git_config) return std::string(kGitConfigNote);  // GIT-1
  std::vector<std::string> what;
  if (f.fs) what.push_back(write_rule(plan));
  if (f.net && !plan.share_network) what.push_back(network_rule(plan));
  if (f.sock) what.push_back(kSocketRule);
  if (what.empty()) return std::nullopt;
  std::string where, hint;
  if (f.fs && !f.path.empty()) {
    where = fmt::format(" The refused path: {}.", printable(tilde_path(f.path, plan.home)));
    hint = home_hint(plan, f.path);
  }
  std::string ways;
  if (f.net && !plan.share_network)
    ways = "To reach the internet, run it again with --network (network: true); for anything "
           "else, --outside-sandbox (outside_sandbox: true)";
  else
    ways = std::string("If this step needs it, ") + kRunOutside;
  return fmt::format("the sandbox may have blocked this command: {}.{}{} {}.", join_sentence(what),
                     where, hint, ways);
}

std::vector<api::Violation> output_violations(const Plan& plan, int exit_code,
                                              const std::string& output) {
  std::vector<api::Violation> out;
  if (plan.runner != Runner::kSandbox) return out;
  Findings f = scan(plan, output);
  if (!worth_telling(f, exit_code)) return out;
  auto add = [&](std::string kind, std::string path, std::string rule, std::string fix) {
    out.push_back({std::move(kind), std::move(path), "", std::move(rule), std::move(fix),
                   "output"});
  };
  const std::string outside_ways = std::string("if this step needs it, ") + kRunOutside;
  if (f.git_config)
    add("write", "", "git's config files and hooks are read-only inside the sandbox",
        "change the setting yourself outside the sandbox, or run the command again with "
        "--outside-sandbox (outside_sandbox: true), which needs approval");
  if (f.fs && !(f.git_config && f.path.empty())) {
    const std::string entry = f.path.empty() ? "" : writable_entry(f.path, plan.home);
    add("write", f.path, write_rule(plan),
        entry.empty() ? outside_ways
                      : fmt::format("to let every sandboxed command write there, add `writable = "
                                    "[\"{}\"]` under [sandbox] in {}; for this step alone, {}",
                                    entry, config_name(plan), kRunOutside));
  }
  if (f.net && !plan.share_network)
    add("network", "", network_rule(plan),
        plan.proxy_port ? "add the host to [network] allow in your config, or run it again with "
                          "--network (network: true), which needs approval"
                        : "run it again with --network (network: true), which needs approval");
  if (f.sock) add("socket", "", kSocketRule, outside_ways);
  return out;
}

}  // namespace cordon
