#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/linux/probe.h"
#include "cli/commands.h"
#include "host/facts_reader.h"

namespace cordon {

int cmd_probe(const CliContext& ctx, bool json) {
  ProbeInput in;
  in.env = ctx.env;
  in.folders = ctx.folders;
  in.cordon_exe = ctx.exe;
  in.bwrap = find_bwrap(ctx.env);
  in.use_cache = false;  // an explicit probe always checks afresh (and refreshes the cache)
  ProbeReport r = run_probe(in);
  if (json) {
    nlohmann::json j;
    j["ok"] = r.ok;
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
