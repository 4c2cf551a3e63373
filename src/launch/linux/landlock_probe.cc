#include "launch/linux/landlock_probe.h"

#include <fmt/format.h>

#include "launch/linux/landlock_ruleset.h"

namespace cordon {

ProbeReport run_landlock_probe() {
  ProbeReport r;
  ProbeCheck c;
  c.name = "landlock_abi";
  c.detail = fmt::format("ABI {}", landlock_abi());
  auto problem = landlock_abi_problem();
  c.ok = !problem;
  r.checks.push_back(c);
  r.ok = c.ok;
  if (problem) {
    r.cause = "Landlock: " + problem->cause;
    r.fix = problem->fix;
    r.failed_check = c.name;
  }
  return r;
}

}  // namespace cordon
