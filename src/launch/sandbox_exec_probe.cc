#include "launch/sandbox_exec_probe.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

#include "core/duration.h"
#include "core/paths.h"
#include "core/version.h"
#include "launch/probe_cache.h"
#include "launch/seatbelt_launcher.h"
#include "process/process.h"

namespace cordon {

namespace {

void fail(ProbeReport& r, std::string check, std::string cause, std::string fix) {
  r.ok = false;
  r.failed_check = std::move(check);
  r.cause = std::move(cause);
  r.fix = std::move(fix);
}

ProbeReport probe_afresh(const std::string& sandbox_exec, const EnvMap& env) {
  const auto t0 = std::chrono::steady_clock::now();
  ProbeReport r;
  r.ok = true;
  ProbeCheck present{"sandbox_exec_present", ::access(sandbox_exec.c_str(), X_OK) == 0, 0,
                     sandbox_exec};
  present.ms = ms_since(t0);
  r.checks.push_back(present);
  if (!present.ok) {
    fail(r, present.name, sandbox_exec + " is missing or cannot be run",
         "run cordon on macOS 10.5 or later, where /usr/bin/sandbox-exec is part of the system; "
         "or set [sandbox] mode = \"external\" when this machine is itself the boundary");
    r.total_ms = ms_since(t0);
    return r;
  }

  const auto t1 = std::chrono::steady_clock::now();
  ProcessSpec spec;
  spec.path = sandbox_exec;
  spec.argv = {sandbox_exec, "-p",    "(version 1)\n(allow default)\n", "--", "/bin/sh",
               "-c",         "exit 0"};
  if (auto path = env.get("PATH")) spec.env.set("PATH", *path);
  spec.err = OutputMode::kCapture;
  spec.out = OutputMode::kCapture;
  spec.capture_limit = 8192;
  spec.timeout = std::chrono::milliseconds(10000);
  spec.end_group_on_exit = true;
  auto outcome = run_process(spec);
  ProbeCheck applies{"profile_applies", outcome.ok() && outcome->exit_code == 0, ms_since(t1), ""};
  if (!outcome.ok()) {
    applies.detail = outcome.error().message;
  } else if (!applies.ok) {
    auto words = seatbelt_apply_failure(outcome->exit_code, outcome->err);
    applies.detail = words ? *words
                           : fmt::format("exit {}{}", outcome->exit_code,
                                         outcome->timed_out ? " (timed out)" : "");
  }
  r.checks.push_back(applies);
  if (!applies.ok)
    fail(r, applies.name, "sandbox-exec could not apply a profile (" + applies.detail + ")",
         "run cordon outside any other sandbox (an app sandbox, or another sandbox-exec, cannot "
         "nest one), or set [sandbox] mode = \"external\" when that outer sandbox is the "
         "boundary");
  r.total_ms = ms_since(t0);
  return r;
}

}  // namespace

ProbeReport run_seatbelt_probe(const std::string& sandbox_exec, const EnvMap& env) {
  return run_seatbelt_probe(SeatbeltProbeInput{sandbox_exec, env, "", false});
}

ProbeReport run_seatbelt_probe(const SeatbeltProbeInput& in) {
  const std::string& sandbox_exec = in.sandbox_exec;
  const std::string cache_file =
      in.cache_dir.empty()
          ? ""
          : path_join(in.cache_dir, fmt::format("probe-seatbelt-{}.json", geteuid()));
  const std::string key = fmt::format("{}|{}|{}|{}", current_boot_id(), sandbox_exec,
                                      probe_file_stamp(sandbox_exec), kCordonVersion);
  ProbeReport cached;
  if (in.use_cache && !cache_file.empty() && load_probe_cache(cache_file, key, cached))
    return cached;
  ProbeReport r = probe_afresh(sandbox_exec, in.env);
  if (r.ok && !cache_file.empty()) save_probe_cache(cache_file, key, r);
  return r;
}

}  // namespace cordon
