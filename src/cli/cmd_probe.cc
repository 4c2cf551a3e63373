#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "host/facts_reader.h"
#include "launch/linux/landlock_probe.h"
#include "launch/linux/probe.h"
#include "launch/sandbox_exec_probe.h"
#include "render/backend_choice.h"

namespace cordon {

namespace {

// MAC-5: the probe of the backend in use.
ProbeReport probe_backend(const CliContext& ctx, const BackendChoice& backend) {
  if (backend.backend == Backend::kLandlock) return run_landlock_probe();  // LL-1
  if (backend.backend == Backend::kSeatbelt)
    // An explicit probe always checks afresh (and refreshes this boot's cache).
    return run_seatbelt_probe(
        SeatbeltProbeInput{backend.sandbox_exec, ctx.env, ctx.folders.cache, false});
  ProbeInput in;
  in.env = ctx.env;
  in.folders = ctx.folders;
  in.cordon_exe = ctx.exe;
  in.bwrap = find_bwrap(ctx.env);
  in.use_cache = false;  // an explicit probe always checks afresh (and refreshes the cache)
  return run_probe(in);
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
  ProbeReport r = probe_backend(ctx, *backend);
  if (json) {
    nlohmann::json j;
    j["ok"] = r.ok;
    j["backend"] = backend->backend == Backend::kSeatbelt   ? "seatbelt"
                   : backend->backend == Backend::kLandlock ? "landlock"
                                                            : "bubblewrap";
    if (backend->backend == Backend::kSeatbelt) j["sandbox_exec"] = backend->sandbox_exec;
    j["total_ms"] = r.total_ms;
    j["checks"] = nlohmann::json::array();
    for (const auto& c : r.checks) {
      nlohmann::json cj{{"name", c.name}, {"ok", c.ok}, {"ms", c.ms}};
      if (!c.detail.empty()) cj["detail"] = c.detail;
      j["checks"].push_back(cj);
    }
    j["bwrap"] = r.bwrap;
    j["bwrap_version"] = r.bwrap_version;
    if (!r.ok) {
      j["failed_check"] = r.failed_check;
      // PROBE-4: the set-up step that failed and the row of bwrap's message, when known.
      if (!r.step.empty()) j["step"] = r.step;
      if (!r.diagnosis.empty()) j["diagnosis"] = r.diagnosis;
      j["cause"] = r.cause;
      j["fix"] = r.fix;
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%-20s %s\n", "backend", backend_title(*backend).c_str());
    for (const auto& c : r.checks)
      std::printf("%-20s %-6s %7.2f ms%s%s\n", c.name.c_str(), c.ok ? "ok" : "failed", c.ms,
                  c.detail.empty() ? "" : "  ", c.detail.c_str());
    std::printf("%-20s %-6s %7.2f ms\n", "total", r.ok ? "ok" : "failed", r.total_ms);
    if (!r.ok) {
      // PROBE-4: one line of cause, one of fix.
      print_error("the sandbox is unavailable: " + r.cause + ".");
      print_error("fix: " + r.fix + ".");
    }
  }
  return r.ok ? 0 : 1;
}

}  // namespace cordon
