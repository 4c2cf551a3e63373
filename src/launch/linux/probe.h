// The start-up probe (PROBE-1..3): one sandboxed run that checks the sandbox holds.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "config/folders.h"
#include "core/env.h"
#include "core/result.h"
#include "render/bwrap_diagnosis.h"

namespace cordon {

struct ProbeCheck {
  std::string name;   // "bwrap_present", "namespaces", "seccomp", ...
  bool ok = false;
  double ms = 0;      // time the check took
  std::string detail;
};

struct ProbeReport {
  bool ok = false;
  std::vector<ProbeCheck> checks;
  double total_ms = 0;
  bool cached = false;        // read from the per-boot cache
  std::string cause;          // PROBE-2: the likely cause, for a person
  std::string fix;            // PROBE-2: the fix
  std::string failed_check;   // the first failed check's name
  std::string step;           // PROBE-4: the sandbox set-up step that failed, when known
  std::string diagnosis;      // PROBE-4: the row of bwrap's message in the table, when known
  std::string bwrap;          // the bwrap used ("" when missing)
  std::string bwrap_version;  // what `bwrap --version` said

  // "the sandbox is unavailable: <cause>. Fix: <fix>"
  std::string message() const;
};

struct ProbeInput {
  EnvMap env;
  Folders folders;
  std::string cordon_exe;  // this program, run inside the sandbox as the checker
  std::string bwrap;       // empty when missing
  bool use_cache = true;
};

// Runs the probe (or returns the cached success of this boot).
ProbeReport run_probe(const ProbeInput& in);

// What a kept probe result depends on: this boot, the bwrap and cordon programs (replaced ones
// change it) and cordon's version.
std::string probe_cache_key(const ProbeInput& in);

// What the machine says about user namespaces and containers, for the diagnosis (PROBE-4).
HostHints read_host_hints(const std::string& bwrap, const Folders& folders);

// PROBE-4: bwrap's words when it could not build a sandbox, diagnosed for this machine; used
// by the probe and by every refusal of a command whose sandbox could not start.
Diagnosis diagnose_sandbox_start(const std::string& bwrap_stderr, const std::string& bwrap,
                                 const Folders& folders);

// The checker that runs inside the probe's sandbox (`cordon __probe-inside ...`); prints one
// line per check and returns 0.
int probe_inside_main(int argc, char** argv);

}  // namespace cordon
