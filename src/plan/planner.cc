#include "plan/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/paths.h"
#include "core/strings.h"
#include "plan/budget.h"
#include "plan/cache_rules.h"
#include "plan/cache_tools.h"
#include "plan/env_filter.h"
#include "plan/gpu_rules.h"
#include "plan/mount_order.h"
#include "plan/net_rules.h"
#include "plan/plan_check.h"
#include "plan/project_rules.h"
#include "plan/protect_rules.h"
#include "plan/seccomp_rules.h"
#include "plan/ssh_rules.h"
#include "plan/wsl_rules.h"

namespace cordon {

const char* to_string(MountKind k) {
  switch (k) {
    case MountKind::kRoBind:
      return "ro-bind";
    case MountKind::kBind:
      return "bind";
    case MountKind::kRoBindTry:
      return "ro-bind-try";
    case MountKind::kDev:
      return "dev";
    case MountKind::kProc:
      return "proc";
    case MountKind::kTmpfs:
      return "tmpfs";
    case MountKind::kDevBind:
      return "dev-bind";
  }
  return "?";
}

const char* to_string(Kind k) {
  switch (k) {
    case Kind::kMissing:
      return "missing";
    case Kind::kFile:
      return "file";
    case Kind::kDir:
      return "folder";
    case Kind::kSymlink:
      return "symlink";
    case Kind::kOther:
      return "special file";
  }
  return "?";
}

size_t argument_bytes(const std::vector<std::string>& argv, const EnvMap& env) {
  return command_line_bytes(argv, env);
}

namespace {

Plan refuse(Plan p, Refusal r) {
  p.refusal = std::move(r);
  return p;
}

std::string config_name(const Policy& policy, const Facts& facts) {
  std::string f = policy.source_file.empty() ? facts.folders.config_file : policy.source_file;
  return tilde_path(f, facts.home);
}

// BUD-1: the command line and environment must fit the system's argument limit. A Seatbelt
// sandbox is checked by make_seatbelt_plan, once its profile (an argument too) is written.
std::optional<Refusal> check_arguments(const Plan& p, const Facts& facts, const PlanOptions& opt) {
  ArgumentBudget b;
  b.limit = facts.machine.arg_max;
  const bool mac = opt.backend == Backend::kSeatbelt;
  if (mac && p.runner == Runner::kSandbox) return std::nullopt;
  b.max_string = mac ? 0 : kLinuxMaxArgString;
  b.temp_folder = mac ? "$TMPDIR" : "/tmp";
  if (p.runner == Runner::kSandbox)
    b.prefix = {"bwrap", "--args", "3", "--"};  // bwrap_command_line(); the rest goes by fd
  else
    b.extra_env = {{"CORDON_RUN", 16}};  // launch_unconfined() marks the command (NET-4)
  return check_argument_budget(p.argv, p.env, b);
}

std::string choose_cwd(const Request& req, const Facts& facts,
                       const std::vector<std::string>& roots) {
  if (!req.cwd.empty()) {
    std::string c = normalize_path(req.cwd);
    for (const auto& r : roots)
      if (path_within(c, r)) return c;
  }
  return facts.project;
}


// A path to hide (real), as plan_hidden collects them.
struct HideTarget {
  std::string path;
  bool dir;
  std::string why;
};

// FS-7: why a hidden path's real target stays visible ("" when it is hidden).
std::string kept_because(const Facts& facts, const std::string& t) {
  if (path_within(facts.project, t)) return "it contains the project";
  if (!facts.git.git_dir.empty() && path_within(facts.git.git_dir, t))
    return "it contains the project's git folder";
  return "";
}

// FS-5: the targets of links inside a hidden folder (the links themselves are hidden with it).
void plan_hidden_links(const Facts& facts, const HiddenFact& h,
                       const std::vector<std::string>& visible_tmp_roots,
                       std::vector<HideTarget>& targets, Plan& p) {
  for (const auto& l : h.links) {
    if (l.real.empty()) continue;
    std::string shown = tilde_path(l.real, facts.home);
    std::string why = h.why + " (target of the link " + tilde_path(l.path, facts.home) + ")";
    std::string because = link_target_kept_because(l.real, facts.home, facts.project);
    if (because.empty()) because = kept_because(facts, l.real);
    if (!because.empty()) {
      p.hidden.push_back(HiddenDecision{shown, h.entry, why, false, because});
      p.notices.push_back(
          fmt::format("{} ({}) stays visible: {}.", shown, why, because));  // FS-5, FS-7
      continue;
    }
    if (path_within(l.real, "/tmp") && !path_within_any(l.real, visible_tmp_roots)) continue;
    p.hidden.push_back(HiddenDecision{shown, h.entry, why, true, ""});
    targets.push_back({l.real, l.real_kind == Kind::kDir, h.entry + " (link target)"});
  }
}

// FS-4, FS-5, FS-7: hidden paths become empty read-only files and folders.
void plan_hidden(const Facts& facts, const std::vector<std::string>& visible_tmp_roots, Plan& p) {
  if (!facts.hidden_links_refusal.empty()) {
    p.refusal = Refusal{ErrorKind::kRefused, facts.hidden_links_refusal};
    return;
  }
  std::vector<HideTarget> targets;
  for (const auto& h : facts.hidden) {
    for (const auto& m : h.matches) {
      // A dangling link hides nothing; its text is not a secret.
      if (!m.exists() || m.real.empty()) continue;
      std::string shown = tilde_path(m.path, facts.home);
      const std::string& t = m.real;
      if (std::string because = kept_because(facts, t); !because.empty()) {
        p.hidden.push_back(HiddenDecision{shown, h.entry, h.why, false, because});
        p.notices.push_back(
            fmt::format("{} ({}) stays visible: {}.", shown, h.why, because));  // FS-7
        continue;
      }
      // The machine's /tmp is replaced by the private one: only what is bound stays visible.
      if (path_within(t, "/tmp") && !path_within_any(t, visible_tmp_roots)) continue;
      p.hidden.push_back(HiddenDecision{shown, h.entry, h.why, true, ""});
      if (m.kind == Kind::kSymlink && m.real != m.path)
        p.hidden.push_back(HiddenDecision{tilde_path(t, facts.home), h.entry,
                                          h.why + " (target of " + shown + ")", true, ""});
      targets.push_back({t, m.real_kind == Kind::kDir, h.entry});
    }
    plan_hidden_links(facts, h, visible_tmp_roots, targets, p);
  }
  std::stable_sort(targets.begin(), targets.end(),
                   [](const HideTarget& a, const HideTarget& b) { return a.path < b.path; });
  std::vector<std::string> hidden_dirs;
  std::set<std::string> seen;
  for (const auto& t : targets) {
    if (!seen.insert(t.path).second) continue;
    // Inside an already hidden folder the path does not exist in the sandbox; skip it.
    if (path_within_any(t.path, hidden_dirs)) continue;
    p.mounts.push_back(MountOp{MountKind::kRoBind,
                               t.dir ? hidden_dir_source(facts, t.path) : facts.empty_file, t.path,
                               "hidden: " + t.why});
    if (t.dir) hidden_dirs.push_back(t.path);
  }
}

// FS-12: commands see the global git config (and what it includes) without its credentials.
void plan_git_config(const Facts& facts, Plan& p) {
  for (const auto& c : facts.git_config_copies) {
    p.mounts.push_back(MountOp{MountKind::kRoBind, c.copy.empty() ? facts.empty_file : c.copy,
                               c.path, "git config: credentials removed"});
    for (const auto& r : c.removed) p.git_config_removed.push_back(c.shown + ": " + r);
  }
}

// FS-4: configs in the home folder are seen without the lines that hold a credential.
void plan_home_config_copies(const Facts& facts, Plan& p) {
  for (const auto& c : facts.home_config_copies) {
    bool inside_hidden = false;  // a hidden folder holding it already shows nothing of it
    for (const auto& m : p.mounts)
      inside_hidden |= starts_with(m.why, "hidden:") && m.src != facts.empty_file &&
                       m.dest != c.path && path_within(c.path, m.dest);
    if (inside_hidden) continue;
    p.mounts.push_back(MountOp{MountKind::kRoBind, c.copy.empty() ? facts.empty_file : c.copy,
                               c.path, "config: credentials removed"});  // FS-4
    std::string why = "a copy without " + join(c.removed, ", ");
    p.hidden.push_back(HiddenDecision{c.shown, c.shown, why, true, ""});
  }
}

// BUD-2: how many mounts each list takes.
BudgetCounts mount_counts(const Plan& p) {
  BudgetCounts c;
  for (const auto& m : p.mounts) c.at(mount_budget_list(m))++;
  return c;
}

void build_sandbox_mounts(const Policy& policy, const Facts& facts, const Request& req,
                          const std::vector<std::string>& writable, Plan& p, bool coarse,
                          Backend backend) {
  auto& m = p.mounts;
  m.push_back({MountKind::kRoBind, "/", "/", "base: the whole filesystem, read-only"});  // FS-1
  m.push_back({MountKind::kDev, "", "/dev", "base: fresh minimal /dev"});                // FS-9
  m.push_back({MountKind::kProc, "", "/proc", "base: fresh /proc"});
  for (const char* k : {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"})
    m.push_back({MountKind::kRoBindTry, k, k, "base: kernel settings read-only"});
  plan_gpu(policy, facts, backend == Backend::kSeatbelt, p);  // GPU-1: before what hides
  // FS-3: the private /tmp goes first so a project under /tmp stays visible at its own path.
  m.push_back({MountKind::kBind, facts.session_tmp, "/tmp", "writable: private /tmp"});
  m.push_back({MountKind::kBind, facts.project, facts.project, "writable: project"});  // FS-2
  p.writable_roots = {facts.project, facts.session_tmp};
  for (const auto& w : writable) {
    if (path_within(w, facts.project)) continue;
    m.push_back({MountKind::kBind, w, w, "writable: [sandbox] writable"});
    p.writable_roots.push_back(w);
  }
  std::vector<std::string> bound = {facts.project};
  bound.insert(bound.end(), writable.begin(), writable.end());
  // FS-8: cordon's own state, data and cache stay read-only inside a writable root.
  for (const auto& d : facts.cordon_dirs) {
    if (!d.exists() || d.real.empty()) continue;
    if (path_within_any(d.real, bound))
      m.push_back({MountKind::kRoBind, d.real, d.real, "cordon: own folder read-only"});
  }
  plan_caches(policy, facts, p);  // PKG-4 "shared", before the hidden paths inside
  plan_protected(policy, facts, p, coarse);
  // FS-3: only bwrap replaces the machine's /tmp; under Landlock and Seatbelt it stays
  // visible, so what is hidden there must be hidden like anywhere else.
  std::vector<std::string> visible_in_tmp = bound;
  if (backend != Backend::kBwrap) visible_in_tmp.push_back("/tmp");
  plan_hidden(facts, visible_in_tmp, p);
  // PKG-2: inside cordon's hidden cache folder; Seatbelt and Landlock have no mounts over a
  // tool's path.
  plan_project_caches(policy, facts, p, backend == Backend::kBwrap);
  plan_wsl(facts, p);
  plan_credentials(facts, req, p);
  plan_git_config(facts, p);
  plan_home_config_copies(facts, p);
  plan_ssh(policy, facts, req, backend, p);  // NET-12: last, over /tmp
}

}  // namespace

namespace {

Plan plan_start(const Policy& policy, const Facts& facts, const Request& req,
                const PlanOptions& opt) {
  Plan p;
  p.mode = policy.mode;
  p.timeout = req.timeout;
  p.limits = policy.limits;
  p.warnings = policy.warnings;
  p.home = facts.home;
  p.config_file = config_name(policy, facts);
  p.argv = command_argv(req, opt.shell);
  return p;
}

// What refuses any command, whatever runs it.
std::optional<Refusal> request_refusal(const Policy& policy, const Facts& facts, const Request& req,
                                       const Plan& p) {
  if (p.argv.empty() || p.argv[0].empty())
    return Refusal{ErrorKind::kInvalid,
                   "no command was given. Fix: name one after `--`, or give a script with "
                   "`-c 'SCRIPT'`."};
  if (auto r = check_request(req)) return r;
  // FS-2, FS-4: a credential folder, a system folder or the home is never a project (named
  // before CFG-5, which `/` and the home would also trip, for a less helpful reason).
  if (policy.mode == SandboxMode::kOn && !req.outside_sandbox)
    if (auto r = project_refusal(facts)) return r;
  // CFG-5: a config file inside the project could widen or switch off its own sandbox.
  if (!facts.config_real.empty() && path_within(facts.config_real, facts.project))
    return Refusal{ErrorKind::kConfig,
                   fmt::format("the config file {} lies inside the project {}, so the project "
                               "could change its own sandbox; it is not read. Fix: point "
                               "CORDON_HOME or XDG_CONFIG_HOME outside the project.",
                               facts.config_real, facts.project)};
  // NET-5: escape = "never" removes both ways out.
  if (policy.mode == SandboxMode::kOn && (req.network || req.outside_sandbox) &&
      policy.escape == EscapeMode::kNever)
    return Refusal{
        ErrorKind::kRefused,
        fmt::format("{} was requested, but [sandbox] escape = \"never\" in {} "
                    "removes both ways out of the sandbox. The command was not run. "
                    "Fix: run it without {}, or change escape in that file.",
                    req.outside_sandbox ? "running outside the sandbox" : "network access",
                    config_name(policy, facts),
                    req.outside_sandbox ? "--outside-sandbox" : "--network")};
  return std::nullopt;
}

// MODE-2, MODE-3, NET-4: a command cordon does not confine (mode off or external, or an
// approved outside-sandbox command); the environment is filtered once, except with mode off.
Plan plan_unconfined(const Policy& policy, const Facts& facts, const Request& req,
                     const PlanOptions& opt, Plan p) {
  p.runner = Runner::kUnconfined;
  p.cwd = choose_cwd(req, facts, {facts.project});
  if (policy.mode == SandboxMode::kOff) {
    p.env = facts.env;
    p.notices.push_back(
        fmt::format("the sandbox is off ([sandbox] mode = \"off\" in {}): "
                    "commands run unconfined, with the environment untouched.",
                    config_name(policy, facts)));
  } else {
    const bool external = policy.mode == SandboxMode::kExternal;
    EnvFilterResult filtered = filter_env(facts.env, policy, external);  // ENV-1
    p.stripped = std::move(filtered.stripped);
    p.env = std::move(filtered.kept);
    p.env.set("PWD", p.cwd);
    if (external) {
      std::string notice = fmt::format(
          "this machine is the sandbox ([sandbox] mode = "
          "\"external\", set by {}): commands run without a "
          "sandbox from cordon.",
          config_name(policy, facts));
      if (!p.stripped.empty())
        notice += " These variables are not available to commands: " + join(p.stripped, ", ") + ".";
      p.notices.push_back(notice);
    }
  }
  if (auto r = check_arguments(p, facts, opt)) p.refusal = r;
  return p;
}

// What refuses a sandboxed command before its mounts are planned.
std::optional<Refusal> sandbox_refusal(const Policy& policy, const Facts& facts,
                                       const PlanOptions& opt) {
  if (opt.backend == Backend::kBwrap && facts.machine.bwrap.empty())
    return Refusal{ErrorKind::kUnavailable,
                   "the sandbox is unavailable: bwrap (bubblewrap) is not installed. Fix: "
                   "install the `bubblewrap` package (sudo apt-get install bubblewrap), or set "
                   "[sandbox] mode = \"external\" when this machine is itself the boundary."};
  if (opt.backend == Backend::kSeatbelt && facts.machine.sandbox_exec.empty())
    return Refusal{ErrorKind::kUnavailable,
                   fmt::format("the sandbox is unavailable: /usr/bin/sandbox-exec is missing. "
                               "Fix: set [sandbox] mode = \"external\" in {} when this machine "
                               "is itself the boundary, or mode = \"off\" to run commands "
                               "unconfined.",
                               config_name(policy, facts))};
  if (facts.project.size() > opt.max_project_path)
    return Refusal{ErrorKind::kRefused,
                   fmt::format("the project path is {} bytes long, more than the {} bytes the "
                               "sandbox supports. Fix: move the project to a shorter "  // FS-11
                               "path.",
                               facts.project.size(), opt.max_project_path)};
  if (!facts.project_searchable)
    return Refusal{
        ErrorKind::kRefused,
        fmt::format("the project root {} cannot be searched (its permissions are "
                    "{:o}), so no sandboxed command can run in it. Fix: "  // FS-10
                    "restore its permissions on the host, for example `chmod u+rwx "
                    "{}`.",
                    facts.project, facts.project_info.mode & 07777, shell_quote(facts.project))};
  for (const char* sub : {"sessions", "checkpoints", "audit", "credentials"}) {  // FS-8, AUD-1
    std::string d = path_join(facts.folders.data, sub);
    if (path_within(d, facts.project))
      return Refusal{ErrorKind::kRefused,
                     fmt::format("the project {} contains cordon's own {} folder ({}), which "
                                 "commands must not see. Fix: point CORDON_HOME or "  // FS-8
                                 "XDG_DATA_HOME outside the project.",
                                 facts.project, sub, d)};
  }
  if (auto r = protected_refusal(facts)) return r;
  return wsl_refusal(facts, config_name(policy, facts));
}

// FS-2: the writable entries that exist, real; a missing one is a warning.
std::optional<Refusal> writable_roots(const Policy& policy, const Facts& facts, Plan& p,
                                      std::vector<std::string>& writable) {
  for (const auto& w : facts.writable) {
    if (!w.exists() || w.real.empty()) {
      p.warnings.push_back(
          fmt::format("writable path {} does not exist; skipped.", tilde_path(w.path, facts.home)));
      continue;
    }
    if (w.real == "/" || path_within(facts.home, w.real))
      return Refusal{
          ErrorKind::kConfig,
          fmt::format("the writable path {} resolves to {}, which contains the whole "
                      "home folder. Fix: name a narrower folder in [sandbox] writable "
                      "in {}.",
                      tilde_path(w.path, facts.home), w.real, config_name(policy, facts))};
    writable.push_back(w.real);
  }
  return std::nullopt;
}

// BUD-2: the mounts, coarsened (file-by-file folders read-only whole, the safe choice) when
// they do not fit the budget, then refused when they still do not.
void plan_mounts_within_budget(const Policy& policy, const Facts& facts, const Request& req,
                               const std::vector<std::string>& writable, const PlanOptions& opt,
                               Plan& p) {
  Plan base = p;
  build_sandbox_mounts(policy, facts, req, writable, p, opt.coarse, opt.backend);
  if (p.refused()) return;
  p.coarsened = opt.coarse;
  if (p.mount_count() > opt.mount_budget && !opt.coarse) {
    p = std::move(base);
    build_sandbox_mounts(policy, facts, req, writable, p, /*coarse=*/true, opt.backend);
    if (p.refused()) return;
    p.coarsened = true;
    p.notices.push_back(fmt::format(
        "the plan needed more than {} mounts, so protected folders judged file by file are "
        "read-only whole for this session; edit their tracked files outside the "  // BUD-2
        "sandbox.",
        opt.mount_budget));
  }
  if (p.mount_count() <= opt.mount_budget) return;
  BudgetCounts c = mount_counts(p);
  BudgetList most = c.largest();
  p.refusal = Refusal{ErrorKind::kRefused,
                      fmt::format("the sandbox for this command needs {} mounts, more than the "
                                  "mount budget ({}): most are {} ({}). Fix on the host: {}, "
                                  "then run the command again.",
                                  c.total(), opt.mount_budget, budget_list_name(most), c.at(most),
                                  budget_list_fix(most, config_name(policy, facts)))};
}

// The process part, as given (computed once per command) or computed here.
void put_process_part(const Policy& policy, const Facts& facts, const Request& req,
                      const PlanOptions& opt, Plan& p) {
  ProcessPart part;
  if (opt.process) {
    part = *opt.process;
  } else {
    PlanOptions popt = opt;
    if (popt.cache_folder.empty()) popt.cache_folder = facts.folders.cache;
    part = sandbox_process_part(policy, facts.env, req, facts.project, popt);
  }
  p.argv = std::move(part.argv);
  p.env = std::move(part.env);
  p.stripped = std::move(part.stripped);
  p.cwd = std::move(part.cwd);
  p.seccomp = std::move(part.seccomp);
  p.proxy_port = part.proxy_port;
  p.session_loopback = part.session_loopback;
  // MAC-1, LL-1: without a mount namespace nothing can be put at /tmp; TMPDIR names the
  // private folder where it is.
  if (opt.backend != Backend::kBwrap) p.env.set("TMPDIR", facts.session_tmp);
  if (opt.backend == Backend::kLandlock)  // NET-12: the ssh folder where the temp folder is
    set_ssh_variables(policy, facts.env, req, false, ssh_inside_dir(false, facts.session_tmp),
                      p.env);
  p.tmp_at_slash_tmp = opt.backend == Backend::kBwrap;
  p.locks_git_files = opt.backend != Backend::kLandlock;
  p.tcp_refused_as_denied = opt.backend == Backend::kLandlock;
}

// AUD-3: each credential's variable holds its placeholder (ENV-1 stripped it: it is no longer
// listed as stripped), and the tools trust cordon's CA through the bundle.
void put_credential_variables(const CredentialSandbox& c, ProcessPart& part) {
  for (const auto& item : c.items) {
    if (item.env.empty()) continue;
    part.env.set(item.env, item.placeholder);
    part.stripped.erase(std::remove(part.stripped.begin(), part.stripped.end(), item.env),
                        part.stripped.end());
  }
  if (c.ca_bundle.empty()) return;
  for (const auto& v : ca_bundle_variables()) part.env.set(v, c.ca_bundle);
}

// AUD-3: after every other mount (the later wins): the placeholder files over the credentials'
// files (hidden already), and the CA bundle where it lies in cordon's hidden data folder. Only
// the bundle: the CA's key beside it stays hidden.
void put_credential_mounts(const CredentialSandbox& c, Plan& p) {
  for (const auto& item : c.items)
    if (!item.file.empty() && !item.placeholder_file.empty())
      p.mounts.push_back({MountKind::kRoBind, item.placeholder_file, item.file,
                          "[credentials." + item.name + "]: the placeholder"});
  if (!c.ca_bundle.empty() && p.proxy_port)
    p.mounts.push_back({MountKind::kRoBind, c.ca_bundle, c.ca_bundle,
                        "[credentials]: cordon's CA bundle"});
}

// MODE-1: a sandboxed command.
Plan plan_sandboxed(const Policy& policy, const Facts& facts, const Request& req,
                    const PlanOptions& opt, Plan p) {
  p.runner = Runner::kSandbox;
  put_process_part(policy, facts, req, opt, p);  // ENV-4's notice names the stripped ones
  if (auto r = sandbox_refusal(policy, facts, opt)) return refuse(std::move(p), *r);
  std::vector<std::string> writable;
  if (auto r = writable_roots(policy, facts, p, writable)) return refuse(std::move(p), *r);
  plan_mounts_within_budget(policy, facts, req, writable, opt, p);
  if (p.refused()) return p;
  if (opt.credentials && opt.backend == Backend::kBwrap) put_credential_mounts(*opt.credentials, p);
  // Later mount wins (mount_order.h); Seatbelt's profile reads every entry as a rule.
  if (opt.backend == Backend::kBwrap)
    if (auto r = dedupe_mounts(p.mounts)) return refuse(std::move(p), *r);
  p.share_network = req.network;
  if (auto r = check_arguments(p, facts, opt)) p.refusal = r;
  return p;
}

}  // namespace

bool uses_allowlist_proxy(const Policy& policy, const Request& req) {
  const bool proxied = !policy.network.allow.empty() || policy.network.ask_unknown;
  return proxied && !req.network && !req.outside_sandbox;
}

std::vector<std::string> command_argv(const Request& req, const std::string& shell) {
  if (req.script) return {shell, "-c", *req.script};
  return req.argv;
}

Plan make_plan(const Policy& policy, const Facts& facts, const Request& req,
               const PlanOptions& opt) {
  Plan p = plan_start(policy, facts, req, opt);
  if (auto r = request_refusal(policy, facts, req, p)) return refuse(std::move(p), *r);
  if (policy.mode != SandboxMode::kOn || req.outside_sandbox)
    p = plan_unconfined(policy, facts, req, opt, std::move(p));
  else
    p = plan_sandboxed(policy, facts, req, opt, std::move(p));
  // The validated plan: nothing a backend renders can hold a NUL or a relative path.
  if (!p.refused())
    if (auto r = check_plan(p)) p.refusal = std::move(r);
  return p;
}

ProcessPart sandbox_process_part(const Policy& policy, const EnvMap& env, const Request& req,
                                 const std::string& project, const PlanOptions& opt) {
  ProcessPart part;
  part.argv = command_argv(req, opt.shell);
  EnvFilterResult f = filter_env(env, policy, false);  // ENV-1, once per command
  part.env = std::move(f.kept);
  part.stripped = std::move(f.stripped);
  // The caller's folder when it is inside the project, else the project root.
  std::string c = req.cwd.empty() ? "" : normalize_path(req.cwd);
  part.cwd = !c.empty() && path_within(c, project) ? c : project;
  part.env.set("CORDON_SANDBOX", "1");  // ENV-5
  // GPU-1: tools may tell that the GPU's device nodes were given ([sandbox] gpu = true).
  if (policy.gpu && opt.backend == Backend::kBwrap) part.env.set("CORDON_GPU", "1");
  part.env.set("TMPDIR", "/tmp");
  part.env.set("PWD", part.cwd);
  // PKG-3: the package managers' variables point into the project's sandbox cache.
  if (!opt.cache_folder.empty())
    set_cache_variables(policy.caches, project_cache_tools(opt.cache_folder, project), part.env);
  // NET-6, NET-7: listed hosts through the proxy, and NET-10's questions about the others;
  // `network: true` means the whole network without it. Linux only for now: Seatbelt has no
  // network namespace to put the port in. LL-1: under Landlock, the proxy the session runs on
  // the machine's loopback, on the port it chose, with a password.
  if (uses_allowlist_proxy(policy, req)) {
    if (opt.backend == Backend::kBwrap) {
      const int port = opt.proxy_port > 0 ? opt.proxy_port : kProxyPort;
      part.proxy_port = port;
      set_proxy_variables(part.env, port);
      if (opt.credentials) put_credential_variables(*opt.credentials, part);  // AUD-3
    } else if (opt.backend == Backend::kLandlock && opt.proxy_port > 0) {
      part.proxy_port = opt.proxy_port;
      set_proxy_variables(part.env, opt.proxy_port, opt.proxy_password);
    }
  }
  // JOB-2: the session's loopback, unless the command has the machine's network.
  part.session_loopback = opt.session_loopback && !req.network && !req.outside_sandbox &&
                          opt.backend == Backend::kBwrap;
  // NET-12: git over ssh through the proxy (bwrap: the folder is at /tmp/.cordon-ssh).
  if (opt.backend == Backend::kBwrap && part.proxy_port)
    set_ssh_variables(policy, env, req, true, ssh_inside_dir(true, ""), part.env);
  // NET-1, PROC-2; NET-12: the agent opt-in lets the command's ssh reach the agent's socket.
  part.seccomp = default_seccomp_rules(ssh_agent_given(policy, env, req) && part.proxy_port);
  return part;
}

}  // namespace cordon
