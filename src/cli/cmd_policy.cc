#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "core/paths.h"
#include "core/strings.h"
#include "host/landlock_facts.h"
#include "launch/linux/cgroup.h"
#include "plan/cache_rules.h"
#include "plan/net_rules.h"
#include "plan/planner.h"
#include "plan/ssh_rules.h"
#include "render/backend_limits.h"
#include "render/seatbelt_plan.h"
#include "session/policy_report.h"
#include "session/session.h"

namespace cordon {

namespace {

// MAC-4: the profile macOS would use for this project and policy, on any system.
int print_seatbelt(const Policy& policy, Facts facts, const Request& req, bool json) {
  // On Linux there is no sandbox-exec to find; the profile is what a Mac would be given.
  if (facts.machine.sandbox_exec.empty()) facts.machine.sandbox_exec = "/usr/bin/sandbox-exec";
  SeatbeltPlan sp = make_seatbelt_plan(policy, facts, req);
  if (json) {
    nlohmann::json j;
    j["profile"] = sp.profile;
    j["path_filters"] = {{"total", sp.filters.total()},     {"hidden", sp.filters.hidden},
                         {"protected", sp.filters.protect}, {"credential", sp.filters.credential},
                         {"writable", sp.filters.writable}, {"base", sp.filters.base}};
    j["max_path_filters"] = SeatbeltOptions{}.max_path_filters;
    if (sp.plan.refusal)
      j["refusal"] = {{"reason", std::string(to_string(sp.plan.refusal->reason))},
                      {"message", sp.plan.refusal->message}};
    j["notices"] = sp.plan.notices;
    std::printf("%s\n", j.dump(2).c_str());
    return sp.plan.refused() ? kExitRefused : 0;
  }
  if (!sp.profile.empty())
    std::printf("%s; %zu path filters of at most %zu\n", sp.profile.c_str(), sp.filters.total(),
                SeatbeltOptions{}.max_path_filters);
  else if (!sp.plan.refused())
    std::printf(
        "; no Seatbelt profile: with [sandbox] mode = \"%s\" commands run without a "
        "sandbox.\n",
        to_string(policy.mode));
  for (const auto& n : sp.plan.notices) std::fprintf(stderr, "notice: %s\n", printable(n).c_str());
  if (sp.plan.refused()) {
    print_error(sp.plan.refusal->message);
    return kExitRefused;
  }
  return 0;
}

// NET-11: the lists, the refused ranges and the proxy's port.
void print_allowlist(const Policy& p, const Plan& plan, bool landlock) {
  if (p.network.allow.empty() && p.network.deny.empty() && !p.network.ask_unknown) {
    std::printf("\nnetwork allowlist: none ([network] allow is empty: no proxy)\n");  // NET-6
    return;
  }
  std::printf("\nnetwork allowlist ([network]):\n");
  for (const auto& a : p.network.allow) std::printf("  allow  %s\n", printable(a).c_str());
  for (const auto& d : p.network.deny) std::printf("  deny   %s\n", printable(d).c_str());
  std::printf("  other hosts: %s\n",
              p.network.ask_unknown
                  ? "asked about while the connection waits (unknown = \"ask\")"  // NET-10
                  : "refused (unknown = \"refuse\")");
  if (landlock && p.mode == SandboxMode::kOn && uses_allowlist_proxy(p, Request{}))  // LL-1
    std::printf(
        "  proxy:  on the machine's loopback, 127.0.0.1, a free port and a password per command\n"
        "          (HTTP CONNECT, http://, SOCKS5; the proxy variables carry both)\n");
  else if (plan.proxy_port)
    std::printf("  proxy:  127.0.0.1:%d inside each sandbox (HTTP CONNECT, http://, SOCKS5)\n",
                *plan.proxy_port);
  std::printf(
      "  addresses: only globally reachable unicast, by IANA's special-purpose address\n"
      "  registries; unless an allow entry names the address itself, refused:\n");
  for (const auto& r : refused_ranges()) std::printf("    %s\n", r.c_str());
}

// NET-12: git over ssh through the proxy: the entries that open port 22 and the opt-ins.
void print_ssh(const Policy& p, const Plan& plan) {
  const auto entries = ssh_route_entries(p.network.allow);
  if (entries.empty() && p.ssh.keys.empty() && !p.ssh.agent) return;
  std::printf("\ngit over ssh ([network] allow entries with :22, [ssh]):\n");
  if (entries.empty()) {
    std::printf("  off: no [network] allow entry names port 22 (write \"github.com:22\")\n");
    return;
  }
  std::string hosts;
  for (const auto& e : entries) hosts += (hosts.empty() ? "" : ", ") + printable(e);
  std::printf("  hosts:  %s (an entry without a port never opens 22)\n", hosts.c_str());
  if (plan.ssh)
    std::printf("  GIT_SSH_COMMAND=%s (through the proxy; host keys checked\n"
                "          against a read-only copy of ~/.ssh/known_hosts; ~/.ssh stays hidden)\n",
                printable(plan.ssh->command).c_str());
  if (p.ssh.keys.empty())
    std::printf("  keys:   none named ([ssh] keys)\n");
  for (const auto& [host, file] : p.ssh.keys)
    std::printf("  key:    %s for %s (commands can read this key)\n", printable(file).c_str(),
                printable(host).c_str());
  std::printf("  agent:  %s\n",
              p.ssh.agent ? "given ([ssh] agent = true): commands can ask it to sign with any key "
                            "it holds, for any allowed host,\n          while they run; they may "
                            "create Unix sockets (to reach it, and any other socket file they can "
                            "see)"
                          : "not given ([ssh] agent)");
  if (plan.ssh)
    for (const auto& pr : plan.ssh->problems) std::printf("  note:   %s\n", printable(pr).c_str());
}

// GPU-1: what [sandbox] gpu = true bound.
void print_gpu(const Policy& p, const Plan& plan) {
  if (!p.gpu) return;
  std::printf("\nGPU ([sandbox] gpu = true: device access to the GPU driver):\n");
  if (plan.gpu.empty()) std::printf("  (nothing bound: no GPU device node found)\n");
  for (const auto& g : plan.gpu) std::printf("  %s\n", g.c_str());
}

// Issue 30 (NET-1): whose loopback a command is in.
void print_loopback(const Session& s) {
  if (s.loopback_kind() == "session") {
    std::printf(
        "loopback:     one per session: the commands and background jobs of one `cordon serve`\n"
        "              or `cordon mcp` session share it (a server a job starts on 127.0.0.1 is\n"
        "              reachable by the session's next command, by nothing else); a one-shot\n"
        "              `cordon run` has its own\n");
    return;
  }
  std::printf("loopback:     one per command, sessions too (%s)\n",
              printable(s.loopback_fallback()).c_str());
}

// LL-1: what the Landlock backend keeps and gives up, and its rules.
void print_landlock(const Plan& plan) {
  BackendLimits l = backend_limits(Backend::kLandlock);
  std::printf("\nthis backend keeps:\n");
  for (const auto& k : l.keeps) std::printf("  %s\n", k.c_str());
  std::printf("\nthis backend gives up (bubblewrap has them):\n");
  for (const auto& g : l.gives_up) std::printf("  %s\n", g.c_str());
  LandlockRules rules =
      landlock_rules(read_landlock_input(hidden_paths_of(plan), plan.writable_roots));
  std::printf("\nLandlock rules (made before each command; paths made later are not covered):\n");
  for (const auto& g : rules.grants)
    std::printf("  %-11s %s\n",
                g.access == LandlockAccess::kList   ? "list only"
                : g.access == LandlockAccess::kRead ? "read"
                                                    : "read+write",
                printable(g.path).c_str());
  for (const auto& u : rules.unlisted)
    std::printf("  %-11s %s (could not be listed: nothing below it)\n", "none",
                printable(u).c_str());
}

}  // namespace

int cmd_policy(const CliContext& ctx, const PolicyArgs& args) {
  auto policy = load_policy(ctx);
  if (!policy.ok()) {
    print_error(policy.error().message);
    return kExitRefused;
  }
  SessionOptions so;
  so.policy = *policy;
  so.folders = ctx.folders;
  so.env = ctx.env;
  so.home = ctx.home;
  so.cwd = ctx.cwd;
  so.project = args.project;
  so.cordon_exe = ctx.exe;
  so.session_loopback = true;  // to tell whether a serve/mcp session's loopback can be made
  auto session = Session::open(std::move(so));
  if (!session.ok()) {
    print_error(session.error().message);
    return kExitRefused;
  }
  Request req;
  req.argv = {"true"};
  req.cwd = ctx.cwd;
  Facts facts = (*session)->facts(req);
  if (args.seatbelt) return print_seatbelt(*policy, std::move(facts), req, args.json);
  const BackendChoice& bc = (*session)->backend();
  std::optional<SeatbeltPlan> sp;  // MAC-5: the backend in use, Seatbelt's profile with it
  if (bc.backend == Backend::kSeatbelt) sp = (*session)->seatbelt_plan(req, facts);
  Plan plan = printable_plan(sp ? sp->plan : (*session)->plan(req, facts));
  const Policy& p = *policy;
  const std::string backend = p.mode == SandboxMode::kOn ? backend_title(bc) : "none";

  if (args.json) {
    nlohmann::json j = policy_json(p, **session, plan, sp ? &*sp : nullptr);
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("mode:         %s%s\n", to_string(p.mode),
              p.source_file.empty()
                  ? ""
                  : fmt::format("  (config: {})", tilde_path(p.source_file, ctx.home)).c_str());
  std::printf("backend:      %s\n", printable(backend).c_str());
  if (bc.stand_in_ignored)
    std::printf(
        "              (CORDON_SANDBOX_EXEC is set and ignored: it is honoured only with "
        "CORDON_BACKEND=seatbelt)\n");
  std::printf("project:      %s\n", printable((*session)->project()).c_str());
  std::printf("ways out:     %s\n",
              p.escape == EscapeMode::kAsk
                  ? "--network and --outside-sandbox, each approved per command"
                  : "none (escape = \"never\")");
  const bool ll = bc.backend == Backend::kLandlock;
  std::printf("network:      %s\n",
              p.mode != SandboxMode::kOn ? "the machine's own"
              : ll && uses_allowlist_proxy(p, Request{})
                  ? "only the hosts in [network] allow, through a proxy on the machine's "
                    "loopback (a free port and a password per command); nothing else, loopback "
                    "included"  // LL-1
              : sp || ll        ? "closed: none inside each command, loopback too"  // MAC-1
              : plan.proxy_port ? "only loopback and the hosts in [network] allow, "
                                  "through the proxy"                            // NET-7
                                : "closed: only loopback inside each command");  // NET-1
  if (p.mode == SandboxMode::kOn && !sp && !ll) print_loopback(**session);
  if (p.mode == SandboxMode::kOn && ll) print_landlock(plan);
  if (plan.refusal) std::printf("REFUSED:      %s\n", plan.refusal->message.c_str());
  if (p.mode == SandboxMode::kOn) {
    std::printf("\nwritable (everything else is read-only):\n");
    for (const auto& w : plan.writable_roots)
      std::printf("  %s%s\n", w.c_str(), w == (*session)->tmp() ? "  (private /tmp)" : "");
    std::printf(ll ? "\nhidden (fail to open; resolved before each command):\n"
                   : "\nhidden (read as empty; resolved before each command):\n");  // FS-5
    for (const auto& h : plan.hidden) {
      if (h.hidden)
        std::printf("  %-40s %s\n", h.path.c_str(), h.why.c_str());
      else
        std::printf("  %-40s KEPT VISIBLE: %s\n", h.path.c_str(), h.kept_because.c_str());
    }
    if (!plan.git_config_removed.empty()) {
      std::printf("\nremoved from the git config commands see:\n");  // FS-12
      for (const auto& r : plan.git_config_removed) std::printf("  %s\n", r.c_str());
    }
    if (!plan.protect.empty()) {
      std::printf("\nprotected and git auto-run files:\n");
      for (const auto& d : plan.protect)
        std::printf("  %-40s %-28s %s\n", d.path.c_str(), d.state.c_str(), d.why.c_str());
    }
    print_gpu(p, plan);
    print_allowlist(p, plan, bc.backend == Backend::kLandlock);  // NET-11
    print_ssh(p, plan);                                            // NET-12
    // PKG-4: each package cache, where it lives and its mode.
    std::printf("\npackage caches ([sandbox] caches = \"%s\"): %s.\n", to_string(p.caches),
                cache_mode_summary(p.caches).c_str());
    for (const auto& c : plan.caches)
      std::printf("  %-18s %-36s %-50s %s\n", c.tool.c_str(), c.how.c_str(), c.where.c_str(),
                  c.state.c_str());
    if (sp)  // MAC-2: the profile's path filters against the cap
      std::printf("\nprofile:      %zu bytes, %zu path filters of at most %zu%s\n",
                  sp->profile.size(), sp->filters.total(), SeatbeltOptions{}.max_path_filters,
                  plan.coarsened ? " (file-by-file folders made read-only whole)" : "");
    else
      std::printf("\nmounts:       %zu of a budget of 256%s\n", plan.mount_count(),
                  plan.coarsened ? " (file-by-file folders made read-only whole)" : "");  // BUD-2
  }
  std::printf("\nenvironment stripped: %s\n",
              plan.stripped.empty() ? "(none)" : join(plan.stripped, ", ").c_str());
  std::printf("limits:       ");
  {
    std::printf("\n");
    auto how = limit_mechanisms(p.limits);
    auto show = [&](const char* k, const std::optional<unsigned long long>& v) {
      if (v) std::printf("  %-12s %llu  (%s)\n", k, *v, how[k].c_str());
    };
    show("memory", p.limits.memory);
    show("cpu_seconds", p.limits.cpu_seconds);
    // PROC-6: the default process limit, shown whether a cgroup holds it or not.
    show("pids",
         p.limits.pids ? p.limits.pids : std::optional<unsigned long long>(p.limits.default_pids));
    show("file_size", p.limits.file_size);
    show("open_files", p.limits.open_files);
  }
  for (const auto& n : plan.notices) std::printf("notice: %s\n", n.c_str());
  for (const auto& w : plan.warnings) std::printf("warning: %s\n", w.c_str());
  return 0;
}

}  // namespace cordon
