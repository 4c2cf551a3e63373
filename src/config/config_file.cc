#include "config/config_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "config/command_entry.h"
#include "config/net_entry.h"
#include "config/toml.h"
#include "core/duration.h"
#include "core/paths.h"

namespace cordon {

const char* to_string(SandboxMode m) {
  switch (m) {
    case SandboxMode::kOn:
      return "on";
    case SandboxMode::kOff:
      return "off";
    case SandboxMode::kExternal:
      return "external";
  }
  return "?";
}
const char* to_string(EscapeMode m) { return m == EscapeMode::kAsk ? "ask" : "never"; }
const char* to_string(CacheMode m) {
  switch (m) {
    case CacheMode::kProject:
      return "project";
    case CacheMode::kShared:
      return "shared";
    case CacheMode::kOff:
      return "off";
  }
  return "?";
}
const char* to_string(BackendSetting b) {
  switch (b) {
    case BackendSetting::kAuto:
      return "auto";
    case BackendSetting::kBwrap:
      return "bwrap";
    case BackendSetting::kLandlock:
      return "landlock";
  }
  return "?";
}
const char* to_string(CredentialSend s) {
  switch (s) {
    case CredentialSend::kAuthorization:
      return "authorization";
    case CredentialSend::kBasic:
      return "basic";
    case CredentialSend::kHeader:
      return "header";
  }
  return "?";
}
const char* to_string(ApprovalMode m) {
  switch (m) {
    case ApprovalMode::kManual:
      return "manual";
    case ApprovalMode::kApproveAll:
      return "approve-all";
    case ApprovalMode::kAuto:
      return "auto";
  }
  return "?";
}

namespace {

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return "a date or time";
    default:
      return "nothing";
  }
}

// Carries the file name so every error names file, line and key.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  Error err(const toml::node& n, const std::string& key, const std::string& what) const {
    auto line = n.source().begin.line;
    return make_error(ErrorKind::kConfig,
                      fmt::format("{}:{}: {}: {}. Fix this line of your config, or remove it "
                                  "to use the default.",
                                  file_, line, key, what),
                      file_);
  }

  Result<bool> boolean(const toml::node& n, const std::string& key) const {
    if (auto v = n.value<bool>(); v && n.is_boolean()) return *v;
    return err(n, key, fmt::format("expected true or false, found {}", type_name(n)));
  }

  Result<std::string> string(const toml::node& n, const std::string& key) const {
    if (n.is_string()) return *n.value<std::string>();
    return err(n, key, fmt::format("expected a string, found {}", type_name(n)));
  }

  Result<std::vector<std::string>> strings(const toml::node& n, const std::string& key) const {
    const toml::array* arr = n.as_array();
    if (!arr) return err(n, key, fmt::format("expected an array of strings, found {}", type_name(n)));
    std::vector<std::string> out;
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::node& e = *arr->get(i);
      if (!e.is_string())
        return err(e, fmt::format("{}[{}]", key, i),
                   fmt::format("expected a string, found {}", type_name(e)));
      std::string s = *e.value<std::string>();
      if (s.empty()) return err(e, fmt::format("{}[{}]", key, i), "an empty string names nothing");
      if (s.find('\0') != std::string::npos)
        return err(e, fmt::format("{}[{}]", key, i), "a NUL byte is not allowed");
      out.push_back(std::move(s));
    }
    return out;
  }

  Result<unsigned long long> count(const toml::node& n, const std::string& key) const {
    if (n.is_integer()) {
      auto v = *n.value<int64_t>();
      if (v <= 0) return err(n, key, "expected a positive integer");
      return static_cast<unsigned long long>(v);
    }
    return err(n, key, fmt::format("expected a positive integer, found {}", type_name(n)));
  }

  Result<unsigned long long> size(const toml::node& n, const std::string& key) const {
    if (n.is_integer()) return count(n, key);
    if (n.is_string()) {
      auto v = parse_size(*n.value<std::string>());
      if (v && *v > 0) return *v;
      return err(n, key, "expected a size such as 536870912, \"512M\" or \"2G\"");
    }
    return err(n, key, fmt::format("expected a size (an integer or \"512M\"), found {}",
                                   type_name(n)));
  }

  Result<double> fraction(const toml::node& n, const std::string& key) const {
    double v;
    if (n.is_floating_point())
      v = *n.value<double>();
    else if (n.is_integer())
      v = static_cast<double>(*n.value<int64_t>());
    else
      return err(n, key, fmt::format("expected a number from 0 to 1, found {}", type_name(n)));
    if (!(v >= 0.0 && v <= 1.0)) return err(n, key, "expected a number from 0 to 1");
    return v;
  }

  Error unknown(const toml::node& n, const std::string& table, const std::string& key,
                const std::vector<std::string>& known) const {
    return err(n, fmt::format("[{}] {}", table, key),
               fmt::format("unknown key (known keys: {})", fmt::join(known, ", ")));
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

#define CORDON_TRY(var, expr)           \
  auto var##_r = (expr);                \
  if (!var##_r.ok()) return var##_r.error(); \
  auto var = std::move(var##_r).value()

Status parse_sandbox(const Reader& r, const toml::table& t, Policy& p) {
  static const std::vector<std::string> known = {"enabled",  "mode",     "writable", "hide",
                                                 "env_hide", "env_pass", "escape",   "protect",
                                                 "caches",   "gpu",      "backend"};
  std::optional<bool> enabled;
  const toml::node* enabled_node = nullptr;
  std::optional<SandboxMode> mode;
  const toml::node* mode_node = nullptr;
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    std::string name = "[sandbox] " + key;
    if (key == "enabled") {
      CORDON_TRY(b, r.boolean(v, name));
      enabled = b;
      enabled_node = &v;
    } else if (key == "mode") {
      CORDON_TRY(s, r.string(v, name));
      if (s == "on")
        mode = SandboxMode::kOn;
      else if (s == "off")
        mode = SandboxMode::kOff;
      else if (s == "external")
        mode = SandboxMode::kExternal;
      else
        return r.err(v, name, fmt::format("\"{}\" is not a mode; use \"on\", \"off\" or \"external\"", s));
      mode_node = &v;
    } else if (key == "writable") {
      CORDON_TRY(list, r.strings(v, name));
      const toml::array& arr = *v.as_array();
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string& e = list[i];
        std::string ename = fmt::format("{}[{}]", name, i);
        if (e == "~" || e == "~/")
          return r.err(*arr.get(i), ename,
                       "the whole home folder cannot be writable; name a folder below it, "
                       "such as \"~/.cache/pip\"");
        if (e[0] == '/')
          return r.err(*arr.get(i), ename,
                       fmt::format("\"{}\" is absolute; writable paths must be below the home "
                                   "folder, written \"~/...\"",
                                   e));
        if (e.rfind("~/", 0) != 0)
          return r.err(*arr.get(i), ename,
                       fmt::format("\"{}\" is relative; writable paths are written \"~/...\"", e));
        std::string norm = normalize_path(e.substr(2));
        if (norm == "." || norm == ".." || norm.rfind("../", 0) == 0)
          return r.err(*arr.get(i), ename,
                       fmt::format("\"{}\" leaves the home folder; name a folder below it", e));
      }
      p.writable = std::move(list);
    } else if (key == "hide") {
      CORDON_TRY(list, r.strings(v, name));
      const toml::array& arr = *v.as_array();
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string& e = list[i];
        if (!(e == "~" || e.rfind("~/", 0) == 0 || e[0] == '/'))
          return r.err(*arr.get(i), fmt::format("{}[{}]", name, i),
                       fmt::format("\"{}\" is relative; hidden paths are \"~\", \"~/...\" or "
                                   "absolute",
                                   e));
      }
      p.hide = std::move(list);
    } else if (key == "env_hide") {
      CORDON_TRY(list, r.strings(v, name));
      p.env_hide = std::move(list);
    } else if (key == "env_pass") {
      CORDON_TRY(list, r.strings(v, name));
      const toml::array& arr = *v.as_array();
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i].find_first_of("*?=") != std::string::npos)
          return r.err(*arr.get(i), fmt::format("{}[{}]", name, i),
                       "env_pass takes exact variable names, without patterns or '='");
      }
      p.env_pass = std::move(list);
    } else if (key == "escape") {
      CORDON_TRY(s, r.string(v, name));
      if (s == "ask")
        p.escape = EscapeMode::kAsk;
      else if (s == "never")
        p.escape = EscapeMode::kNever;
      else
        return r.err(v, name, fmt::format("\"{}\" is not allowed; use \"ask\" or \"never\"", s));
    } else if (key == "backend") {  // LL-1
      CORDON_TRY(s, r.string(v, name));
      if (s == "auto")
        p.backend = BackendSetting::kAuto;
      else if (s == "bwrap")
        p.backend = BackendSetting::kBwrap;
      else if (s == "landlock")
        p.backend = BackendSetting::kLandlock;
      else
        return r.err(
            v, name,
            fmt::format("\"{}\" is not allowed; use \"auto\", \"bwrap\" or \"landlock\"", s));
    } else if (key == "gpu") {  // GPU-1
      CORDON_TRY(b, r.boolean(v, name));
      p.gpu = b;
    } else if (key == "caches") {  // PKG-4
      CORDON_TRY(s, r.string(v, name));
      if (s == "project")
        p.caches = CacheMode::kProject;
      else if (s == "shared")
        p.caches = CacheMode::kShared;
      else if (s == "off")
        p.caches = CacheMode::kOff;
      else
        return r.err(v, name,
                     fmt::format("\"{}\" is not allowed; use \"project\" (cordon's own caches "
                                 "for each project), \"shared\" or \"off\"",
                                 s));
    } else if (key == "protect") {
      CORDON_TRY(list, r.strings(v, name));
      const toml::array& arr = *v.as_array();
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string& e = list[i];
        std::string ename = fmt::format("{}[{}]", name, i);
        if (e[0] == '/' || e[0] == '~')
          return r.err(*arr.get(i), ename,
                       fmt::format("\"{}\" is not relative; protected paths are relative to the "
                                   "project root, such as \"scripts/deploy.sh\" or \"tools/\"",
                                   e));
        std::string norm = normalize_path(e);
        if (norm == "." || norm == ".." || norm.rfind("../", 0) == 0)
          return r.err(*arr.get(i), ename,
                       fmt::format("\"{}\" does not name a path inside the project", e));
      }
      p.protect = std::move(list);
    } else {
      return r.unknown(v, "sandbox", key, known);
    }
  }
  if (enabled && mode) {
    bool agree = *enabled ? *mode != SandboxMode::kOff : *mode == SandboxMode::kOff;
    if (!agree)
      return r.err(*enabled_node, "[sandbox] enabled",
                   fmt::format("enabled = {} disagrees with mode = \"{}\" (line {}); keep one "
                               "of them",
                               *enabled ? "true" : "false", to_string(*mode),
                               mode_node->source().begin.line));
  }
  if (mode)
    p.mode = *mode;
  else if (enabled && !*enabled)
    p.mode = SandboxMode::kOff;
  return ok_status();
}

Status parse_away(const Reader& r, const toml::table& t, Policy& p) {
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    if (key != "timeout") return r.unknown(v, "away", key, {"timeout"});
    CORDON_TRY(s, r.string(v, "[away] timeout"));
    if (s == "off") {
      p.away_timeout.reset();
      continue;
    }
    auto d = parse_duration(s);
    // Only Ns, Nm and Nh are accepted here (CFG-4), not a bare number or milliseconds.
    bool unit_ok = !s.empty() && (s.back() == 's' || s.back() == 'm' || s.back() == 'h') &&
                   !(s.size() >= 2 && s.compare(s.size() - 2, 2, "ms") == 0);
    if (!d || !unit_ok || d->count() <= 0 || *d > std::chrono::hours(24))
      return r.err(v, "[away] timeout",
                   fmt::format("\"{}\" is not \"off\" or a duration such as \"30s\", \"15m\" or "
                               "\"2h\" (at most 24h)",
                               s));
    p.away_timeout = *d;
  }
  return ok_status();
}

Status parse_limits(const Reader& r, const toml::table& t, Policy& p) {
  static const std::vector<std::string> known = {"memory", "cpu_seconds", "pids", "file_size",
                                                 "open_files"};
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    std::string name = "[limits] " + key;
    if (key == "memory") {
      CORDON_TRY(n, r.size(v, name));
      p.limits.memory = n;
    } else if (key == "file_size") {
      CORDON_TRY(n, r.size(v, name));
      p.limits.file_size = n;
    } else if (key == "cpu_seconds") {
      CORDON_TRY(n, r.count(v, name));
      p.limits.cpu_seconds = n;
    } else if (key == "pids") {
      CORDON_TRY(n, r.count(v, name));
      p.limits.pids = n;
    } else if (key == "open_files") {
      CORDON_TRY(n, r.count(v, name));
      if (n < 16)
        return r.err(v, name, "fewer than 16 open files leaves a command unable to start");
      p.limits.open_files = n;
    } else {
      return r.unknown(v, "limits", key, known);
    }
  }
  return ok_status();
}

Status parse_approvals(const Reader& r, const toml::table& t, Policy& p) {
  static const std::vector<std::string> known = {"mode", "judge", "cutoff", "away_cutoff"};
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    std::string name = "[approvals] " + key;
    if (key == "mode") {
      CORDON_TRY(s, r.string(v, name));
      if (s == "manual")
        p.approvals.mode = ApprovalMode::kManual;
      else if (s == "approve-all")
        p.approvals.mode = ApprovalMode::kApproveAll;
      else if (s == "auto")
        p.approvals.mode = ApprovalMode::kAuto;
      else
        return r.err(v, name,
                     fmt::format("\"{}\" is not a mode; use \"manual\", \"approve-all\" or "
                                 "\"auto\"",
                                 s));
    } else if (key == "judge") {
      CORDON_TRY(s, r.string(v, name));
      // A program: absolute, ~/... (expanded when run) or a bare name looked up on PATH. A
      // relative path with a folder would depend on where cordon happens to start.
      bool bare = !s.empty() && s.find('/') == std::string::npos && s[0] != '~';
      bool absolute = !s.empty() && s[0] == '/';
      bool home = s.size() > 2 && s.compare(0, 2, "~/") == 0;
      if (s.find('\0') != std::string::npos) return r.err(v, name, "a NUL byte is not allowed");
      if (!(bare || absolute || home))
        return r.err(v, name,
                     fmt::format("\"{}\" is not a program: use an absolute path, a path under "
                                 "~/ or a program name found on PATH",
                                 s));
      p.approvals.judge = s;
    } else if (key == "cutoff") {
      CORDON_TRY(d, r.fraction(v, name));
      p.approvals.cutoff = d;
    } else if (key == "away_cutoff") {
      CORDON_TRY(d, r.fraction(v, name));
      p.approvals.away_cutoff = d;
    } else {
      return r.unknown(v, "approvals", key, known);
    }
  }
  if (p.approvals.mode == ApprovalMode::kAuto && p.approvals.judge.empty()) {
    return make_error(ErrorKind::kConfig,
                      fmt::format("{}: [approvals] mode = \"auto\" needs a judge program: add "
                                  "judge = \"/path/to/judge\" to [approvals], or use mode = "
                                  "\"manual\".",
                                  r.file()),
                      r.file());
  }
  return ok_status();
}

Status parse_commands(const Reader& r, const toml::table& t, Policy& p) {
  static const std::vector<std::string> known = {"read_only", "denied", "denied_paths",
                                                 "sensitive"};
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    std::string name = "[commands] " + key;
    if (key == "read_only" || key == "denied") {
      // CMD-2, CMD-4: `program`, `program arg` or `program arg arg`.
      CORDON_TRY(list, r.strings(v, name));
      const toml::array& arr = *v.as_array();
      for (size_t i = 0; i < list.size(); ++i)
        if (auto bad = check_command_entry(list[i], key == "denied"))
          return r.err(*arr.get(i), fmt::format("{}[{}]", name, i), *bad);
      (key == "read_only" ? p.commands.read_only : p.commands.denied) = std::move(list);
    } else if (key == "denied_paths") {
      CORDON_TRY(list, r.strings(v, name));
      const toml::array& arr = *v.as_array();
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string& e = list[i];
        std::string ename = fmt::format("{}[{}]", name, i);
        if (!(e[0] == '/' || e.rfind("~/", 0) == 0))
          return r.err(*arr.get(i), ename,
                       fmt::format("\"{}\" must be absolute or start with \"~/\"", e));
        std::string norm = e[0] == '/' ? normalize_path(e) : normalize_path(e.substr(2));
        if (norm == "/" || (e[0] == '~' && (norm == "." || norm == "..")))
          return r.err(*arr.get(i), ename,
                       "denying the root or the whole home folder would deny everything; name "
                       "a narrower path");
      }
      p.commands.denied_paths = std::move(list);
    } else if (key == "sensitive") {
      const toml::table* st = v.as_table();
      if (!st) return r.err(v, name, fmt::format("expected a table, found {}", type_name(v)));
      for (auto&& [sk, sv] : *st) {
        std::string skey(sk.str());
        std::string sname = "[commands.sensitive] " + skey;
        if (skey != "dirs" && skey != "files" && skey != "prefixes" && skey != "extensions")
          return r.unknown(sv, "commands.sensitive", skey,
                           {"dirs", "files", "prefixes", "extensions"});
        CORDON_TRY(list, r.strings(sv, sname));
        auto& dst = skey == "dirs"       ? p.commands.sensitive.dirs
                    : skey == "files"    ? p.commands.sensitive.files
                    : skey == "prefixes" ? p.commands.sensitive.prefixes
                                         : p.commands.sensitive.extensions;
        dst = std::move(list);
      }
    } else {
      return r.unknown(v, "commands", key, known);
    }
  }
  return ok_status();
}

// NET-6, NET-10.
Status parse_network(const Reader& r, const toml::table& t, Policy& p) {
  static const std::vector<std::string> known = {"allow", "deny", "unknown"};
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    std::string name = "[network] " + key;
    if (key == "allow" || key == "deny") {
      CORDON_TRY(list, r.strings(v, name));
      const toml::array& arr = *v.as_array();
      for (size_t i = 0; i < list.size(); ++i)
        if (auto e = parse_net_entry(list[i]); !e.ok())
          return r.err(*arr.get(i), fmt::format("{}[{}]", name, i), e.error().message);
      (key == "allow" ? p.network.allow : p.network.deny) = std::move(list);
    } else if (key == "unknown") {
      CORDON_TRY(s, r.string(v, name));
      if (s != "refuse" && s != "ask")
        return r.err(v, name, fmt::format("\"{}\" is not a choice; use \"refuse\" or \"ask\"", s));
      p.network.ask_unknown = s == "ask";
    } else {
      return r.unknown(v, "network", key, known);
    }
  }
  return ok_status();
}

// NET-12: [ssh] agent = true, keys = { "github.com" = "~/.ssh/id_ed25519_github" }.
Status parse_ssh(const Reader& r, const toml::table& t, Policy& p) {
  static const std::vector<std::string> known = {"agent", "keys"};
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    std::string name = "[ssh] " + key;
    if (key == "agent") {
      CORDON_TRY(b, r.boolean(v, name));
      p.ssh.agent = b;
    } else if (key == "keys") {
      const toml::table* keys = v.as_table();
      if (!keys)
        return r.err(v, name,
                     fmt::format("expected a table of host = \"key file\", found {}; for "
                                 "example keys = {{ \"github.com\" = \"~/.ssh/id_ed25519\" }}",
                                 type_name(v)));
      for (auto&& [hk, hv] : *keys) {
        std::string host(hk.str());
        std::string entry = fmt::format("{}.\"{}\"", name, host);
        auto norm = normalize_host(host);
        if (!norm || host.find('*') != std::string::npos || host.find(':') != std::string::npos)
          return r.err(hv, entry,
                       "the key is not a host name; name one host exactly as in your remote "
                       "(github.com), without a port or a wildcard");
        if (!hv.is_string()) return r.err(hv, entry, "expected a string (the key file)");
        std::string file = hv.value_or(std::string());
        const bool from_home = file.size() >= 2 && file[0] == '~' && file[1] == '/';
        if (!from_home && (file.empty() || file[0] != '/'))
          return r.err(hv, entry,
                       fmt::format("\"{}\" is not a path from the home (~/...) or the root (/...); "
                                   "name the private key file, for example \"~/.ssh/id_ed25519\"",
                                   file));
        p.ssh.keys.emplace_back(*norm, file);
      }
    } else {
      return r.unknown(v, "ssh", key, known);
    }
  }
  return ok_status();
}

// AUD-3: an environment variable's name as a shell writes it.
bool env_name_ok(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// AUD-3: a header name (RFC 9110 token), and not one the proxy or HTTP itself owns.
std::optional<std::string> bad_header(const std::string& h) {
  static const std::string tchar = "!#$%&'*+-.^_`|~";
  if (h.empty() || !std::all_of(h.begin(), h.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || tchar.find(c) != std::string::npos;
      }))
    return fmt::format("\"{}\" is not a header name (letters, digits and -)", h);
  std::string low = h;
  std::transform(low.begin(), low.end(), low.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (low == "authorization")
    return std::string("for the Authorization header use send = \"authorization\"");
  if (low == "host" || low == "content-length" || low == "transfer-encoding" ||
      low == "connection" || low.rfind("proxy-", 0) == 0)
    return fmt::format("the {} header cannot carry a credential; name the header your service "
                       "reads the key from, such as \"X-Api-Key\"",
                       h);
  return std::nullopt;
}

// AUD-3: one [credentials.NAME] table.
Status parse_credential(const Reader& r, const std::string& cname, const toml::node& node,
                        Policy& p) {
  static const std::vector<std::string> known = {"env", "file", "hosts", "send", "header"};
  const std::string table = "credentials." + cname;
  const toml::table* t = node.as_table();
  if (!t)
    return r.err(node, "[" + table + "]",
                 fmt::format("expected a table such as [credentials.github] with env, hosts and "
                             "send, found {}",
                             type_name(node)));
  if (!std::all_of(cname.begin(), cname.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
      }) || cname.empty())
    return r.err(node, "[" + table + "]",
                 "a credential's name is letters, digits, '-' and '_' (such as \"github\")");
  CredentialConfig c;
  c.name = cname;
  const toml::node* send_node = nullptr;
  const toml::node* header_node = nullptr;
  for (auto&& [k, v] : *t) {
    std::string key(k.str());
    std::string name = fmt::format("[{}] {}", table, key);
    if (key == "env") {
      CORDON_TRY(s, r.string(v, name));
      if (!env_name_ok(s))
        return r.err(v, name,
                     fmt::format("\"{}\" is not a variable name (letters, digits and _, such "
                                 "as \"GITHUB_TOKEN\")",
                                 s));
      c.env = s;
    } else if (key == "file") {
      CORDON_TRY(s, r.string(v, name));
      if (!(s.rfind("~/", 0) == 0 || s[0] == '/') || s.find('\0') != std::string::npos)
        return r.err(v, name,
                     fmt::format("\"{}\" must be absolute or start with \"~/\"", s));
      const std::string norm = s[0] == '/' ? normalize_path(s) : normalize_path(s.substr(2));
      if (norm == "/" || norm == "." || norm == ".." || norm.rfind("../", 0) == 0)
        return r.err(v, name, fmt::format("\"{}\" does not name a file", s));
      c.file = s;
    } else if (key == "hosts") {
      CORDON_TRY(list, r.strings(v, name));
      const toml::array& arr = *v.as_array();
      for (size_t i = 0; i < list.size(); ++i)
        if (auto e = parse_net_entry(list[i]); !e.ok())
          return r.err(*arr.get(i), fmt::format("{}[{}]", name, i), e.error().message);
      c.hosts = std::move(list);
    } else if (key == "send") {
      CORDON_TRY(s, r.string(v, name));
      if (s == "authorization")
        c.send = CredentialSend::kAuthorization;
      else if (s == "basic")
        c.send = CredentialSend::kBasic;
      else if (s == "header")
        c.send = CredentialSend::kHeader;
      else
        return r.err(v, name,
                     fmt::format("\"{}\" is not allowed; use \"authorization\" (the "
                                 "Authorization header), \"basic\" (the password of basic "
                                 "auth) or \"header\" with header = \"X-Api-Key\"",
                                 s));
      send_node = &v;
    } else if (key == "header") {
      CORDON_TRY(s, r.string(v, name));
      if (auto bad = bad_header(s)) return r.err(v, name, *bad);
      c.header = s;
      header_node = &v;
    } else {
      return r.unknown(v, table, key, known);
    }
  }
  const std::string head = "[" + table + "]";
  if (c.env.empty() == c.file.empty())
    return r.err(node, head,
                 "name where the real value is, either env = \"VARIABLE\" or file = "
                 "\"~/path/to/token\" (one of them)");
  if (c.hosts.empty())
    return r.err(node, head,
                 "hosts is missing or empty: name the hosts the credential may be sent to, "
                 "such as hosts = [\"api.github.com\"]");
  if (header_node && c.send != CredentialSend::kHeader) {
    if (send_node)
      return r.err(*header_node, head + " header",
                   "header is only read with send = \"header\"; remove one of them");
    c.send = CredentialSend::kHeader;  // header = "X-Api-Key" alone says it
  }
  if (c.send == CredentialSend::kHeader && c.header.empty())
    return r.err(*send_node, head + " send",
                 "send = \"header\" needs header = \"X-Api-Key\" (the header's name)");
  p.credentials.push_back(std::move(c));
  return ok_status();
}

Status parse_credentials(const Reader& r, const toml::table& t, Policy& p) {
  // In the file's order (the table iterates by name).
  std::vector<std::pair<std::string, const toml::node*>> entries;
  for (auto&& [k, v] : t) entries.emplace_back(std::string(k.str()), &v);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.second->source().begin.line < b.second->source().begin.line;
  });
  for (const auto& [name, node] : entries)
    if (auto st = parse_credential(r, name, *node, p); !st.ok()) return st.error();
  return ok_status();
}

// AUD-3: a credential goes only where the allowlist proxy goes: each of its hosts must be
// covered by a [network] allow entry (and by no deny entry), and two credentials never share
// a variable or a file.
Status check_credentials(const Reader& r, const toml::table& root, const Policy& p) {
  std::vector<NetEntry> allow, deny;
  for (const auto& a : p.network.allow) allow.push_back(parse_net_entry(a).value());
  for (const auto& d : p.network.deny) deny.push_back(parse_net_entry(d).value());
  for (size_t i = 0; i < p.credentials.size(); ++i) {
    const CredentialConfig& c = p.credentials[i];
    const toml::node& node = *root["credentials"][c.name].node();
    const std::string head = "[credentials." + c.name + "] hosts";
    for (const auto& h : c.hosts) {
      NetEntry e = parse_net_entry(h).value();
      const bool allowed = std::any_of(allow.begin(), allow.end(),
                                       [&](const NetEntry& a) { return entry_covers(a, e); });
      if (!allowed)
        return r.err(node, head,
                     fmt::format("\"{}\" is not reached through [network] allow, so the "
                                 "credential could never be sent there; add \"{}\" to "
                                 "[network] allow, or remove it from hosts",
                                 h, h));
      for (const auto& d : deny)
        if (entry_covers(d, e) || entry_covers(e, d))
          return r.err(node, head,
                       fmt::format("\"{}\" is denied by [network] deny \"{}\"; remove one of "
                                   "them",
                                   h, d.text));
    }
    for (size_t j = 0; j < i; ++j) {
      const CredentialConfig& o = p.credentials[j];
      if ((!c.env.empty() && c.env == o.env) || (!c.file.empty() && c.file == o.file))
        return r.err(node, "[credentials." + c.name + "]",
                     fmt::format("it reads the same {} as [credentials.{}]; keep one of them",
                                 c.env.empty() ? "file" : "variable", o.name));
    }
  }
  return ok_status();
}

// TOML allows no control character but tab, and newlines (LF, or CR before LF), anywhere in
// a document, strings and comments included (escapes stand for the others). Found before the
// parser sees them: toml++ 3.3 trips its own assertion on one where a key starts.
Status check_characters(std::string_view text, const std::string& file_name) {
  int line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') ++line;
    bool allowed = c >= 0x20 ? c != 0x7f
                             : c == '\t' || c == '\n' ||
                                   (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n');
    if (!allowed)
      return make_error(ErrorKind::kConfig,
                        fmt::format("{}:{}: the config has a control character (byte 0x{:02x}), "
                                    "which TOML does not allow. Remove it, or write it as an "
                                    "escape inside a string.",
                                    file_name, line, c),
                        file_name);
  }
  return ok_status();
}

}  // namespace

Result<Policy> parse_config(std::string_view text, const std::string& file_name) {
  Policy p;
  p.source_file = file_name;
  p.file_existed = true;
  Reader r(file_name);
  if (Status s = check_characters(text, file_name); !s.ok()) return s.error();
  toml::table root;
  try {
    root = toml::parse(text, file_name);
  } catch (const toml::parse_error& e) {
    return make_error(ErrorKind::kConfig,
                      fmt::format("{}:{}: the config is not valid TOML: {}. Fix that line.",
                                  file_name, e.source().begin.line, e.description()),
                      file_name);
  }
  using Parser = Status (*)(const Reader&, const toml::table&, Policy&);
  static const std::pair<const char*, Parser> tables[] = {
      {"sandbox", parse_sandbox},     {"away", parse_away},         {"limits", parse_limits},
      {"approvals", parse_approvals}, {"commands", parse_commands}, {"network", parse_network},
      {"ssh", parse_ssh},
      {"credentials", parse_credentials}};
  for (auto&& [k, v] : root) {
    std::string key(k.str());
    Parser parser = nullptr;
    for (const auto& [name, fn] : tables)
      if (key == name) parser = fn;
    if (!parser) {
      p.warnings.push_back(fmt::format("{}:{}: ignoring unknown {} \"{}\" (a newer cordon may "
                                       "know it)",
                                       file_name, v.source().begin.line,
                                       v.is_table() ? "table" : "key", key));
      continue;
    }
    const toml::table* t = v.as_table();
    if (!t)
      return r.err(v, "[" + key + "]", fmt::format("expected a table, found {}", type_name(v)));
    if (auto st = parser(r, *t, p); !st.ok()) return st.error();
  }
  if (auto st = check_credentials(r, root, p); !st.ok()) return st.error();
  if (!p.env_pass.empty() && p.mode != SandboxMode::kExternal)
    p.warnings.push_back(
        fmt::format("{}: [sandbox] env_pass is ignored unless mode = "
                    "\"external\"; the listed variables are still "  // ENV-2
                    "stripped",
                    file_name));
  return p;
}

}  // namespace cordon
