// The planner: Plan make_plan(Policy, Facts, Request). Pure: no syscalls, no clock, no env reads.
#pragma once

#include "config/policy.h"
#include "plan/credential_rules.h"
#include "plan/facts.h"
#include "plan/plan.h"
#include "plan/request.h"

namespace cordon {

// Which sandbox the plan is for: bubblewrap's mount list on Linux, or a Seatbelt profile on
// macOS (MAC-1), which make_seatbelt_plan() writes from the same plan.
// LL-1: Landlock + seccomp, for machines where bubblewrap cannot make namespaces.
enum class Backend { kBwrap, kSeatbelt, kLandlock };

struct ProcessPart;

struct PlanOptions {
  size_t mount_budget = 256;       // BUD-2
  size_t max_project_path = 1000;  // FS-11
  std::string shell = "/bin/sh";   // runs `-c SCRIPT`
  Backend backend = Backend::kBwrap;
  // Protected folders judged file by file are read-only whole from the start (what BUD-2 does
  // past the mount budget; MAC-2 asks for it past the path-filter cap).
  bool coarse = false;
  // cordon's cache folder (CFG-1), where the project's package caches live (PKG-2); make_plan
  // takes the facts' when empty, sandbox_process_part sets no cache variables without it.
  std::string cache_folder;
  // The sandboxed command's process part, when the caller computed it already (to start bwrap
  // early); make_plan computes it otherwise. Not owned.
  const ProcessPart* process = nullptr;
  // JOB-2: the session keeps one network namespace for its commands (the caller made it);
  // a command with a way out (Request::network) still gets the machine's network.
  bool session_loopback = false;
  // NET-7, NET-1: the proxy's port inside the sandbox. Commands that share a session's
  // loopback each need their own; 0 is kProxyPort.
  // LL-1: under Landlock, the port the session's proxy listens on, on the machine's loopback
  // (a free one per command); 0 there means the command has no proxy, so no network.
  int proxy_port = 0;
  // LL-1: the password the proxy on the machine's loopback asks for (any process of the
  // machine can reach that port): the proxy variables carry it. Empty under bubblewrap.
  std::string proxy_password;
  // AUD-3: the credentials' placeholders and the CA bundle, when [credentials] is set and the
  // command goes through the allowlist proxy under bubblewrap; not owned. Nothing else sees them.
  const CredentialSandbox* credentials = nullptr;
};

// NET-6, NET-7: whether a sandboxed command goes through the allowlist proxy: [network] allow
// or unknown = "ask" is set, and the command has no way out (`network`, `outside_sandbox`).
bool uses_allowlist_proxy(const Policy& policy, const Request& request);

Plan make_plan(const Policy& policy, const Facts& facts, const Request& request,
               const PlanOptions& options = {});

// What a sandboxed command's process is, known before any fact is read: its argv, its whole
// environment (ENV-1, ENV-5), its working folder and its seccomp program (NET-1, PROC-2).
// Computed once per command: the session starts bwrap with it early, and hands the same to
// make_plan (PlanOptions::process), which puts it in the plan unchanged.
struct ProcessPart {
  std::vector<std::string> argv;
  EnvMap env;
  std::vector<std::string> stripped;
  std::string cwd;
  std::vector<SeccompRule> seccomp;
  // NET-7: the allowlist proxy's port inside the sandbox, when the command uses it.
  std::optional<int> proxy_port;
  // JOB-2: the command joins its session's network namespace (PlanOptions::session_loopback,
  // and the command has no way out to the machine's network).
  bool session_loopback = false;
};
ProcessPart sandbox_process_part(const Policy& policy, const EnvMap& env, const Request& req,
                                 const std::string& project, const PlanOptions& options = {});

// The command's argv: the request's, or `SHELL -c SCRIPT`.
std::vector<std::string> command_argv(const Request& req, const std::string& shell);

// The sandbox-side (bwrap) arguments of a plan, without the command: exposed for tests.
size_t argument_bytes(const std::vector<std::string>& argv, const EnvMap& env);

}  // namespace cordon
