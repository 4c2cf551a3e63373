#include "plan/ssh_rules.h"

#include <fmt/format.h>

#include "config/net_entry.h"
#include "core/paths.h"
#include "core/strings.h"
#include "plan/planner.h"

namespace cordon {

namespace {

// ssh's config words take a path with spaces in double quotes; cordon's paths hold no quote
// (the session folder is cordon's own, the keys are checked by the host side).
std::string config_path(const std::string& p) { return "\"" + p + "\""; }

bool mentions(const std::string& out, const char* what) {
  return out.find(what) != std::string::npos;
}

}  // namespace

std::vector<std::string> ssh_route_entries(const std::vector<std::string>& allow) {
  std::vector<std::string> out;
  for (const auto& a : allow) {
    auto e = parse_net_entry(a);
    if (e.ok() && (e->port == 22 || e->port == -1)) out.push_back(a);  // NET-12
  }
  return out;
}

bool ssh_route_on(const Policy& policy, const Request& req) {
  return uses_allowlist_proxy(policy, req) && !ssh_route_entries(policy.network.allow).empty();
}

bool ssh_agent_given(const Policy& policy, const EnvMap& env, const Request& req) {
  auto sock = env.get("SSH_AUTH_SOCK");
  return policy.ssh.agent && sock && !sock->empty() && ssh_route_on(policy, req);
}

std::string ssh_config_text(const SshConfigInput& in) {
  std::string t =
      "# Written by cordon for this session: git over ssh through the allowlist proxy.\n"
      "# Your own ~/.ssh stays hidden; [ssh] in cordon's config names keys or the agent.\n";
  for (const auto& [host, key] : in.keys)  // first match wins: the named keys come first
    t += fmt::format("Host {}\n  IdentityFile {}\n  IdentitiesOnly yes\n", host, config_path(key));
  t += "Host *\n";
  t += fmt::format("  ProxyCommand {} {} %h %p\n", shell_quote(in.exe), kSshConnectWord);
  t += fmt::format("  UserKnownHostsFile {}\n", config_path(path_join(in.dir, "known_hosts")));
  t += "  GlobalKnownHostsFile /etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2\n";
  t += "  StrictHostKeyChecking yes\n  UpdateHostKeys no\n  BatchMode yes\n";
  t += "  PasswordAuthentication no\n  KbdInteractiveAuthentication no\n";
  t += "  ControlMaster no\n  ControlPath none\n";
  t += fmt::format("  IdentityAgent {}\n", in.agent.empty() ? "none" : config_path(in.agent));
  if (in.agent.empty() && in.keys.empty()) t += "  IdentitiesOnly yes\n";
  return t;
}

std::string git_ssh_command(const std::string& dir) {
  return "ssh -F " + shell_quote(path_join(dir, "config"));
}

std::string ssh_inside_dir(bool bwrap, const std::string& session_tmp) {
  return path_join(bwrap ? std::string("/tmp") : session_tmp, kSshDirName);
}

std::string ssh_agent_inside(bool bwrap, const std::string& inside_dir, const EnvMap& user_env) {
  if (bwrap) return path_join(inside_dir, "agent");
  auto sock = user_env.get("SSH_AUTH_SOCK");
  return sock ? *sock : "";
}

void set_ssh_variables(const Policy& policy, const EnvMap& user_env, const Request& req,
                       bool bwrap, const std::string& inside_dir, EnvMap& env) {
  if (!ssh_route_on(policy, req)) return;
  env.set("GIT_SSH_COMMAND", git_ssh_command(inside_dir));  // NET-12
  if (ssh_agent_given(policy, user_env, req))
    env.set("SSH_AUTH_SOCK", ssh_agent_inside(bwrap, inside_dir, user_env));
}

void plan_ssh(const Policy& policy, const Facts& facts, const Request& req, Backend backend,
              Plan& p) {
  // MAC-1: Seatbelt commands have no proxy yet, so no route.
  if (!ssh_route_on(policy, req) || backend == Backend::kSeatbelt) return;
  const bool bwrap = backend == Backend::kBwrap;
  if (!facts.ssh.on) {
    SshRoutePlan r;
    r.entries = ssh_route_entries(policy.network.allow);
    r.agent_wanted = policy.ssh.agent;
    r.problems = facts.ssh.problems;
    for (const auto& pr : r.problems) p.notices.push_back(pr);
    r.command = git_ssh_command(ssh_inside_dir(bwrap, facts.session_tmp));
    p.ssh = std::move(r);
    return;
  }
  const SshFacts& s = facts.ssh;
  SshRoutePlan r;
  r.entries = ssh_route_entries(policy.network.allow);
  r.agent_wanted = policy.ssh.agent;
  r.problems = s.problems;
  for (const auto& pr : s.problems) p.notices.push_back(pr);
  if (bwrap) {  // the folder read-only, then what is bound on its placeholders
    p.mounts.push_back({MountKind::kRoBind, s.dir, s.inside_dir, "ssh: the session's config"});
    p.mounts.push_back({MountKind::kRoBind, s.exe, s.exe_inside, "ssh: cordon's connect helper"});
  }
  for (const auto& k : s.keys) {
    if (k.real.empty()) continue;
    if (bwrap)
      p.mounts.push_back({MountKind::kRoBind, k.real, k.inside, "ssh: the key for " + k.host});
    r.keys.push_back(k.host + ": " + k.shown);
  }
  if (!s.agent.empty() && ssh_agent_given(policy, facts.env, req)) {
    if (bwrap) p.mounts.push_back({MountKind::kRoBind, s.agent, s.agent_inside, "ssh: the agent"});
    r.agent = true;
  }
  r.command = git_ssh_command(s.inside_dir);
  p.ssh = std::move(r);
}

std::optional<std::string> ssh_note(const Plan& plan, int exit_code, const std::string& out) {
  if (!plan.ssh || exit_code == 0) return std::nullopt;
  if (mentions(out, "Host key verification failed") ||
      mentions(out, "No ED25519 host key is known") || mentions(out, "host key is known for"))
    return std::string(
        "ssh refused the server: its host key is not in your known_hosts, and cordon checks "
        "host keys strictly. Fix: connect once outside cordon (for example `ssh -T "
        "git@HOST`) and accept the key after checking its fingerprint, then run the command "
        "again; cordon copies ~/.ssh/known_hosts when the session starts a command.");
  if (mentions(out, "Permission denied (publickey")) {
    if (plan.ssh->keys.empty() && !plan.ssh->agent)
      return fmt::format(
          "ssh had no key: your ~/.ssh stays hidden from commands. To let git over ssh log "
          "in, name a key for the host in {} (`[ssh] keys = {{ \"HOST\" = "
          "\"~/.ssh/id_ed25519\" }}`: commands can then read that key), or give your ssh "
          "agent (`[ssh] agent = true`: commands can then ask it to sign with any key it "
          "holds while they run).",
          plan.config_file);
    return fmt::format(
        "ssh's key was refused by the server: the key named in [ssh] keys ({}) or your "
        "agent's keys are not accepted there. Check which key the server expects.",
        plan.config_file);
  }
  return std::nullopt;
}

}  // namespace cordon
