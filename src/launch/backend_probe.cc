#include "launch/backend_probe.h"

#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/paths.h"
#include "core/strings.h"
#include "host/namespace_conditions.h"
#include "launch/linux/landlock_probe.h"
#include "launch/linux/namespace_check.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// Everything bubblewrap's failure to make namespaces depends on: what a kept probe result
// does, and what decides namespaces for this caller.
std::string fallback_key(const ProbeInput& in) {
  return probe_cache_key(in) + "|" + namespace_conditions();
}

std::string fallback_file(const ProbeInput& in) {
  return path_join(in.folders.cache, fmt::format("probe-fallback-{}.json", geteuid()));
}

std::optional<std::string> kept_failure(const ProbeInput& in) {
  auto text = read_file(fallback_file(in), 1 << 16);
  if (!text.ok()) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("key", "") != fallback_key(in)) return std::nullopt;
  std::string cause = j.value("cause", "");
  if (cause.empty()) return std::nullopt;
  return cause;
}

void keep_failure(const ProbeInput& in, const std::string& cause) {
  nlohmann::json j{{"key", fallback_key(in)}, {"cause", cause}};
  (void)write_file_atomic(fallback_file(in), j.dump() + "\n", /*sync=*/false);
}

// A person's short reason: the failed start's first sentence ("bwrap: No permissions to create
// new namespace, likely because ..."), else the probe's cause.
std::string short_cause(const ProbeReport& r) {
  for (const auto& c : r.checks)
    if (c.name == r.failed_check && !c.detail.empty()) {
      std::string d = trim(c.detail);
      d = d.substr(0, d.find(". "));
      d = d.substr(0, d.find('\n'));
      if (!d.empty() && d.back() == '.') d.pop_back();
      return d;
    }
  return r.cause;
}

// bubblewrap is installed and failed: Landlock, when its probe passes; else bubblewrap's
// refusal, naming Landlock's reason too.
SettledBackend after_bwrap_failed(BackendChoice choice, ProbeReport bwrap, const ProbeInput& in) {
  ProbeReport ll = run_landlock_probe();
  if (!ll.ok) {
    bwrap.fix += "; the fallback, Landlock, cannot run either (" + ll.cause + ")";
    return {choice, bwrap, std::nullopt};
  }
  const std::string cause = short_cause(bwrap);
  keep_failure(in, cause);
  return {fall_back_to_landlock(choice, cause), ll, bwrap};
}

}  // namespace

SettledBackend settle_backend(BackendChoice choice, const ProbeInput& in) {
  if (choice.backend == Backend::kLandlock) return {choice, run_landlock_probe(), std::nullopt};
  if (choice.may_fall_back && in.use_cache && !in.bwrap.empty()) {
    if (auto cause = kept_failure(in)) {
      ProbeReport ll = run_landlock_probe();
      if (ll.ok) return {fall_back_to_landlock(choice, *cause), ll, std::nullopt};
    }
  }
  ProbeReport r = run_probe(in);
  if (r.ok || !choice.may_fall_back) return {choice, r, std::nullopt};
  if (in.bwrap.empty()) {  // not installed: no fallback (installing it may be all it takes)
    r.fix += ", or set [sandbox] backend = \"landlock\" to run commands under Landlock";
    return {choice, r, std::nullopt};
  }
  // Only where namespaces are refused, shown by making them: a failed check inside a started
  // sandbox, a cache folder cordon cannot write or a bwrap failing for a reason of its own is
  // a fault to fix, not a machine without namespaces.
  if (r.failed_check != "bwrap_runs") return {choice, r, std::nullopt};
  if (!namespaces_refused()) return {choice, r, std::nullopt};
  return after_bwrap_failed(choice, std::move(r), in);
}

}  // namespace cordon
