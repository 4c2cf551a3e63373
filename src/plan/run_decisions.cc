#include "plan/run_decisions.h"

#include <algorithm>
#include <set>

#include "core/strings.h"

namespace cordon {

std::optional<Refusal> first_refusal(const RefusalCandidates& c) {
  if (c.command_policy) return c.command_policy;
  if (c.plan) return c.plan;
  if (!c.sandboxed) return std::nullopt;
  if (c.hold) return c.hold;
  return c.probe;
}

bool strips_variables(const Plan& plan) {
  return !plan.stripped.empty() && plan.mode != SandboxMode::kExternal;
}

std::vector<std::string> start_notices(const Plan& plan, bool say_stripped,
                                       const std::vector<std::string>& extra_warnings,
                                       const std::vector<std::string>& unsaid) {
  std::vector<std::string> out = plan.notices;
  for (const auto& w : plan.warnings) out.push_back("warning: " + w);
  for (const auto& w : extra_warnings) out.push_back("warning: " + w);
  std::vector<std::string> names;
  for (const auto& n : plan.stripped)
    if (std::find(unsaid.begin(), unsaid.end(), n) == unsaid.end()) names.push_back(n);
  if (say_stripped && strips_variables(plan) && !names.empty())
    out.push_back("these variables are not available to commands: " + join(names, ", ") +  // ENV-4
                  ".");
  return out;
}

std::vector<std::string> agents_own_keys(const EnvMap& env) {
  std::vector<std::string> out;
  if (env.value("CLAUDECODE") == "1")
    out.insert(out.end(), {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"});
  if (env.value("GEMINI_CLI") == "1")
    out.insert(out.end(), {"GEMINI_API_KEY", "GOOGLE_API_KEY"});
  for (const auto& [name, value] : env.vars)
    if (name.rfind("CODEX_", 0) == 0) {
      out.insert(out.end(), {"OPENAI_API_KEY", "CODEX_API_KEY"});
      break;
    }
  return out;
}

std::string outer_sandbox_note(const EnvMap& env, const std::string& bwrap_words,
                               bool read_only_cache) {
  std::string why;
  const std::string codex = env.value("CODEX_SANDBOX");
  if (!codex.empty())
    why = "Codex's own sandbox (CODEX_SANDBOX=" + codex + ")";
  else if (env.value("CODEX_SANDBOX_NETWORK_DISABLED") == "1")
    why = "Codex's own sandbox (CODEX_SANDBOX_NETWORK_DISABLED=1)";
  else if (bwrap_words.find("Failed to create NETLINK_ROUTE socket") != std::string::npos)
    why = "a sandbox that refuses network sockets (bwrap could not bring up loopback)";
  else if (read_only_cache)
    why = "a sandbox that made cordon's cache folder read-only (you own it)";
  if (why.empty()) return "";
  return "cordon runs inside another sandbox, " + why +
         ", which keeps cordon's own sandbox from starting. Fix: let the agent run cordon "
         "outside its sandbox (for Codex, run the hook's commands unsandboxed, or set "
         "sandbox_mode = \"danger-full-access\" since cordon is the sandbox), or use cordon's "
         "MCP server instead of the agent's shell (`cordon setup <agent>`)";
}

void keep_tracked_since_start(Facts& facts, bool persistent, bool known,
                              const std::vector<std::string>& tracked_at_start) {
  if (!persistent) return;
  const std::set<std::string> start(tracked_at_start.begin(), tracked_at_start.end());
  auto keep = [&](std::vector<std::string>& v) {
    std::erase_if(v, [&](const std::string& t) { return !known || !start.count(t); });
  };
  keep(facts.git.tracked);
  for (auto& p : facts.protected_paths) keep(p.tracked);
}

ExitStatus exit_status(const ExitFacts& f) {
  if (f.timed_out) return {124, 0};
  if (f.canceled) return {130, 2};
  // bwrap itself killed before it told the command's status (a job ended with KILL): the
  // signal that ended it, as for any other process.
  if (f.under_bwrap && !f.bwrap_exit_code && f.signal) return {128 + f.signal, f.signal};
  if (f.under_bwrap) {
    const int code = f.bwrap_exit_code.value_or(f.exit_code);
    return {code, code > 128 && code < 128 + 65 ? code - 128 : 0};
  }
  if (f.signal) return {128 + f.signal, f.signal};
  return {f.exit_code, 0};
}

std::optional<std::string> bwrap_exec_reason(const std::string& text, const std::string& argv0) {
  const std::string prefix = "bwrap: execvp " + argv0 + ": ";
  const size_t p = text.find(prefix);
  if (p == std::string::npos) return std::nullopt;
  std::string reason = trim(text.substr(p + prefix.size()));
  return reason.substr(0, reason.find('\n'));
}

ExecFailure exec_failure(const std::string& argv0, const std::string& reason, bool found) {
  if (reason == "No such file or directory" || (reason == "Permission denied" && !found))
    return {127, argv0 + ": command not found"};
  return {126, argv0 + ": cannot run it (" + reason + ")"};
}

}  // namespace cordon
