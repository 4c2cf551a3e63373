// NET-12: git over ssh through the allowlist proxy. An allow entry that names port 22
// (`github.com:22`, or `:*`) turns the route on: commands get GIT_SSH_COMMAND, an ssh that
// reads a config cordon wrote for the session (`ssh -F <dir>/config`), whose ProxyCommand is
// cordon's own `__ssh-connect` (a CONNECT to port 22 through the proxy the command already
// uses), with the user's known_hosts copied read-only, host keys checked strictly, no prompts,
// and no key unless the user named one for a host ([ssh] keys) or gave the agent ([ssh] agent).
// Pure: what the host side writes is computed here, written by src/host/ssh_folder.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/policy.h"
#include "core/env.h"
#include "plan/facts.h"
#include "plan/plan.h"
#include "plan/planner.h"
#include "plan/request.h"

namespace cordon {

// The word cordon's binary answers to as the ProxyCommand: `cordon __ssh-connect HOST PORT`.
inline constexpr const char* kSshConnectWord = "__ssh-connect";
// The session's ssh folder, inside its private temp folder (made by the host side).
inline constexpr const char* kSshDirName = ".cordon-ssh";

// The allow entries, as written, that reach port 22: `host:22` or `host:*`. An entry without
// a port (80 and 443) never opens 22.
std::vector<std::string> ssh_route_entries(const std::vector<std::string>& allow);

// The route is on: the command uses the allowlist proxy and an entry reaches port 22.
bool ssh_route_on(const Policy& policy, const Request& req);

// The agent opt-in is in force: the route is on, [ssh] agent = true, and the user's
// environment names an agent socket (SSH_AUTH_SOCK).
bool ssh_agent_given(const Policy& policy, const EnvMap& env, const Request& req);

// What the ssh config of a session names, as the command sees the paths.
struct SshConfigInput {
  std::string dir;  // the session's ssh folder
  std::string exe;  // cordon's binary
  std::vector<std::pair<std::string, std::string>> keys;  // host -> key file
  std::string agent;  // the agent socket; "" for none
};
// The config text (ssh -F): per-host keys first (first match wins), then for every host the
// ProxyCommand, strict host keys from <dir>/known_hosts, BatchMode, no passwords.
std::string ssh_config_text(const SshConfigInput& in);

// GIT_SSH_COMMAND's value: `ssh -F '<dir>/config'`.
std::string git_ssh_command(const std::string& dir);

// Where the command finds the session's ssh folder: /tmp/.cordon-ssh under bwrap (the private
// temp folder is /tmp), else in the private temp folder where it is.
std::string ssh_inside_dir(bool bwrap, const std::string& session_tmp);
// Where the agent socket is bound (bwrap) or found.
std::string ssh_agent_inside(bool bwrap, const std::string& inside_dir, const EnvMap& user_env);

// The command's variables when the route is on: GIT_SSH_COMMAND, and SSH_AUTH_SOCK with the
// agent opt-in. Set with the process part (bwrap starts early with its environment).
void set_ssh_variables(const Policy& policy, const EnvMap& user_env, const Request& req,
                       bool bwrap, const std::string& inside_dir, EnvMap& env);

// The route as a plan carries it: mounts for the bwrap backend (the folder read-only at
// /tmp/.cordon-ssh, cordon's binary, the named keys and the agent socket bound on their
// placeholders), the environment (GIT_SSH_COMMAND, SSH_AUTH_SOCK with the agent), and what
// `cordon policy` shows.
void plan_ssh(const Policy& policy, const Facts& facts, const Request& req, Backend backend,
              Plan& p);

// NET-12: a note when a failed command's output shows ssh's own refusals through the route:
// an unknown host key (run ssh once outside to accept it) or no key (which opt-in to use).
std::optional<std::string> ssh_note(const Plan& plan, int exit_code, const std::string& output);

}  // namespace cordon
