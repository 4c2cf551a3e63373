#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "host/facts_reader.h"
#include "launch/backend_probe.h"
#include "launch/sandbox_exec_probe.h"
#include "render/backend_choice.h"
#include "render/backend_limits.h"

namespace cordon {

namespace {

// MAC-5: the probe of the backend in use; LL-1: on Linux the backend settled by it.
SettledBackend probe_backend(const CliContext& ctx, const BackendChoice& backend) {
  if (backend.backend == Backend::kSeatbelt)
    // An explicit probe always checks afresh (and refreshes this boot's cache).
    return {backend,
            run_seatbelt_probe(
                SeatbeltProbeInput{backend.sandbox_exec, ctx.env, ctx.folders.cache, false}),
            std::nullopt};
  ProbeInput in;
  in.env = ctx.env;
  in.folders = ctx.folders;
  in.cordon_exe = ctx.exe;
  in.bwrap = find_bwrap(ctx.env);
  in.use_cache = false;  // an explicit probe always checks afresh (and refreshes the cache)
  return settle_backend(backend, in);
}

nlohmann::json checks_json(const ProbeReport& r) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : r.checks) {
    nlohmann::json cj{{"name", c.name}, {"ok", c.ok}, {"ms", c.ms}};
    if (!c.detail.empty()) cj["detail"] = c.detail;
    checks.push_back(cj);
  }
  return checks;
}

void print_json(const SettledBackend& s) {
  const ProbeReport& r = s.probe;
  nlohmann::json j;
  j["ok"] = r.ok;
  j["backend"] = backend_name(s.choice.backend);
  if (s.choice.backend == Backend::kSeatbelt) j["sandbox_exec"] = s.choice.sandbox_exec;
  j["total_ms"] = r.total_ms;
  j["checks"] = checks_json(r);
  j["bwrap"] = r.bwrap;
  j["bwrap_version"] = r.bwrap_version;
  if (s.bwrap_probe)  // LL-1: why bubblewrap was not used
    j["fallback_from"] = {{"backend", "bubblewrap"},
                          {"cause", s.bwrap_probe->cause},
                          {"checks", checks_json(*s.bwrap_probe)},
                          {"bwrap", s.bwrap_probe->bwrap},
                          {"bwrap_version", s.bwrap_probe->bwrap_version}};
  if (s.choice.backend == Backend::kLandlock) {  // LL-1: what it keeps and gives up
    BackendLimits l = backend_limits(Backend::kLandlock);
    j["keeps"] = l.keeps;
    j["gives_up"] = l.gives_up;
  }
  if (!r.ok) {
    j["failed_check"] = r.failed_check;
    // PROBE-4: the set-up step that failed and the row of bwrap's message, when known.
    if (!r.step.empty()) j["step"] = r.step;
    if (!r.diagnosis.empty()) j["diagnosis"] = r.diagnosis;
    j["cause"] = r.cause;
    j["fix"] = r.fix;
  }
  std::printf("%s\n", j.dump(2).c_str());
}

void print_checks(const ProbeReport& r) {
  for (const auto& c : r.checks)
    std::printf("%-20s %-6s %7.2f ms%s%s\n", c.name.c_str(), c.ok ? "ok" : "failed", c.ms,
                c.detail.empty() ? "" : "  ", c.detail.c_str());
}

void print_limits(const BackendChoice& c) {
  if (c.backend != Backend::kLandlock) return;
  BackendLimits l = backend_limits(Backend::kLandlock);
  std::printf("\nThis backend keeps:\n");
  for (const auto& k : l.keeps) std::printf("  - %s\n", k.c_str());
  std::printf("and gives up, compared with bubblewrap:\n");
  for (const auto& g : l.gives_up) std::printf("  - %s\n", g.c_str());
}

void print_text(const SettledBackend& s) {
  const ProbeReport& r = s.probe;
  if (s.bwrap_probe) {  // LL-1: bubblewrap's checks first, then the fallback's
    std::printf("%-20s %s\n", "tried", "bubblewrap (Linux)");
    print_checks(*s.bwrap_probe);
  }
  std::printf("%-20s %s\n", "backend", backend_title(s.choice).c_str());
  print_checks(r);
  std::printf("%-20s %-6s %7.2f ms\n", "total", r.ok ? "ok" : "failed", r.total_ms);
  if (!r.ok) {
    // PROBE-4: one line of cause, one of fix.
    print_error("the sandbox is unavailable: " + r.cause + ".");
    print_error("fix: " + r.fix + ".");
  }
  print_limits(s.choice);
}

}  // namespace

int cmd_probe(const CliContext& ctx, bool json) {
  // LL-1: the config's backend, when the config can be read (a broken one keeps "auto" here).
  auto policy = load_policy(ctx);
  auto backend =
      choose_backend(ctx.env, kOnMacos, policy.ok() ? policy->backend : BackendSetting::kAuto);
  if (!backend.ok()) {
    print_error(backend.error().message);
    return 1;
  }
  SettledBackend s = probe_backend(ctx, *backend);
  if (json)
    print_json(s);
  else
    print_text(s);
  return s.probe.ok ? 0 : 1;
}

}  // namespace cordon
