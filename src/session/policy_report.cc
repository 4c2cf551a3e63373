#include "session/policy_report.h"

#include <fmt/format.h>

#include "core/strings.h"
#include "launch/linux/cgroup.h"
#include "plan/cache_rules.h"
#include "plan/net_rules.h"
#include "plan/planner.h"
#include "plan/ssh_rules.h"
#include "render/backend_limits.h"
#include "session/session.h"

namespace cordon {

namespace {

nlohmann::json limits_json(const Limits& l) {
  nlohmann::json j = nlohmann::json::object();
  auto how = limit_mechanisms(l);
  auto put = [&](const char* k, const std::optional<unsigned long long>& v) {
    if (v) j[k] = {{"value", *v}, {"mechanism", how[k]}};
  };
  put("memory", l.memory);
  put("cpu_seconds", l.cpu_seconds);
  put("pids", l.pids ? l.pids : std::optional<unsigned long long>(l.default_pids));  // PROC-6
  put("file_size", l.file_size);
  put("open_files", l.open_files);
  return j;
}

std::vector<std::string> printable_all(std::vector<std::string> v) {
  for (auto& s : v) s = printable(s);
  return v;
}

}  // namespace

nlohmann::json allowlist_json(const Policy& p, const Plan& plan, bool landlock) {
  nlohmann::json j;
  j["allow"] = p.network.allow;
  j["deny"] = p.network.deny;
  j["unknown"] = p.network.ask_unknown ? "ask" : "refuse";
  j["refused_ranges"] = refused_ranges();
  if (landlock && p.mode == SandboxMode::kOn && uses_allowlist_proxy(p, Request{}))
    j["proxy"] = "127.0.0.1:(a free port and a password per command)";  // LL-1
  else if (plan.proxy_port)
    j["proxy"] = fmt::format("127.0.0.1:{}", *plan.proxy_port);
  else
    j["proxy"] = nullptr;
  return j;
}

// NET-12: git over ssh through the proxy.
nlohmann::json ssh_json(const Policy& p, const Plan& plan) {
  nlohmann::json j;
  j["hosts"] = ssh_route_entries(p.network.allow);
  j["git_ssh_command"] = plan.ssh ? nlohmann::json(plan.ssh->command) : nlohmann::json();
  j["keys"] = nlohmann::json::object();
  for (const auto& [host, file] : p.ssh.keys) j["keys"][host] = file;
  j["agent"] = p.ssh.agent;
  j["problems"] = plan.ssh ? plan.ssh->problems : std::vector<std::string>{};
  return j;
}

nlohmann::json loopback_json(const Session& session) {
  nlohmann::json j;
  j["shared_by"] = session.loopback_kind();  // "session" or "command" (JOB-2)
  const std::string why = session.loopback_fallback();
  j["why"] = why.empty() ? nlohmann::json() : nlohmann::json(why);
  return j;
}

Plan printable_plan(Plan plan) {
  for (auto& h : plan.hidden) {
    h.path = printable(h.path);
    h.entry = printable(h.entry);
    h.why = printable(h.why);
    h.kept_because = printable(h.kept_because);
  }
  for (auto& d : plan.protect) {
    d.path = printable(d.path);
    d.why = printable(d.why);
  }
  plan.git_config_removed = printable_all(std::move(plan.git_config_removed));
  for (auto& c : plan.caches) {
    c.how = printable(c.how);
    c.where = printable(c.where);
    c.state = printable(c.state);
  }
  plan.writable_roots = printable_all(std::move(plan.writable_roots));
  plan.gpu = printable_all(std::move(plan.gpu));
  plan.notices = printable_all(std::move(plan.notices));
  plan.warnings = printable_all(std::move(plan.warnings));
  plan.stripped = printable_all(std::move(plan.stripped));
  if (plan.refusal) plan.refusal->message = printable(plan.refusal->message);
  return plan;
}

nlohmann::json backend_json(const Session& session, const SeatbeltPlan* seatbelt) {
  const BackendChoice& b = session.backend();
  nlohmann::json j;
  j["name"] = backend_name(b.backend);
  j["configured"] = b.configured;         // [sandbox] backend
  if (!b.fallback_cause.empty()) j["fallback_from"] = {{"backend", "bubblewrap"}, {"cause", b.fallback_cause}};
  if (b.backend == Backend::kLandlock) {  // LL-1
    BackendLimits l = backend_limits(b.backend);
    j["keeps"] = l.keeps;
    j["gives_up"] = l.gives_up;
  }
  j["forced"] = b.forced;  // CORDON_BACKEND
  if (b.backend == Backend::kSeatbelt) {
    j["sandbox_exec"] = b.sandbox_exec;
    j["stand_in"] = b.stand_in;  // CORDON_SANDBOX_EXEC, for tests
  }
  if (b.stand_in_ignored) j["stand_in_ignored"] = true;
  if (seatbelt) {
    j["profile_bytes"] = seatbelt->profile.size();
    j["path_filters"] = seatbelt->filters.total();
    j["max_path_filters"] = SeatbeltOptions{}.max_path_filters;  // MAC-2
  }
  return j;
}

nlohmann::json policy_json(const Policy& p, const Session& session, const Plan& raw,
                           const SeatbeltPlan* seatbelt) {
  // Names in the plan come from the disk and the environment: printable before shown.
  const Plan plan = printable_plan(raw);
  nlohmann::json j;
  j["mode"] = to_string(p.mode);
  const bool sb = session.backend().backend == Backend::kSeatbelt;
  const bool ll = session.backend().backend == Backend::kLandlock;
  j["backend"] = p.mode != SandboxMode::kOn ? "none" : backend_name(session.backend().backend);
  j["backend_detail"] = backend_json(session, seatbelt);
  j["config_file"] = p.source_file;
  j["project"] = printable(session.project());
  j["escape"] = to_string(p.escape);
  j["approvals"] = to_string(p.approvals.mode);
  const bool ll_proxy = ll && uses_allowlist_proxy(p, Request{});  // LL-1
  j["network"] = p.mode != SandboxMode::kOn ? "host"
                 : ll_proxy                 ? "the allowlist proxy"
                 : sb || ll                 ? "none"
                 : plan.proxy_port          ? "loopback and the allowlist proxy"
                                            : "loopback only";  // MAC-1, NET-7
  j["network_allowlist"] = allowlist_json(p, plan, ll);    // NET-11
  j["ssh"] = ssh_json(p, plan);                            // NET-12
  j["loopback"] =
      p.mode == SandboxMode::kOn && !sb && !ll ? loopback_json(session) : nlohmann::json();
  j["writable"] = plan.writable_roots;
  j["hidden"] = nlohmann::json::array();
  for (const auto& h : plan.hidden) {
    nlohmann::json hj{{"path", h.path}, {"entry", h.entry}, {"why", h.why}, {"hidden", h.hidden}};
    if (!h.hidden) hj["kept_because"] = h.kept_because;
    j["hidden"].push_back(hj);
  }
  j["git_config_removed"] = plan.git_config_removed;  // FS-12
  j["protected"] = nlohmann::json::array();
  for (const auto& d : plan.protect)
    j["protected"].push_back({{"path", d.path}, {"state", d.state}, {"why", d.why}});
  j["caches"] = {{"mode", to_string(p.caches)},
                 {"meaning", cache_mode_summary(p.caches)},
                 {"tools", nlohmann::json::array()}};
  for (const auto& c : plan.caches)
    j["caches"]["tools"].push_back(
        {{"tool", c.tool}, {"how", c.how}, {"where", c.where}, {"state", c.state}});
  j["gpu"] = {{"enabled", p.gpu}, {"bound", plan.gpu}};  // GPU-1
  j["env_stripped"] = plan.stripped;
  j["limits"] = limits_json(p.limits);
  j["mount_count"] = plan.mount_count();
  j["mount_budget"] = 256;
  j["coarsened"] = plan.coarsened;
  if (plan.refusal)
    j["refusal"] = {{"reason", std::string(to_string(plan.refusal->reason))},
                    {"message", plan.refusal->message}};
  j["notices"] = plan.notices;
  j["warnings"] = plan.warnings;
  return j;
}

}  // namespace cordon
